import { randomUUID } from 'node:crypto'
import type { Server } from 'node:http'
import { bodyLimits } from './http/body.ts'
import { type CorsOrigins, createCors } from './http/cors.ts'
import { fileDownloadTransport, fileUploadTransport } from './http/files.ts'
import { graphqlOverHttp } from './http/graphql.ts'
import { healthTransport, readinessTransport } from './http/health.ts'
import { type Replicable, serveMounts } from './http/mounts.ts'
import { inProcessPeer, type Peer } from './http/peer.ts'
import { publicUrls } from './http/public-origin.ts'
import { errorResponse, withHeaders } from './http/responses.ts'
import { attachGraphQLWebSocket } from './http/websocket.ts'
import { webChatTransport } from './http/webchat.ts'
import { type Wiring, type WiringOptions, wire } from './wiring.ts'

export interface AppOptions extends WiringOptions {
  /** Origins allowed to call cross-origin (CORS_ORIGINS); none by default. */
  corsOrigins?: CorsOrigins
  /** PUBLIC_URL: every URL handed out starts with it; from each request (see http/public-origin.ts) when unset. */
  publicUrl?: string
  /** TRUST_PROXY: the proxies whose forwarded headers are believed; none by default. */
  trustProxy?: readonly string[]
}

export interface App extends Pick<Wiring, 'signals' | 'bots' | 'streams'> {
  /** Serves a request; `peer` is the other end of its connection (none in-process). */
  fetch: (request: Request, peer?: Peer) => Promise<Response>
  /** Whether a read replica may serve a request (see Transport.replicable); `pathname` as in the URL. */
  replicable(method: string, pathname: string): Replicable
  /** Serves GraphQL over WebSocket on the HTTP server that serves `fetch`. */
  attach(server: Server): void
  /** Ends live streams and WebSockets, which would otherwise hold a closing server open. */
  endLiveConnections(): Promise<void>
  /** Ends live connections and stops the delivery worker; the database stays open (its owner closes it). */
  close(): Promise<void>
}

/** The whole HTTP surface as one fetch function, with the live parts it runs; listening is main.ts's business. */
export function createApp({ corsOrigins = [], publicUrl, trustProxy, ...options }: AppOptions): App {
  const parts = wire(options)
  const urls = publicUrls({ publicUrl, trustProxy })
  const { chatYoga, adminYoga, chatRest, adminRest, botApiRest, errors, signals, streams, bots } = parts
  const cors = createCors(corsOrigins)
  let draining = false

  // First match wins: administration before /{webhookId}/…, whose first segment could read "v1".
  const mounts = serveMounts(
    [
      { path: '/healthz', transport: healthTransport },
      { path: '/readyz', transport: readinessTransport({ store: parts.store, signalBus: parts.signalBus, draining: () => draining }) },
      { path: '/v1/admin/graphql', transport: graphqlOverHttp(adminYoga, bodyLimits.admin) },
      { path: '/v1/admin/*', transport: adminRest },
      { path: '/v1/chat/*', transport: botApiRest },
      { path: '/:webhookId/graphql', transport: graphqlOverHttp(chatYoga, bodyLimits.chat) },
      // The graphql-sse protocol reserves a stream with PUT and stops one with DELETE.
      { path: '/:webhookId/graphql/stream', transport: graphqlOverHttp(chatYoga, bodyLimits.chat, { methods: ['GET', 'POST', 'PUT', 'DELETE'], streams: true }) },
      { path: '/:webhookId/', transport: webChatTransport(parts.store) },
      { path: '/:webhookId/webchat.js', transport: webChatTransport(parts.store) },
      // A file's bytes are no JSON: the upload URL and the public URL of the Webchat API's files.
      { path: '/:webhookId/files/:fileId/upload', transport: fileUploadTransport(parts.store) },
      { path: '/:webhookId/files/:fileId/:signature/:name', transport: fileDownloadTransport(parts.store) },
      { path: '/:webhookId/*', transport: chatRest },
    ],
    errors,
    chatRest,
  )

  const sockets: { close(): Promise<void> }[] = []
  let ending: Promise<void> | undefined
  let closing: Promise<void> | undefined
  const endLiveConnections = () => {
    draining = true
    ending ??= (async () => {
      streams.closeAll()
      signals.closeListeners()
      await Promise.all(sockets.map((socket) => socket.close()))
    })()
    return ending
  }

  return {
    signals,
    bots,
    streams,
    attach(server) {
      sockets.push(attachGraphQLWebSocket(server, chatYoga, errors, urls))
    },
    replicable: mounts.replicable,
    async fetch(request, peer = inProcessPeer) {
      // Before anything else: every URL this request could be handed is made of its Host.
      const refusal = urls.refusal(request.headers, peer, request.url)
      if (refusal) return errorResponse(randomUUID(), { type: 'InvalidPayload', status: 400, message: refusal })
      const preflight = cors.preflight(request)
      if (preflight) return preflight
      const requestId = randomUUID()
      const response = await mounts.serve(request, requestId, peer, () => urls.baseOf(request.url, request.headers, peer))
      return withHeaders(response, { 'x-request-id': requestId, ...cors.responseHeaders(request) })
    },
    endLiveConnections,
    close() {
      closing ??= endLiveConnections().then(() => bots.stop())
      return closing
    },
  }
}
