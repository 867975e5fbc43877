import type { IncomingMessage } from 'node:http'
import { CloseCode, handleProtocols, makeServer, type ServerOptions } from 'graphql-ws'
import type { WebSocket, WebSocketServer } from 'ws'
import { type SendQueue, type SendQueues, slowReader, webSocketOutlet } from './send-queue.ts'

/** What graphql-ws' hooks get as `ctx.extra` here: the socket, its upgrade request and its send queue. */
export interface SocketExtra {
  socket: WebSocket
  request: IncomingMessage
  queue: SendQueue
}

// What a `next` payload this server has written itself (sendNext) stands for in graphql-ws' message.
const alreadySent = '(sent by sendNext)'
const marker = { toJSON: () => alreadySent }
const markedMessageEnd = `,"payload":${JSON.stringify(alreadySent)}}`

const closing = Buffer.from('}')

/**
 * Writes the `next` message of operation `id` with a payload already encoded (shared by every
 * subscriber of its shape: graphql/shared-rendering.ts), and returns what graphql-ws' onNext hook
 * returns for it: graphql-ws makes and sends each message itself, and this one, carrying the marker,
 * is not sent again. Its fields are in graphql-ws' order.
 */
export function sendNext(extra: SocketExtra, id: string, payload: Uint8Array): Record<string, never> {
  extra.queue.send(Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`), payload, closing)
  return marker as unknown as Record<string, never>
}

/**
 * graphql-ws on the sockets of a ws server, as graphql-ws' own `useServer` (graphql-ws/use/ws) runs
 * it (the protocol, a ping every `keepAliveMs` and a socket that misses its pong terminated), except
 * that every message goes through the socket's send queue (http/send-queue.ts) without waiting for
 * the client: graphql-ws waits for each send to be written before it reads an operation's next
 * result, so a client that does not read would leave its signals piling up unseen behind it.
 */
export function serveGraphQLWs(
  wss: WebSocketServer,
  options: ServerOptions<Record<string, unknown>, SocketExtra>,
  queues: SendQueues,
  keepAliveMs = 12_000,
): void {
  const server = makeServer(options)
  wss.options.handleProtocols = handleProtocols
  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    const queue = queues.open(webSocketOutlet(socket, request.socket))
    let pongWait: ReturnType<typeof setTimeout> | undefined
    const pinger =
      keepAliveMs > 0
        ? setInterval(() => {
            if (socket.readyState !== socket.OPEN) return
            pongWait ??= setTimeout(() => socket.terminate(), keepAliveMs)
            socket.ping()
          }, keepAliveMs)
        : undefined
    socket.on('pong', () => {
      clearTimeout(pongWait)
      pongWait = undefined
    })
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) => {
          if (!data.endsWith(markedMessageEnd)) queue.send(Buffer.from(data))
        },
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', async (data) => {
            // A socket closing (dropped, say) starts nothing more.
            if (socket.readyState !== socket.OPEN) return
            try {
              await handle(String(data))
            } catch {
              socket.close(CloseCode.InternalServerError, 'Internal server error')
            }
          }),
      },
      { socket, request, queue },
    )
    let ended = false
    /** Ends the socket's operations: once it has closed, or at once when it is dropped (its close may take a while). */
    const end = (code: number, reason: string) => {
      if (ended) return
      ended = true
      queue.close()
      clearInterval(pinger)
      clearTimeout(pongWait)
      void closed(code, reason)
    }
    queue.onDrop(() => end(slowReader, 'dropped'))
    socket.once('close', (code, reason) => end(code, String(reason)))
  })
}
