import { randomUUID } from 'node:crypto'
import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { createAccessLog } from './http/access-log.ts'
import { agentConsoleTransport } from './http/agent-console.ts'
import { bodyLimits } from './http/body.ts'
import { apiPageTransport, openApiTransport } from './http/openapi.ts'
import { type CorsOrigins, createCors } from './http/cors.ts'
import { fileDownloadTransport, fileUploadTransport } from './http/files.ts'
import { frontDoorTransport, toWebChatTransport } from './http/front-door.ts'
import { graphiqlPages } from './http/graphiql.ts'
import { graphqlOverHttp } from './http/graphql.ts'
import { healthTransport, readinessTransport } from './http/health.ts'
import { type MountGuard, type Replicable, type Routed, serveMounts } from './http/mounts.ts'
import type { ReplicaAdmission } from './http/node-listener.ts'
import { inProcessPeer, type Peer, peerOf } from './http/peer.ts'
import { countedPerAddress, rateLimited } from './http/rate-limited.ts'
import { publicUrls } from './http/public-origin.ts'
import { labelResponse } from './http/request-labels.ts'
import { errorResponse, withHeaders } from './http/responses.ts'
import { trustedProxies } from './http/trusted-proxy.ts'
import { isListenUpgrade, listenWebSocket } from './http/listen-websocket.ts'
import { attachGraphQLWebSocket } from './http/websocket.ts'
import { webChatTransport } from './http/webchat.ts'
import { addressKey } from './limits/address-key.ts'
import { Slots } from './limits/slots.ts'
import { type Wiring, type WiringOptions, wire } from './wiring.ts'

export interface AppOptions extends WiringOptions {
  /** Origins allowed to call cross-origin (CORS_ORIGINS); none by default. */
  corsOrigins?: CorsOrigins
  /** PUBLIC_URL: every URL handed out starts with it; from each request (see http/public-origin.ts) when unset. */
  publicUrl?: string
  /** The proxies whose X-Forwarded-For names the client (TRUST_PROXY); none by default. */
  trustProxy?: readonly string[]
  /** How often a GraphQL WebSocket is pinged (a socket that misses its pong is terminated); 12 s by default, 0: never. */
  webSocketKeepAliveMs?: number
  /** GRAPHIQL: the GraphiQL page on the GraphQL endpoints (http/graphiql.ts); on by default. */
  graphiql?: boolean
}

export interface App extends Pick<Wiring, 'signals' | 'bots' | 'webhooks' | 'streams' | 'sendQueues' | 'renderings' | 'retention'> {
  /** Serves a request; `peer` is the other end of its connection (none in-process). */
  fetch: (request: Request, peer?: Peer) => Promise<Response>
  /** Whether a read replica may serve a request (see Transport.replicable); `pathname` as in the URL. */
  replicable(method: string, pathname: string): Replicable
  /** What the main thread checks of a request before a read replica serves it (rate limits). */
  replicaAdmission: ReplicaAdmission | undefined
  /** Serves GraphQL over WebSocket, and listenConversation's WebSocket transport, on the HTTP server that serves `fetch`. */
  attach(server: Server): void
  /**
   * Counts an event stream of the HTTP server against the caps per user (the verified user its key
   * names) and per client address (SSE_STREAMS_PER_USER, SSE_STREAMS_PER_ADDRESS): its release, or a
   * 429 refusal to send instead. Streams made in-process (fetch called directly) have no connection
   * and are not counted.
   */
  admitStream(req: IncomingMessage, response: Response): (() => void) | Response | undefined
  /** The WebSockets open, GraphQL's and /listen's (metrics). */
  openSockets(): number
  /** The instance is stopping: /readyz answers 503 from now on, while every other request is still served. */
  drain(): void
  /**
   * The listener is closing: from now on every request but /healthz and /readyz (which may still come on
   * a connection kept alive) is answered 503 with Retry-After, and its connection closed.
   */
  refuseRequests(): void
  /** Ends live streams and WebSockets, which would otherwise hold a closing server open. */
  endLiveConnections(): Promise<void>
  /** Ends live connections and stops the delivery worker and retention; the database stays open (its owner closes it). */
  close(): Promise<void>
}

/** Whether a request's URL is /healthz or /readyz, the doors a stopping instance still answers. */
const isHealthPath = (url: string): boolean => {
  const { pathname } = new URL(url)
  return pathname === '/healthz' || pathname === '/readyz'
}

/** The whole HTTP surface as one fetch function, with the live parts it runs; listening is main.ts's business. */
export function createApp({ corsOrigins = [], publicUrl, trustProxy = [], webSocketKeepAliveMs, graphiql = true, ...options }: AppOptions): App {
  const parts = wire(options)
  const urls = publicUrls({ publicUrl, trustProxy })
  const { caps } = parts
  const proxies = trustedProxies(trustProxy)
  // proxy-addr reads X-Forwarded-For only: the header's value is all the client address needs of a request.
  const clientAddress = (req: IncomingMessage) =>
    proxies.clientAddress(
      peerOf(req),
      new Headers(typeof req.headers['x-forwarded-for'] === 'string' ? { 'x-forwarded-for': req.headers['x-forwarded-for'] } : {}),
    )
  const openStreams = new Slots('event streams', [
    { cap: caps.streamsPerUser, per: 'for this user (SSE_STREAMS_PER_USER)' },
    { cap: caps.streamsPerAddress, per: 'from this address (SSE_STREAMS_PER_ADDRESS)' },
  ])
  /** The verified caller of each response a transport told one of, until its stream is admitted. */
  const callers = new WeakMap<Response, string>()
  const {
    chatYoga,
    adminYoga,
    chatRest,
    adminRest,
    botApiRest,
    agentYoga,
    agentRest,
    errors,
    signals,
    streams,
    sendQueues,
    renderings,
    bots,
    webhooks,
    limits,
    retention,
  } = parts
  const cors = createCors(corsOrigins, options.log)
  const accessLog = createAccessLog(options.log)
  const countsFailures = limits?.has('failedAuth') ?? false
  /**
   * Failed authentications count per client address: the one over the limit is answered 429 rather
   * than 401, and so is every request from that address until its window ends.
   */
  const failedAuthentications: MountGuard | undefined =
    countsFailures && limits
      ? {
          before({ clientAddress }, kind) {
            // A load balancer's health checks come from its own address, which a proxy without
            // TRUST_PROXY shares with every client: a blocked address must never fail them.
            if (kind === 'health') return
            const blocked = limits.blockedAddress(clientAddress)
            if (blocked) throw rateLimited(blocked)
          },
          async after({ clientAddress }, response) {
            if (response.status !== 401) return
            const refusal = await limits.failedAuthentication(clientAddress)
            if (refusal) throw rateLimited(refusal)
          },
        }
      : undefined
  let draining = false
  let refusing = false
  const pages = graphiql ? graphiqlPages(parts.store, limits) : undefined
  const graphiqlOf = (scope: 'chat' | 'admin') => pages && { pages, scope }

  // First match wins: administration before /{webhookId}/…, whose first segment could read "v1".
  const mounts = serveMounts(
    [
      { path: '/', kind: 'front-door', transport: countedPerAddress(frontDoorTransport, limits, 'anonymous') },
      { path: '/healthz', kind: 'health', transport: healthTransport },
      { path: '/openapi.json', kind: 'openapi', transport: countedPerAddress(openApiTransport, limits, 'anonymous') },
      { path: '/docs/api', kind: 'openapi', transport: countedPerAddress(apiPageTransport, limits, 'anonymous') },
      { path: '/readyz', kind: 'health', transport: readinessTransport({ store: parts.store, signalBus: parts.signalBus, draining: () => draining }) },
      {
        path: '/v1/admin/graphql',
        kind: 'admin-graphql',
        transport: graphqlOverHttp(adminYoga, bodyLimits.admin, { replicated: true, graphiql: graphiqlOf('admin') }),
      },
      { path: '/v1/admin/*', kind: 'admin-rest', transport: adminRest },
      { path: '/v1/chat/*', kind: 'bot-api', transport: botApiRest },
      // Before the agent API's mount, which would take them for routes of its own.
      { path: '/v1/agent/console', kind: 'agent-console', transport: countedPerAddress(agentConsoleTransport('page'), limits, 'anonymous') },
      { path: '/v1/agent/console.js', kind: 'agent-console', transport: countedPerAddress(agentConsoleTransport('script'), limits, 'anonymous') },
      { path: '/v1/agent/graphql', kind: 'agent-graphql', transport: graphqlOverHttp(agentYoga, bodyLimits.chat) },
      { path: '/v1/agent/*', kind: 'agent-rest', transport: agentRest },
      {
        path: '/:webhookId/graphql',
        kind: 'graphql',
        transport: graphqlOverHttp(chatYoga, bodyLimits.chat, { replicated: true, graphiql: graphiqlOf('chat') }),
      },
      // The graphql-sse protocol reserves a stream with PUT and stops one with DELETE.
      {
        path: '/:webhookId/graphql/stream',
        kind: 'graphql-sse',
        transport: graphqlOverHttp(chatYoga, bodyLimits.chat, { methods: ['GET', 'POST', 'PUT', 'DELETE'], streams: true }),
      },
      // The doors that need no key and run no GraphQL operation count per client address here.
      { path: '/:webhookId/', kind: 'webchat', transport: countedPerAddress(webChatTransport(parts.store), limits, 'anonymous') },
      { path: '/:webhookId/webchat.js', kind: 'webchat', transport: countedPerAddress(webChatTransport(parts.store), limits, 'anonymous') },
      // After the page's own mount: a trailing slash is otherwise the same address.
      { path: '/:webhookId', kind: 'webchat', transport: countedPerAddress(toWebChatTransport(parts.store), limits, 'anonymous') },
      // A file's bytes are no JSON: the upload URL and the public URL of the Webchat API's files.
      { path: '/:webhookId/files/:fileId/upload', kind: 'files', transport: countedPerAddress(fileUploadTransport(parts.store), limits, 'uploads') },
      { path: '/:webhookId/files/:fileId/:signature/:name', kind: 'files', transport: fileDownloadTransport(parts.store) },
      { path: '/:webhookId/*', kind: 'rest', transport: chatRest },
    ],
    errors,
    chatRest,
    failedAuthentications,
  )

  const sockets: { close(): Promise<void>; open(): number }[] = []
  let ending: Promise<void> | undefined
  let closing: Promise<void> | undefined
  const endLiveConnections = () => {
    draining = true
    ending ??= (async () => {
      // Sockets first: one whose stream ends now is told the server is going away (1001), not that its stream ended.
      const closed = sockets.map((socket) => socket.close())
      streams.closeAll()
      signals.closeListeners()
      await Promise.all(closed)
    })()
    return ending
  }

  const app: App = {
    signals,
    bots,
    webhooks,
    retention,
    streams,
    sendQueues,
    renderings,
    attach(server) {
      const graphqlSockets = attachGraphQLWebSocket(server, chatYoga, errors, {
        log: options.log,
        urls,
        clientAddress: proxies.clientAddress,
        limits,
        queues: sendQueues,
        renderings,
        keepAliveMs: webSocketKeepAliveMs,
        caps: {
          maxPayload: bodyLimits.chat,
          subscriptionsPerSocket: caps.subscriptionsPerSocket,
          socketsPerUser: caps.socketsPerUser,
          socketsPerAddress: caps.socketsPerAddress,
        },
        routed: true,
      })
      const listenSockets = listenWebSocket({ log: options.log, fetch: app.fetch, admitStream: app.admitStream, queues: sendQueues })
      // Upgrades are routed by path: /{webhookId}/conversations/{id}/listen is listenConversation's, any other GraphQL's (which refuses what is not /graphql).
      const upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) =>
        isListenUpgrade(request) ? listenSockets.upgrade(request, socket, head) : graphqlSockets.upgrade(request, socket, head)
      server.on('upgrade', upgrade)
      sockets.push(graphqlSockets, {
        open: listenSockets.open,
        close: () => {
          server.off('upgrade', upgrade)
          return listenSockets.close()
        },
      })
    },
    admitStream(req, response) {
      if (!openStreams.enabled) return undefined
      try {
        return openStreams.take([callers.get(response), addressKey(clientAddress(req))])
      } catch (error) {
        void response.body?.cancel().catch(() => {})
        const requestId = response.headers.get('x-request-id') ?? randomUUID()
        const request = new Request(new URL(req.url ?? '/', 'http://confab'), { headers: { accept: req.headers.accept ?? '' } })
        const refusal = mounts.refuse(request, errors.describe(error, requestId), requestId)
        return withHeaders(refusal, { 'x-request-id': requestId, ...cors.responseHeaders(request) })
      }
    },
    replicable: mounts.replicable,
    replicaAdmission: limits && {
      // A read with a user key is counted by the replica that serves it (`userReads`, wiring.ts): any other is counted here.
      admits: (peer, headers) => headers.has('x-user-key') && !limits.blockedAddress(proxies.clientAddress(peer, headers)),
      answered: (peer, headers, status) => {
        if (status === 401 && countsFailures) void limits.failedAuthentication(proxies.clientAddress(peer, headers))
      },
    },
    async fetch(request, peer = inProcessPeer) {
      const started = performance.now()
      const requestId = randomUUID()
      const clientAddress = proxies.clientAddress(peer, request.headers)
      // Before anything else: every URL this request could be handed is made of its Host.
      if (refusing && !isHealthPath(request.url)) {
        const refused = errorResponse(requestId, {
          type: 'Unavailable',
          status: 503,
          message: 'this instance is stopping: retry, and another instance (or this one, restarted) will answer',
          headers: { 'retry-after': '1', connection: 'close' },
        })
        void accessLog(request, refused, { requestId, clientAddress, route: '(stopping)', started })
        labelResponse(refused, { transport: 'none', operation: '(stopping)' })
        return refused
      }
      const refusal = urls.refusal(request.headers, peer, request.url)
      if (refusal) {
        const refused = errorResponse(requestId, { type: 'InvalidPayload', status: 400, message: refusal })
        void accessLog(request, refused, { requestId, clientAddress, route: '(invalid host)', started })
        labelResponse(refused, { transport: 'none', operation: '(invalid host)' })
        return refused
      }
      const preflight = cors.preflight(request)
      if (preflight) {
        void accessLog(request, preflight, { requestId, clientAddress, route: '(preflight)', started })
        labelResponse(preflight, { transport: 'cors', operation: '(preflight)' })
        return preflight
      }
      const routed: Routed = { route: '(no route)' }
      const response = await mounts.serve(request, requestId, peer, clientAddress, () => urls.baseOf(request.url, request.headers, peer), routed)
      // nosniff: no browser takes an answer (a JSON body, a file) for another type than it says it is.
      withHeaders(response, { 'x-request-id': requestId, 'x-content-type-options': 'nosniff', ...cors.responseHeaders(request) })
      // Stopping: each connection closes after its answer, so that none is left idle for the listener's
      // close to cut while its client sends on it (a reset, where a new connection is refused cleanly).
      if (draining) withHeaders(response, { connection: 'close' })
      if (routed.caller !== undefined) callers.set(response, routed.caller)
      void accessLog(request, response, { requestId, clientAddress, route: routed.route, started })
      labelResponse(response, { transport: routed.kind ?? 'none', operation: routed.operation ?? routed.route, route: routed.route })
      return response
    },
    openSockets: () => sockets.reduce((open, socket) => open + socket.open(), 0),
    drain() {
      draining = true
    },
    refuseRequests() {
      draining = true
      refusing = true
    },
    endLiveConnections,
    close() {
      closing ??= endLiveConnections()
        .then(() => Promise.all([bots.stop(), webhooks.stop(), retention.stop()]))
        .then(() => undefined)
      return closing
    },
  }
  return app
}
