import { createServer, type Server } from 'node:http'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { HandoffCensus } from '../domain/handoff-census.ts'

/** The backlog of bot deliveries, read when the metrics are scraped (domain/bots/delivery/outbox.ts). */
export type DeliveryBacklog = () => Promise<{ pending: number; oldestPendingSeconds: number }>

export interface MetricsSources {
  /** The GraphQL WebSockets open. */
  liveSockets?: () => number
  /** Live connections dropped for reading too slowly so far (http/send-queue.ts). */
  droppedConnections?: () => number
  deliveryBacklog?: DeliveryBacklog
  /** The conversations handed off, read when the metrics are scraped (domain/handoff-census.ts). */
  handoffCensus?: () => Promise<HandoffCensus>
  /** The read replicas' V8 heaps in use (SQLite, READ_REPLICAS; http/read-replicas.ts). */
  replicaHeaps?: () => Promise<{ replica: number; usedBytes: number }[]>
}

/** A read shared by the gauges of one scrape (they are collected together), made again at the next. */
function perScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined
  return () => (pending ??= read().finally(() => setImmediate(() => (pending = undefined))))
}

/**
 * Confab's Prometheus metrics, one registry per server. Every label value is bounded: a transport,
 * an operation name of the route table or the schema, a status code, a protocol, a door of the rate
 * limits — never a path, an id or anything a client names.
 */
export class Metrics {
  readonly registry = new Registry()
  private readonly requests = new Counter({
    name: 'confab_http_requests_total',
    help: 'HTTP requests answered, by transport, operation and status',
    labelNames: ['transport', 'operation', 'status'] as const,
    registers: [this.registry],
  })
  private readonly requestSeconds = new Histogram({
    name: 'confab_http_request_duration_seconds',
    help: 'Time to answer an HTTP request (to its headers, for a live stream), by transport and operation',
    labelNames: ['transport', 'operation'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  })
  private readonly refusals = new Counter({
    name: 'confab_rate_limited_total',
    help: 'Requests refused with 429 RateLimited, by transport and operation',
    labelNames: ['transport', 'operation'] as const,
    registers: [this.registry],
  })
  private readonly attempts = new Counter({
    name: 'confab_bot_delivery_attempts_total',
    help: 'Attempts to deliver a bot event, by protocol and outcome (delivered, failed: retried later, dead_lettered: given up)',
    labelNames: ['protocol', 'outcome'] as const,
    registers: [this.registry],
  })
  private readonly attemptSeconds = new Histogram({
    name: 'confab_bot_delivery_attempt_duration_seconds',
    help: 'Time an attempt to deliver a bot event took, by protocol',
    labelNames: ['protocol'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  })
  private readonly commitUnits = new Histogram({
    name: 'confab_group_commit_units',
    help: 'Units of work (requests) each SQLite group commit made durable',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [this.registry],
  })
  private readonly commitSeconds = new Histogram({
    name: 'confab_group_commit_duration_seconds',
    help: 'Time from the start of an SQLite group commit to its units being durable',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  })

  private readonly firstReplySeconds = new Histogram({
    name: 'confab_handoff_first_reply_seconds',
    help: 'Time from a handoff requested (hitl:startHitl) to the first agent reply in its conversation',
    buckets: [5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600, 24 * 3600],
    registers: [this.registry],
  })

  private readonly liveStreams = new Gauge({
    name: 'confab_live_streams',
    help: 'Event streams (SSE) being written: listen, the web chat, graphql-sse',
    registers: [this.registry],
  })

  constructor() {
    collectDefaultMetrics({ register: this.registry })
  }

  /** An event stream started: its end is the function returned. */
  streamOpened(): () => void {
    this.liveStreams.inc()
    let ended = false
    return () => {
      if (ended) return
      ended = true
      this.liveStreams.dec()
    }
  }

  /** The gauges read when scraped: WebSockets open, the delivery backlog and the handoffs; and the connections dropped. */
  observe({ liveSockets, droppedConnections, deliveryBacklog, handoffCensus, replicaHeaps }: MetricsSources): void {
    const registers = [this.registry]
    if (handoffCensus) this.observeHandoffs(handoffCensus)
    if (replicaHeaps) {
      new Gauge({
        name: 'confab_read_replica_heap_used_bytes',
        help: "Each read replica's V8 heap in use (nodejs_heap_size_used_bytes is the main thread's alone)",
        labelNames: ['replica'] as const,
        registers,
        async collect() {
          // A replica stopped since the last scrape is not told as its last figure.
          this.reset()
          for (const { replica, usedBytes } of await replicaHeaps()) this.set({ replica: String(replica) }, usedBytes)
        },
      })
    }
    if (droppedConnections) {
      let counted = 0
      new Counter({
        name: 'confab_live_dropped_total',
        help: 'Live connections (event streams, WebSockets) dropped for reading too slowly (SEND_QUEUE_MAX_BYTES)',
        registers,
        collect() {
          const dropped = droppedConnections()
          this.inc(dropped - counted)
          counted = dropped
        },
      })
    }
    if (liveSockets) {
      new Gauge({
        name: 'confab_live_websockets',
        help: 'GraphQL WebSockets open',
        registers,
        collect() {
          this.set(liveSockets())
        },
      })
    }
    if (!deliveryBacklog) return
    // One read of the backlog per scrape feeds both gauges.
    const read = perScrape(deliveryBacklog)
    new Gauge({
      name: 'confab_bot_deliveries_pending',
      help: 'Bot deliveries waiting in the outbox (due or scheduled for a retry)',
      registers,
      async collect() {
        this.set((await read()).pending)
      },
    })
    new Gauge({
      name: 'confab_bot_delivery_oldest_pending_seconds',
      help: 'How long the oldest bot delivery in the outbox has waited since it was recorded (0 when none waits)',
      registers,
      async collect() {
        this.set((await read()).oldestPendingSeconds)
      },
    })
  }

  /** One read of the census per scrape feeds both gauges. */
  private observeHandoffs(handoffCensus: () => Promise<HandoffCensus>): void {
    const read = perScrape(handoffCensus)
    const registers = [this.registry]
    new Gauge({
      name: 'confab_handoff_conversations',
      help: 'Conversations handed off to people, by who handles them: waiting (the queue), agent, closed',
      labelNames: ['handled_by'] as const,
      registers,
      async collect() {
        for (const [handledBy, count] of Object.entries((await read()).conversations)) this.set({ handled_by: handledBy }, count)
      },
    })
    new Gauge({
      name: 'confab_handoff_oldest_waiting_seconds',
      help: 'How long the conversation waiting longest in the queue has waited (0 when none waits)',
      registers,
      async collect() {
        this.set((await read()).oldestWaitingSeconds)
      },
    })
  }

  firstAgentReply(seconds: number): void {
    this.firstReplySeconds.observe(seconds)
  }

  request(transport: string, operation: string, status: number, seconds: number): void {
    this.requests.inc({ transport, operation, status: String(status) })
    this.requestSeconds.observe({ transport, operation }, seconds)
    if (status === 429) this.refusals.inc({ transport, operation })
  }

  attempted(protocol: string, outcome: 'delivered' | 'failed' | 'dead_lettered', seconds: number): void {
    this.attempts.inc({ protocol, outcome })
    this.attemptSeconds.observe({ protocol }, seconds)
  }

  committed(units: number, seconds: number): void {
    this.commitUnits.observe(units)
    this.commitSeconds.observe(seconds)
  }
}

/**
 * GET /metrics on a listener of its own (METRICS_PORT), never on the public one: what it tells
 * (traffic, backlogs) is the operator's.
 */
export async function serveMetrics(metrics: Metrics, port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://metrics').pathname
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('GET /metrics\n')
      return
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${(error as Error).message}\n`),
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, resolve)
  })
  return server
}
