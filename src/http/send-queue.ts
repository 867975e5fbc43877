import type { ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'

/**
 * The last event of a stream dropped for reading too slowly: named, so that clients that know only
 * unnamed messages (the official ones) ignore it, as any named event.
 */
export const sseDropped = (reason: string): Uint8Array => new TextEncoder().encode(`event: dropped\ndata: ${JSON.stringify({ reason })}\n\n`)

// Every live connection sends through a SendQueue (SendQueues.open, one per connection, with the
// outlet of its kind: a WebSocket's, an event stream's). A transport sends each message as its
// parts, stops feeding a connection whose send returns false, and lets go of what feeds it in
// onDrop; a new transport (a WebSocket /listen, streamed deltas) needs no more than that.

/**
 * Where a live connection's bytes go (a WebSocket, an event stream's response), as its send queue
 * sees it. Node keeps what the kernel has not taken yet in the connection's own buffer: that buffer
 * is the queue, and `queued` measures it.
 */
export interface Outlet {
  /** Bytes written and not yet taken by the kernel (ws' bufferedAmount, a response's writableLength). */
  queued(): number
  /** Writes one message, given in parts (shared bytes need no copy). */
  write(parts: readonly Uint8Array[]): void
  /**
   * Ends the connection after what is queued, telling why in the transport's own way (a close code,
   * a last event); a connection that has not taken it within DROP_GRACE_MS is destroyed.
   */
  drop(reason: string): void
}

/** How long a dropped connection has to take what was queued (and the notice) before it is destroyed: ws' own close timeout. */
export const DROP_GRACE_MS = 30_000

/** What the server holds for its live connections, in bytes (metrics, tests): measured on every send. */
export interface SendQueueStats {
  /** Connections whose queue is open now. */
  open: number
  /** The most bytes one connection ever had queued, right after a send. */
  peak: number
  /** Connections dropped for falling behind. */
  dropped: number
}

/**
 * One connection's send queue, with a high-water mark in bytes (SEND_QUEUE_MAX_BYTES): every
 * transport (graphql-ws, graphql-sse, GraphQL over SSE, the REST and web chat event streams) sends
 * through one. A reader keeping up has nothing queued, and any message goes, however large; one that
 * falls behind, so that a message would bring what is queued over the mark, is dropped instead
 * (Outlet.drop) and sent nothing more: the server never holds more than the mark, or one message,
 * for a connection that does not read.
 */
export class SendQueue {
  private closed = false
  private readonly whenDropped: (() => void)[] = []

  constructor(
    private readonly outlet: Outlet,
    private readonly limit: number,
    private readonly stats: SendQueueStats,
  ) {
    stats.open++
  }

  /** Sends one message; false once the connection was dropped or closed (nothing is sent then). */
  send(...parts: Uint8Array[]): boolean {
    if (this.closed) return false
    const queued = this.outlet.queued()
    if (this.limit > 0 && queued > 0) {
      let size = 0
      for (const part of parts) size += part.byteLength
      if (queued + size > this.limit) {
        const whenDropped = this.whenDropped.splice(0)
        this.stats.dropped++
        this.close()
        this.outlet.drop(`this client reads too slowly: over ${this.limit} bytes would be waiting for it (SEND_QUEUE_MAX_BYTES)`)
        for (const dropped of whenDropped) dropped()
        return false
      }
    }
    this.outlet.write(parts)
    const held = this.outlet.queued()
    if (held > this.stats.peak) this.stats.peak = held
    return true
  }

  /** Runs `dropped` if the connection is dropped for falling behind (the transport lets go of what feeds it). */
  onDrop(dropped: () => void): void {
    this.whenDropped.push(dropped)
  }

  /** The connection has ended: nothing more is sent through it. */
  close(): void {
    if (this.closed) return
    this.closed = true
    this.whenDropped.length = 0
    this.stats.open--
  }
}

/** The send queues of a server: one high-water mark for all, and what they held. */
export class SendQueues {
  readonly stats: SendQueueStats = { open: 0, peak: 0, dropped: 0 }

  /** `limit`: SEND_QUEUE_MAX_BYTES; 0 queues without bound. */
  constructor(readonly limit: number) {}

  open(outlet: Outlet): SendQueue {
    return new SendQueue(outlet, this.limit, this.stats)
  }
}

/**
 * The close code of a WebSocket dropped for reading too slowly: 1013 "Try Again Later" (RFC 6455's
 * registry), which graphql-ws' client retries like any non-fatal close.
 */
export const slowReader = 1013

/** The size from which a WebSocket message's parts go as fragments rather than copied into one frame. */
const fragmentedFrom = 16 * 1024

/**
 * A WebSocket as a send queue's outlet: dropped, it is closed with `slowReader`, after what was queued.
 * `connection` is its TCP socket, corked from its first message of an event-loop turn to the end of
 * that turn: the messages of one turn leave in one write to the kernel. A signal fanned out to the
 * hundred subscriptions a client multiplexes over one socket (graphql-ws) is then one system call,
 * not a hundred — on loopback, where the kernel delivers within the write, most of a fan-out's cost.
 */
export const webSocketOutlet = (socket: WebSocket, connection: Duplex): Outlet => {
  let corked = false
  const uncork = () => {
    corked = false
    connection.uncork()
  }
  return {
    queued: () => socket.bufferedAmount,
    // A large message in fragments, its shared bytes as they are (no copy per socket); a small one
    // (most, and every streamed delta) in one frame.
    write: (parts) => {
      if (socket.readyState !== socket.OPEN) return
      if (!corked) {
        corked = true
        connection.cork()
        setImmediate(uncork)
      }
      let size = 0
      for (const part of parts) size += part.byteLength
      if (size < fragmentedFrom) return socket.send(parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts), { binary: false })
      parts.forEach((part, i) => socket.send(part, { binary: false, fin: i === parts.length - 1 }))
    },
    // ws destroys a socket that has not answered its close within its close timeout (30 s, DROP_GRACE_MS).
    drop: (reason) => socket.close(slowReader, reason),
  }
}

/** An event stream's response as a send queue's outlet: dropped, it gets a last `dropped` event, then ends. */
export const eventStreamOutlet = (res: ServerResponse): Outlet => ({
  queued: () => res.writableLength,
  write: (parts) => {
    for (const part of parts) res.write(part)
  },
  drop: (reason) => {
    res.end(sseDropped(reason))
    const destroy = setTimeout(() => res.destroy(), DROP_GRACE_MS).unref()
    res.once('close', () => clearTimeout(destroy))
  },
})

/**
 * An event stream read as a Response's body (the app's fetch called by a server other than Confab's
 * own) as a send queue's outlet: what waits is what the reader has not pulled (the body's queue is
 * sized in bytes). Dropped, it gets the last `dropped` event; its stream then closes the body.
 */
export const readableStreamOutlet = (controller: ReadableStreamDefaultController<Uint8Array>): Outlet => ({
  queued: () => Math.max(0, -(controller.desiredSize ?? 0)),
  write: (parts) => {
    for (const part of parts) controller.enqueue(part)
  },
  drop: (reason) => controller.enqueue(sseDropped(reason)),
})
