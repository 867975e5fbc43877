import type { Logger } from 'pino'
import { readableStreamOutlet, type SendQueues } from './send-queue.ts'

export interface SseTiming {
  /** An SSE comment this often keeps proxies and the official client's Node transport (~5 s) from dropping an idle stream. */
  commentIntervalMs: number
  /**
   * A data message this often satisfies the official client's watchdog (60 s without one); sent with
   * a comment, so rounded to a whole number of comment intervals.
   */
  pingIntervalMs: number
}

export const defaultSseTiming: SseTiming = { commentIntervalMs: 2_000, pingIntervalMs: 20_000 }

const headers = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
}

// Every chunk a stream sends is encoded once, whichever and however many streams it is written to.
const encoder = new TextEncoder()
const connected = encoder.encode(': connected\n\n')
const comment = encoder.encode(': keep-alive\n\n')
const commentAndPing = encoder.encode(`: keep-alive\n\ndata: ${JSON.stringify({ type: 'ping', data: {} })}\n\n`)

/** Whether a chunk a stream wrote is one of its heartbeats (a comment, or a comment and a ping), by identity: a transport other than SSE (the WebSocket /listen) sends them its own way. */
export const heartbeatOf = (chunk: Uint8Array): 'comment' | 'ping' | undefined =>
  chunk === commentAndPing ? 'ping' : chunk === comment || chunk === connected ? 'comment' : undefined

/** One unnamed SSE `data:` message carrying a JSON text, encoded; with its `id:` first when it has one (a client's Last-Event-ID when it reconnects). */
export const sseMessage = (json: string, id?: string): Uint8Array => encoder.encode(id === undefined ? `data: ${json}\n\n` : `id: ${id}\ndata: ${json}\n\n`)

/** Where a server writes a stream it takes over: its socket. */
export interface EventStreamSink {
  write(chunk: Uint8Array): void
  end(): void
}

const takeovers = new WeakMap<Response, (sink: EventStreamSink) => (() => void) | undefined>()

/**
 * Lets a node server write an event stream of SseStreams straight to its socket instead of reading
 * the Response's body: no ReadableStream, no pending read and no promise per chunk, which with
 * thousands of listeners is most of what a heartbeat costs. Returns the stream's close (for when
 * the client goes away), or undefined for any other response, or one whose body is being read.
 */
export function takeOverEventStream(response: Response, sink: EventStreamSink): (() => void) | undefined {
  const takeOver = takeovers.get(response)
  takeovers.delete(response)
  return takeOver?.(sink)
}

/** An open stream: its writer, and the slot of the heartbeat cycle in which it gets its heartbeat. */
interface OpenStream {
  write: (chunk: Uint8Array) => void
  slot: Set<OpenStream>
}

/** A heartbeat timer tick every 100 ms or so, at most this many per comment interval. */
const maxSlots = 20

/**
 * The open Server-Sent Event streams of the app. Each stream relays a source of encoded messages,
 * and ends, unsubscribing its source, when the source ends, the client goes away, or the server
 * shuts down.
 *
 * One timer writes the heartbeats of all streams while any is open: thousands of idle streams cost
 * one timer, not two each. The comment interval is cut into slots, one per tick, and a stream takes
 * the slot of the tick it opened in, so each stream gets its heartbeat every interval after it
 * opened, and ten thousand streams are written a few hundred at a time rather than all at once
 * (a burst that would hold up the signals waiting behind it).
 */
export class SseStreams {
  private readonly streams = new Map<() => void, OpenStream>()
  private readonly slots: Set<OpenStream>[]
  /** How many ticks in a row (one per slot) make a comment interval, and how many intervals a ping's. */
  private readonly pingEvery: number
  private heartbeat: ReturnType<typeof setInterval> | undefined
  private ticks = 0

  constructor(
    private readonly log: Logger,
    private readonly timing: SseTiming = defaultSseTiming,
    /** What a stream read as its Response's body sends through (a server that takes it over has its own). */
    private readonly queues?: SendQueues,
  ) {
    const count = Math.max(1, Math.min(maxSlots, Math.floor(timing.commentIntervalMs / 100)))
    this.slots = Array.from({ length: count }, () => new Set<OpenStream>())
    this.pingEvery = Math.max(1, Math.round(timing.pingIntervalMs / timing.commentIntervalMs))
  }

  get size(): number {
    return this.streams.size
  }

  private tick(): void {
    const slot = this.slots[this.ticks % this.slots.length] as Set<OpenStream>
    const round = Math.floor(this.ticks / this.slots.length) + 1
    this.ticks++
    const chunk = round % this.pingEvery === 0 ? commentAndPing : comment
    for (const stream of slot) stream.write(chunk)
  }

  private added(close: () => void, write: (chunk: Uint8Array) => void): void {
    // The slot the timer served last comes round again about one interval from now.
    const slot = this.slots[(this.ticks + this.slots.length - 1) % this.slots.length] as Set<OpenStream>
    const stream = { write, slot }
    slot.add(stream)
    this.streams.set(close, stream)
    this.heartbeat ??= setInterval(() => this.tick(), this.timing.commentIntervalMs / this.slots.length)
  }

  private removed(close: () => void): void {
    const stream = this.streams.get(close)
    if (!stream) return
    stream.slot.delete(stream)
    this.streams.delete(close)
    if (this.streams.size > 0 || this.heartbeat === undefined) return
    clearInterval(this.heartbeat)
    this.heartbeat = undefined
  }

  open(source: AsyncIterator<Uint8Array>, abort?: AbortSignal): Response {
    // Chunks wait here until the stream has a reader: the Response's body, or a server that takes
    // the stream over (see takeOverEventStream) and writes it straight to its socket.
    let pending: Uint8Array[] | undefined = []
    let output: (chunk: Uint8Array) => void = (chunk) => pending?.push(chunk)
    let end = () => {}
    let closed = false
    const write = (chunk: Uint8Array) => {
      if (!closed) output(chunk)
    }
    const close = () => {
      if (closed) return
      closed = true
      this.removed(close)
      void source.return?.()
      end()
    }
    /** Sends what waited, then writes straight to `sink`. */
    const attach = (sink: (chunk: Uint8Array) => void, ending: () => void) => {
      const waited = pending ?? []
      pending = undefined
      output = sink
      end = ending
      for (const chunk of waited) sink(chunk)
      if (closed) ending()
    }
    const body = new ReadableStream<Uint8Array>(
      {
        // Called on the first read only (high-water mark 0), when the body becomes the reader.
        pull: (controller) => {
          if (!pending) return
          const queue = this.queues?.open(readableStreamOutlet(controller))
          queue?.onDrop(close)
          attach(queue ? (chunk) => void queue.send(chunk) : (chunk) => controller.enqueue(chunk), () => {
            queue?.close()
            try {
              controller.close()
            } catch {
              // Already cancelled by the client.
            }
          })
        },
        cancel: () => close(),
      },
      // Sized in bytes: what waits in the body for its reader is what its send queue measures.
      { highWaterMark: 0, size: (chunk) => chunk.byteLength },
    )
    this.added(close, write)
    abort?.addEventListener('abort', close, { once: true })
    write(connected)
    void (async () => {
      try {
        for (;;) {
          const next = await source.next()
          if (next.done) break
          write(next.value)
        }
      } catch (error) {
        this.log.error({ err: error }, 'a live stream failed')
      } finally {
        close()
      }
    })()
    const response = new Response(body, { status: 200, headers })
    takeovers.set(response, (sink) => {
      if (!pending) return undefined
      attach(sink.write, sink.end)
      return close
    })
    return response
  }

  closeAll(): void {
    for (const close of [...this.streams.keys()]) close()
  }
}
