import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import type { TLSSocket } from 'node:tls'
import { Worker, type WorkerOptions } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { NonParticipantStatus, RateLimitRules } from '../config.ts'
import type { ReplicaSource } from '../db/sqlite/replica-store.ts'
import type { CorsOrigins } from './cors.ts'
import type { RequestLabels } from './request-labels.ts'

/** What a replica is started with (its workerData). */
export interface ReplicaSetup {
  source: ReplicaSource
  logLevel: string
  corsOrigins: CorsOrigins
  /** PUBLIC_URL and TRUST_PROXY: a replica hands out the same URLs as the main thread. */
  publicUrl?: string
  /** TRUST_PROXY: the replica's access lines name the client as the main thread would. */
  trustProxy?: readonly string[]
  /** RESPONSE_MAX_BYTES: a replica's chat answers are capped as the main thread's; the default when absent. */
  responseMaxBytes?: number
  /** RATE_LIMIT_* (or RATE_LIMITS=off): a replica counts the reads with a key it serves (`userReads`); the defaults when absent. */
  rateLimits?: RateLimitRules | 'off'
  /** NON_PARTICIPANT_STATUS: a replica refuses a non-participant's read as the main thread does; 404 when absent. */
  nonParticipantStatus?: NonParticipantStatus
}

/** A request as the main thread's node:http server read it: what whatwg-node makes a Request of. */
export interface ForwardedRequest {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body?: Uint8Array
  socket: { localAddress?: string; localPort?: number; remoteAddress?: string; encrypted?: boolean }
}

export interface ReplicaRequest {
  id: number
  request: ForwardedRequest
}

/** A replica's response; without a status, the replica could not serve the request. */
export interface ReplicaAnswer {
  id: number
  status?: number
  headers?: string[]
  body?: string
  /** What the metrics count the request by (http/request-labels.ts). */
  labels?: RequestLabels
}

export interface ReadReplicasOptions extends Omit<ReplicaSetup, 'logLevel'> {
  /** Worker threads; each starts with the first read that finds it missing. */
  count: number
  log: Logger
  /**
   * How long a replica that died stays down before a read starts it again: 1 s by default, doubled
   * for each one in a row that died before it was ready (up to a minute).
   */
  restartDelayMs?: number
  /** A replica that served no read for this long stops (the next read starts one again); a minute by default. */
  idleMs?: number
  /** Milliseconds since the epoch (tests move it). */
  now?: () => number
}

// Run from dist/, dist/read-replica.js is the bundled replica's one import line (src/build.mjs). Run
// from src/ (tests), the replica is TypeScript too, which tsx compiles as it loads: registered from
// the thread itself, as Node 20 starts a worker's entry before its `--import`s.
const fromSource = import.meta.url.endsWith('.ts')
const entry = new URL(fromSource ? '../read-replica.ts' : '../read-replica.js', import.meta.url)
const newThread = (options: WorkerOptions) =>
  fromSource
    ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}) })`, {
        ...options,
        eval: true,
      })
    : new Worker(entry, options)

/** How long a scrape waits for a replica to tell its heap. */
const heapAnswerMs = 1_000

interface Replica {
  worker: Worker
  ready: boolean
  pending: Map<number, (answer: ReplicaAnswer | undefined) => void>
  /** When it was last handed a read (ms since the epoch). */
  lastUsed: number
  /** Stopped for want of reads, not failed. */
  retired: boolean
}

/**
 * Read replicas: worker threads running the same app over read-only connections to the SQLite
 * file (WAL lets them read beside the writer), each answering the reads the main thread hands it,
 * while the main thread keeps every write, stream and bot delivery. One thread cannot use a second
 * core: reads were what the main thread spent most of its time on, and they need no writer.
 *
 * A replica starts with the first read that finds it missing, and stops after a minute without
 * one, so an instance that serves no reads pays no memory for them. Until one is ready, and
 * whenever one fails, the main thread serves the read itself: a read can always be served again.
 */
export class ReadReplicas {
  private readonly slots: (Replica | undefined)[]
  /** Per slot: when a replica that died may be started again (ms since the epoch). */
  private readonly downUntil: number[]
  /** Per slot: replicas in a row that died before they were ready. */
  private readonly failedStarts: number[]
  private nextId = 0
  private closing: Promise<void> | undefined
  private idleSweep: NodeJS.Timeout | undefined
  /** Reads the replicas answered (tests, metrics). */
  served = 0
  /** Requests a replica handed back to the main thread unanswered: it may not serve them, or failed (tests). */
  handedBack = 0

  constructor(private readonly options: ReadReplicasOptions) {
    this.slots = Array.from({ length: options.count }, () => undefined)
    this.downUntil = this.slots.map(() => 0)
    this.failedStarts = this.slots.map(() => 0)
  }

  /** The replicas running and ready. */
  get ready(): number {
    return this.slots.filter((replica) => replica?.ready).length
  }

  /** The threads of the replicas started (tests, metrics). */
  get threads(): Worker[] {
    return this.slots.flatMap((replica) => (replica ? [replica.worker] : []))
  }

  /**
   * Each ready replica's V8 heap in use, by slot (1, 2…): the main thread's own metrics see only its
   * own heap. A replica that exits as it is asked, or a Node without the call (before 22.16), is left out.
   */
  async heaps(): Promise<{ replica: number; usedBytes: number }[]> {
    const asked = this.slots.map(async (replica, slot) => {
      if (!replica?.ready || typeof replica.worker.getHeapStatistics !== 'function') return []
      // A thread that exits before it answers never settles the call: the scrape does not wait for it.
      const gaveUp = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), heapAnswerMs).unref())
      const heap = await Promise.race([replica.worker.getHeapStatistics(), gaveUp]).catch(() => undefined)
      return heap ? [{ replica: slot + 1, usedBytes: heap.used_heap_size }] : []
    })
    return (await Promise.all(asked)).flat()
  }

  /**
   * Serves a request on the least busy replica and writes its answer: true once written, false when
   * no replica could serve it (the caller serves it; the request body, if any, is `body`).
   */
  async answer(req: IncomingMessage, res: ServerResponse, body?: Uint8Array, answered?: (labels: RequestLabels | undefined) => void): Promise<boolean> {
    const replica = this.pick()
    if (!replica) return false
    replica.lastUsed = (this.options.now ?? Date.now)()
    const request: ForwardedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      body,
      socket: {
        localAddress: req.socket.localAddress,
        localPort: req.socket.localPort,
        remoteAddress: req.socket.remoteAddress,
        encrypted: (req.socket as TLSSocket).encrypted,
      },
    }
    const id = ++this.nextId
    const answer = await new Promise<ReplicaAnswer | undefined>((resolve) => {
      replica.pending.set(id, resolve)
      replica.worker.postMessage({ id, request } satisfies ReplicaRequest)
    })
    if (answer?.status === undefined) {
      this.handedBack++
      return false
    }
    this.served++
    res.writeHead(answer.status, answer.headers)
    res.end(answer.body)
    answered?.(answer.labels)
    // Written, the page is let go of at once, or a scavenge promotes it (docs/internals/performance.md).
    answer.body = undefined
    answer.headers = undefined
    return true
  }

  private pick(): Replica | undefined {
    if (this.closing) return undefined
    let best: Replica | undefined
    for (let slot = 0; slot < this.slots.length; slot++) {
      const replica = this.slots[slot] ?? this.start(slot)
      if (replica?.ready && (!best || replica.pending.size < best.pending.size)) best = replica
    }
    return best
  }

  private start(slot: number): Replica | undefined {
    // What a replica is set up with is what the main thread was, less what only this pool uses.
    const { count: _count, log, restartDelayMs = 1000, idleMs: _idleMs, now = Date.now, ...setup } = this.options
    if (now() < (this.downUntil[slot] ?? 0)) return undefined
    const worker = newThread({
      // V8's own young generation, not a smaller one: each scavenge holds every read under way (docs/internals/performance.md).
      workerData: { ...setup, logLevel: log.level } satisfies ReplicaSetup,
    })
    worker.unref()
    const replica: Replica = { worker, ready: false, pending: new Map(), lastUsed: now(), retired: false }
    this.idleSweep ??= setInterval(() => this.stopIdle(), (this.options.idleMs ?? 60_000) / 4).unref()
    worker.on('message', (message: ReplicaAnswer | 'ready') => {
      if (message === 'ready') {
        replica.ready = true
        this.failedStarts[slot] = 0
        return
      }
      const settle = replica.pending.get(message.id)
      replica.pending.delete(message.id)
      settle?.(message)
    })
    worker.on('error', (error) => log.error({ err: error, slot }, 'a read replica failed; the main thread serves its reads meanwhile'))
    worker.once('exit', () => {
      this.slots[slot] = undefined
      for (const settle of replica.pending.values()) settle(undefined)
      replica.pending.clear()
      if (this.closing || replica.retired) return
      const failed = replica.ready ? 0 : (this.failedStarts[slot] ?? 0) + 1
      this.failedStarts[slot] = failed
      this.downUntil[slot] = now() + Math.min(restartDelayMs * 2 ** Math.max(failed - 1, 0), 60_000)
    })
    this.slots[slot] = replica
    return replica
  }

  /** Stops the replicas that served no read for `idleMs` (run on a timer; tests call it). */
  stopIdle(): void {
    const { idleMs = 60_000, now = Date.now } = this.options
    this.slots.forEach((replica, slot) => {
      if (!replica?.ready || replica.pending.size > 0 || now() - replica.lastUsed < idleMs) return
      replica.retired = true
      this.slots[slot] = undefined
      void this.stop(replica)
    })
  }

  /**
   * Asks a replica to close its app and its connection, and resolves once its thread has exited. A
   * replica that does not finish in time is stopped where it is.
   */
  private async stop(replica: Replica): Promise<void> {
    const exited = new Promise<void>((resolve) => replica.worker.once('exit', () => resolve()))
    replica.worker.postMessage('close')
    const force = setTimeout(() => void replica.worker.terminate(), 10_000)
    await exited
    clearTimeout(force)
  }

  /** Stops the replicas once the reads handed to them are answered (the HTTP server has stopped taking new ones). */
  close(): Promise<void> {
    clearInterval(this.idleSweep)
    this.closing ??= Promise.all(this.slots.map((replica) => replica && this.stop(replica))).then(() => undefined)
    return this.closing
  }
}
