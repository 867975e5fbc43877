import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable, pipeline } from 'node:stream'
import { createServerAdapter, sendNodeResponse } from '@whatwg-node/server'
import type { Logger } from 'pino'

const isEventStream = (response: Response) =>
  response.body !== null && (response.headers.get('content-type') ?? '').startsWith('text/event-stream')

/**
 * Writes an event stream with node's own stream plumbing. whatwg-node pumps a streamed body by a
 * recursion through promises in which each chunk's promise is resolved with the next one's, so a
 * stream holds every chunk's promises until it ends: about 115 bytes a chunk, which for 10,000
 * listeners and a heartbeat every 2 seconds is 2 GB an hour.
 */
function sendEventStream(response: Response, req: IncomingMessage, res: ServerResponse): void {
  // As whatwg-node does for a streamed body: no idle timeout, no Nagle delay, TCP keep-alive.
  req.socket.setTimeout(0)
  req.socket.setNoDelay(true)
  req.socket.setKeepAlive(true)
  res.writeHead(response.status, response.statusText, [...response.headers].flat())
  // Read as an async iterable: yoga's bodies are whatwg-node's own streams, not node's web streams.
  // pipeline destroys the reading (cancelling the body) when the client goes away.
  pipeline(Readable.from(response.body as unknown as AsyncIterable<Uint8Array>, { objectMode: false }), res, () => {})
}

/**
 * The node:http request listener of a fetch function: whatwg-node's adapter, but with event streams
 * written without its per-chunk leak (see sendEventStream).
 */
export function nodeListener(fetch: (request: Request) => Promise<Response>, log: Logger) {
  const adapter = createServerAdapter(fetch)
  return (req: IncomingMessage, res: ServerResponse): void => {
    void (async () => {
      const response = await adapter.handleNodeRequestAndResponse(req, res)
      if (isEventStream(response)) sendEventStream(response, req, res)
      else await sendNodeResponse(response, res, req, true)
    })().catch((error: unknown) => {
      // The app answers its own errors; this is the adapter or the socket failing.
      log.error({ err: error }, 'a response could not be sent')
      if (!res.headersSent) res.writeHead(500)
      res.end()
    })
  }
}
