import type { Logger } from 'pino'

export interface SseTiming {
  /** An SSE comment this often keeps proxies and the official client's Node transport (~5 s) from dropping an idle stream. */
  commentIntervalMs: number
  /** A data message this often satisfies the official client's watchdog (60 s without one). */
  pingIntervalMs: number
}

export const defaultSseTiming: SseTiming = { commentIntervalMs: 2_000, pingIntervalMs: 20_000 }

const headers = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
}

/**
 * The open Server-Sent Event streams of the app. Each stream relays a source of JSON texts as
 * unnamed `data:` messages, and ends, unsubscribing its source, when the source ends, the client
 * goes away, or the server shuts down.
 */
export class SseStreams {
  private readonly closers = new Set<() => void>()

  constructor(
    private readonly log: Logger,
    private readonly timing: SseTiming = defaultSseTiming,
  ) {}

  get size(): number {
    return this.closers.size
  }

  open(source: AsyncIterator<string>, abort?: AbortSignal): Response {
    const encoder = new TextEncoder()
    let close = () => {}
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        let closed = false
        const write = (text: string) => {
          if (!closed) controller.enqueue(encoder.encode(text))
        }
        const comments = setInterval(() => write(': keep-alive\n\n'), this.timing.commentIntervalMs)
        const pings = setInterval(
          () => write(`data: ${JSON.stringify({ type: 'ping', data: {} })}\n\n`),
          this.timing.pingIntervalMs,
        )
        close = () => {
          if (closed) return
          closed = true
          clearInterval(comments)
          clearInterval(pings)
          this.closers.delete(close)
          void source.return?.()
          try {
            controller.close()
          } catch {
            // Already cancelled by the client.
          }
        }
        this.closers.add(close)
        abort?.addEventListener('abort', close, { once: true })
        write(': connected\n\n')
        void (async () => {
          try {
            for (;;) {
              const next = await source.next()
              if (next.done) break
              write(`data: ${next.value}\n\n`)
            }
          } catch (error) {
            this.log.error({ err: error }, 'a live stream failed')
          } finally {
            close()
          }
        })()
      },
      cancel: () => close(),
    })
    return new Response(body, { status: 200, headers })
  }

  closeAll(): void {
    for (const close of [...this.closers]) close()
  }
}
