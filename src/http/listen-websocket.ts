import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { TLSSocket } from 'node:tls'
import type { Logger } from 'pino'
import { WebSocketServer } from 'ws'
import type { Peer } from './peer.ts'
import { peerOf } from './peer.ts'
import { type SendQueues, webSocketOutlet } from './send-queue.ts'
import { heartbeatOf, takeOverEventStream } from './sse.ts'

/** /{webhookId}/conversations/{id}/listen, with or without its query. */
const listenPath = /^\/[^/?]+\/conversations\/[^/?]+\/listen\/?(?:\?|$)/

/** Whether an upgrade request asks for the WebSocket transport of listenConversation. */
export const isListenUpgrade = (request: IncomingMessage): boolean => listenPath.test(request.url ?? '')

/**
 * The keep-alive the chat integration's WebSocket sends (Pushpin's `keepAlive('ping', 30)`): the text
 * `ping`, not JSON. @botpress/chat's client resets its 60 s watchdog on any message and ignores one it
 * cannot parse as a signal.
 */
export const WS_KEEP_ALIVE = 'ping'

/** A client only listens: whatever it sends is ignored, and a frame larger than this closes it (1009). */
const maxClientFrame = 4 * 1024

/** Closed when its stream ends (the participant removed, the conversation deleted). */
const streamEnded = 1000
/** Closed because the server stops (as the GraphQL WebSockets are). */
const goingAway = 1001
/** Closed because the stream could not be taken over (never expected: every listen stream is one of SseStreams). */
const internalError = 1011

const encoder = new TextEncoder()
const keepAlive = encoder.encode(WS_KEEP_ALIVE)
const dataPrefix = encoder.encode('data: ')

const idPrefix = encoder.encode('id: ')

const startsWith = (chunk: Uint8Array, prefix: Uint8Array, at = 0): boolean => {
  if (chunk.byteLength < at + prefix.byteLength) return false
  for (let i = 0; i < prefix.byteLength; i++) if (chunk[at + i] !== prefix[i]) return false
  return true
}

/** The frames made of SSE messages with an `id:`, once each whatever the number of sockets. */
const framesWithId = new WeakMap<Uint8Array, Uint8Array>()

/**
 * Whether `chunk` is one SSE message `[id: {id}\n]data: {json}\n\n` (sse.ts sseMessage): its JSON,
 * without a copy; with its id as the object's first property `id` when it has one (what `since` takes).
 */
const jsonOf = (chunk: Uint8Array): Uint8Array | undefined => {
  if (!startsWith(chunk, idPrefix))
    return startsWith(chunk, dataPrefix) && chunk.byteLength >= dataPrefix.byteLength + 2
      ? chunk.subarray(dataPrefix.byteLength, chunk.byteLength - 2)
      : undefined
  const made = framesWithId.get(chunk)
  if (made) return made
  const newline = chunk.indexOf(10)
  if (newline < 0 || !startsWith(chunk, dataPrefix, newline + 1) || chunk[newline + 1 + dataPrefix.byteLength] !== 123) return undefined
  const id = Buffer.from(chunk.subarray(idPrefix.byteLength, newline)).toString()
  const json = chunk.subarray(newline + 1 + dataPrefix.byteLength + 1, chunk.byteLength - 2)
  const frame = Buffer.concat([encoder.encode(`{"id":${JSON.stringify(id)},`), json])
  framesWithId.set(chunk, frame)
  return frame
}

export interface ListenWebSocketOptions {
  log: Logger
  /** The app's fetch: the listen stream is asked for as the SSE request it stands for, so its checks and errors are those of SSE. */
  fetch: (request: Request, peer: Peer) => Promise<Response>
  /** Counts the stream against the SSE caps per user and per address (App.admitStream): its release, or the refusal to send. */
  admitStream: (req: IncomingMessage, response: Response) => (() => void) | Response | undefined
  /** What every socket sends through (SEND_QUEUE_MAX_BYTES). */
  queues: SendQueues
}

/** The request the upgrade stands for: its path without the query, the key from the query as the header SSE reads. */
function streamRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const url = new URL(req.url ?? '/', 'http://confab')
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'upgrade' || name === 'connection' || name.startsWith('sec-websocket-')) continue
    headers.set(name, Array.isArray(value) ? value.join(', ') : value)
  }
  // As @botpress/chat 1.x sends it: browsers set no header on a WebSocket. The query never goes further (no log sees it).
  const key = url.searchParams.get('x-user-key')
  if (key !== null) headers.set('x-user-key', key)
  // The id of the last signal heard, as SSE's reconnect sends it (the header wins: an SSE client's own).
  const since = url.searchParams.get('since')
  if (since && !headers.has('last-event-id')) headers.set('last-event-id', since)
  headers.set('accept', 'text/event-stream')
  const origin = `${(req.socket as TLSSocket).encrypted ? 'https' : 'http'}://${req.headers.host || 'localhost'}`
  return new Request(`${origin}${url.pathname}`, { headers, signal })
}

/** An HTTP answer written on the socket instead of the upgrade: the refusal as SSE gives it (status, headers, error body). */
async function refuseUpgrade(socket: Duplex, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer().catch(() => new ArrayBuffer(0)))
  const lines = [`HTTP/1.1 ${response.status} ${response.statusText || 'Refused'}`]
  for (const [name, value] of response.headers)
    if (name !== 'content-length' && name !== 'connection' && name !== 'transfer-encoding') lines.push(`${name}: ${value}`)
  lines.push(`content-length: ${body.byteLength}`, 'connection: close')
  if (!socket.destroyed) socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]))
}

/**
 * The WebSocket transport of listenConversation, as @botpress/chat 1.x speaks it
 * (`listenConversation({ id, protocol: 'websocket' })`): `ws(s)://…/{webhookId}/conversations/{id}/listen?x-user-key=…`,
 * each text frame one signal as the JSON the SSE stream's `data:` carries (the same bytes: the stream
 * is the SSE stream, taken over; a persisted signal's frame has its SSE `id:` as its first property,
 * `id`, which `?since=` takes back to resume), and the text `ping` every SSE ping interval as the integration's
 * keep-alive. Everything before the upgrade is the SSE request's: a bad key is answered 401, a
 * non-participant 404, a stream over the caps 429, each with its error body and no upgrade; the
 * stream counts against SSE_STREAMS_PER_USER / _PER_ADDRESS and the subscription caps. A socket that
 * falls SEND_QUEUE_MAX_BYTES behind is closed with 1013; a stream that ends (the participant removed,
 * the conversation deleted) closes with 1000; a stopping server closes with 1001.
 */
export function listenWebSocket({ log, fetch, admitStream, queues }: ListenWebSocketOptions) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxClientFrame })

  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    // The stream ends with the connection, whenever that goes: before, during or after the upgrade.
    const abort = new AbortController()
    socket.once('close', () => abort.abort())
    socket.on('error', () => {})
    let response: Response
    try {
      response = await fetch(streamRequest(req, abort.signal), peerOf(req))
    } catch (error) {
      log.error({ err: error }, 'a WebSocket listen stream could not be opened')
      socket.destroy()
      return
    }
    if (response.status !== 200 || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return refuseUpgrade(socket, response)
    const admitted = admitStream(req, response)
    if (typeof admitted === 'object') return refuseUpgrade(socket, admitted)
    if (admitted) socket.once('close', admitted)
    if (socket.destroyed) {
      void response.body?.cancel().catch(() => {})
      admitted?.()
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      // As an SSE stream's socket (node-listener.ts): TCP keep-alive finds a peer gone without a word.
      req.socket.setKeepAlive(true)
      ws.on('error', () => {})
      ws.on('message', () => {})
      const queue = queues.open(webSocketOutlet(ws, socket))
      const close = takeOverEventStream(response, {
        write: (chunk) => {
          const heartbeat = heartbeatOf(chunk)
          if (heartbeat === 'ping') queue.send(keepAlive)
          else if (heartbeat === undefined) {
            const json = jsonOf(chunk)
            if (json) queue.send(json)
          }
        },
        end: () => ws.close(closing ? goingAway : streamEnded, closing ? 'server shutting down' : 'the stream has ended'),
      })
      if (!close) {
        void response.body?.cancel().catch(() => {})
        ws.close(internalError, 'the stream could not start')
        return
      }
      queue.onDrop(close)
      ws.once('close', () => {
        queue.close()
        close()
      })
    })
  }

  let closing = false
  return {
    upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void upgrade(req, socket, head),
    open: () => wss.clients.size,
    close: () =>
      new Promise<void>((resolve) => {
        closing = true
        for (const client of wss.clients) client.close(goingAway, 'server shutting down')
        wss.close(() => resolve())
      }),
  }
}
