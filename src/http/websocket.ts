import type { IncomingMessage, Server } from 'node:http'
import { randomUUID } from 'node:crypto'
import type { TLSSocket } from 'node:tls'
import type { ExecutionArgs, FormattedExecutionResult, GraphQLError } from 'graphql'
import type { Logger } from 'pino'
import { WebSocketServer } from 'ws'
import { DomainError } from '../domain/errors.ts'
import { countedCaller, type GraphQLContext } from '../graphql/context.ts'
import type { ErrorPath } from '../graphql/errors.ts'
import { withRequestId } from '../graphql/request-id.ts'
import type { SignalRenderings } from '../graphql/shared-rendering.ts'
import type { createChatYoga } from '../graphql/yoga.ts'
import { addressKey } from '../limits/address-key.ts'
import type { RateLimits } from '../limits/rate-limits.ts'
import { Slots } from '../limits/slots.ts'
import { type Peer, peerOf } from './peer.ts'
import { nodeHeaders, type PublicUrls } from './public-origin.ts'
import { rateLimited } from './rate-limited.ts'
import { errorId } from './responses.ts'
import type { SendQueues } from './send-queue.ts'
import { sendNext, serveGraphQLWs } from './ws-sockets.ts'

type ChatYoga = ReturnType<typeof createChatYoga>

interface Enveloped {
  execute: (args: ExecutionArgs) => unknown
  subscribe: (args: ExecutionArgs) => unknown
}

const refusedConnection = 4403
/** graphql-ws's "too many" close code (its own use: a second connection_init), for a socket over a cap. */
export const tooManySockets = 4429

/** What bounds a GraphQL WebSocket (docs/reference/limits.md); a cap of 0 is none. */
export interface WebSocketCaps {
  /** The largest frame (the chat's body limit): a larger one closes the socket with 1009, unread. */
  maxPayload: number
  subscriptionsPerSocket: number
  /** Counted per verified user (the user its key names), whichever key or encoding of one opened it. */
  socketsPerUser: number
  socketsPerAddress: number
}
// A close frame's reason is at most 123 bytes of UTF-8.
const closeReason = (message: string): string => {
  let reason = message
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1)
  return reason
}

const webhookOf = (request: IncomingMessage): string | undefined => {
  const match = /^\/([^/?]+)\/graphql\/?(?:\?|$)/.exec(request.url ?? '')
  if (!match?.[1]) return undefined
  try {
    return decodeURIComponent(match[1])
  } catch {
    return undefined
  }
}

export interface WebSocketOptions {
  log: Logger
  /** The client's address of a connection (trusted-proxy.ts). */
  clientAddress: (peer: Peer, headers: Headers) => string
  /** Failed authentications count per client address, as over HTTP; operations count in the yoga plugin. */
  limits?: RateLimits
  caps: WebSocketCaps
  /** The public origin of a connection, and whether its Host is one (http/public-origin.ts). */
  urls: PublicUrls
  /** What every socket sends through (SEND_QUEUE_MAX_BYTES). */
  queues: SendQueues
  /** Where a subscription's results were rendered and are encoded once per shape. */
  renderings: SignalRenderings
  /** How often each socket is pinged (ws-sockets.ts); graphql-ws' 12 s by default. */
  keepAliveMs?: number
  /** Whether the caller hands this one its upgrades (`upgrade`) rather than it listening to the server's. */
  routed?: boolean
}

/** The connection's client address, from its socket and (through a trusted proxy) its X-Forwarded-For. */
const clientOf = (request: IncomingMessage, clientAddress: WebSocketOptions['clientAddress']) => {
  const forwarded = request.headers['x-forwarded-for']
  const headers = new Headers(forwarded === undefined ? undefined : { 'x-forwarded-for': String(forwarded) })
  return clientAddress(peerOf(request), headers)
}

/**
 * GraphQL over WebSocket (the graphql-ws protocol) on /{webhookId}/graphql of the HTTP server, run
 * through the same yoga instance, so auth, limits and error masking are those of HTTP. The user key
 * travels in the connection parameters (`{"x-user-key": …}`), as browsers cannot set headers on a
 * WebSocket; a connection whose key or webhook id is refused is closed with 4403 Forbidden.
 * Bounded (docs/reference/limits.md): a frame over `maxPayload` closes the socket with 1009 unread; a socket over
 * the caps per user or client address is closed with 4429; an operation over the cap per socket
 * is refused with an error message for it (RateLimited), the socket and its other operations staying;
 * a socket that falls SEND_QUEUE_MAX_BYTES behind is closed with 1013 (send-queue.ts).
 */
export function attachGraphQLWebSocket(
  server: Server,
  yoga: ChatYoga,
  errors: ErrorPath,
  { log, clientAddress, limits, caps, urls, queues, renderings, keepAliveMs, routed = false }: WebSocketOptions,
): { close(): Promise<void>; open(): number; upgrade(request: IncomingMessage, socket: import('node:stream').Duplex, head: Buffer): void } {
  // ws closes a socket whose frame (or message) is over maxPayload with 1009 before handing it on.
  const wss = new WebSocketServer({ noServer: true, maxPayload: caps.maxPayload })
  const sockets = new Slots('GraphQL WebSockets', [
    { cap: caps.socketsPerUser, per: 'for this user (WS_SOCKETS_PER_USER)' },
    { cap: caps.socketsPerAddress, per: 'from this address (WS_SOCKETS_PER_ADDRESS)' },
  ])
  const clients = new WeakMap<IncomingMessage, string>()
  const client = (request: IncomingMessage) => {
    let address = clients.get(request)
    if (address === undefined) clients.set(request, (address = clientOf(request, clientAddress)))
    return address
  }

  const onUpgrade = (request: IncomingMessage, socket: import('node:stream').Duplex, head: Buffer) => {
    if (webhookOf(request) === undefined) {
      socket.destroy()
      return
    }
    const refusal = urls.refusal(nodeHeaders(request.headers), peerOf(request))
    if (refusal) {
      const body = JSON.stringify({ id: errorId(randomUUID()), code: 400, type: 'InvalidPayload', message: refusal })
      socket.end(`HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`)
      return
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      wss.emit('connection', ws, request)
      // A socket's errors are its client's protocol faults (a frame over maxPayload: 1009), for which
      // ws has already closed it with the right code; graphql-ws would print each one to the console.
      ws.removeAllListeners('error')
      ws.on('error', () => {})
    })
  }
  // Registered by whoever routes the server's upgrades by path (app.ts), or here when no one does.
  if (!routed) server.on('upgrade', onUpgrade)

  const envelop = (ctx: { extra: { request: IncomingMessage }; connectionParams?: Record<string, unknown> }, params?: unknown, requestId = randomUUID()) =>
    yoga.getEnveloped({
      requestId,
      webhookId: webhookOf(ctx.extra.request),
      clientAddress: client(ctx.extra.request),
      publicUrl: () => publicUrlOf(ctx.extra.request),
      connectionParams: ctx.connectionParams,
      params,
    })

  /** The upgrade request's public origin, as http/public-origin.ts tells it for any request. */
  const publicUrlOf = (request: IncomingMessage) => {
    const own = `${(request.socket as TLSSocket).encrypted ? 'https' : 'http'}://${request.headers.host || 'localhost'}/`
    return urls.baseOf(own, nodeHeaders(request.headers), peerOf(request))
  }

  serveGraphQLWs(
    wss,
    {
      execute: (args) => (args.rootValue as Enveloped).execute(args) as never,
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args) as never,
      onConnect: async (ctx) => {
        const requestId = randomUUID()
        const address = client(ctx.extra.request)
        const line = {
          route: '/:webhookId/graphql (WebSocket)',
          requestId,
          client: address,
          credential: ctx.connectionParams?.['x-user-key'] ? 'user-key' : 'none',
        }
        try {
          const blocked = limits?.blockedAddress(address)
          if (blocked) throw rateLimited(blocked)
          const context = (await envelop(ctx, undefined, requestId).contextFactory()) as unknown as GraphQLContext
          // Counted once the key verified, by the user it names: a socket over a cap is closed with 4429, its reason saying which.
          const release = sockets.take([countedCaller(context), addressKey(address)])
          // A client that left while its key was checked has closed already: its slot goes at once.
          if (ctx.extra.socket.readyState === ctx.extra.socket.CLOSED) release()
          else ctx.extra.socket.once('close', release)
          const opened = performance.now()
          log.info({ ...line, stream: 'open' }, 'WebSocket opened')
          ctx.extra.socket.once('close', (code) =>
            log.info({ ...line, stream: 'closed', code, openMs: Math.round(performance.now() - opened) }, 'WebSocket closed'),
          )
          return true
        } catch (error) {
          if (error instanceof DomainError && error.type === 'RateLimited') {
            ctx.extra.socket.close(tooManySockets, closeReason(error.message))
            return false
          }
          // graphql-ws's own code for a refused connection, with the failure's words as the reason.
          let failure = errors.describe(error, requestId)
          // As over HTTP: the failed authentication over the limit is refused as rate limited.
          const over = failure.status === 401 && limits?.has('failedAuth') ? await limits.failedAuthentication(address) : undefined
          if (over) failure = errors.describe(rateLimited(over), requestId)
          const { message, status } = failure
          log.warn({ ...line, status, reason: message }, 'WebSocket refused')
          ctx.extra.socket.close(refusedConnection, closeReason(message))
          return false
        }
      },
      // A refused operation answers that operation only: the socket and its other subscriptions stay.
      onSubscribe: async (ctx, _id, params) => {
        const requestId = randomUUID()
        const { schema, execute, subscribe, contextFactory, parse, validate } = envelop(ctx, params, requestId)
        const refuse = (refusals: readonly unknown[]) =>
          withRequestId({ errors: refusals.map((error) => errors.mask(error)) }, requestId, errors).errors as GraphQLError[]
        // graphql-ws has already entered this one among the socket's operations.
        const cap = caps.subscriptionsPerSocket
        if (cap > 0 && Object.keys(ctx.subscriptions).length > cap) {
          return refuse([
            new DomainError('RateLimited', `too many operations on this WebSocket: ${cap} are under way (WS_SUBSCRIPTIONS_PER_SOCKET); complete one first`),
          ])
        }
        try {
          const document = parse(params.query)
          const errors = validate(schema, document)
          if (errors.length > 0) return refuse(errors)
          return {
            schema,
            document,
            operationName: params.operationName,
            variableValues: params.variables,
            contextValue: await contextFactory(),
            rootValue: { execute, subscribe },
          }
        } catch (error) {
          return refuse([error])
        }
      },
      // A result without errors goes as the bytes every subscriber of its shape shares.
      onNext: (ctx, id, _payload, args, result) => {
        if (result.errors) return withRequestId(result, (args.contextValue as { requestId: string }).requestId, errors) as FormattedExecutionResult
        return sendNext(ctx.extra, id, renderings.json(result))
      },
    },
    queues,
    keepAliveMs,
  )

  return {
    upgrade: onUpgrade,
    open: () => wss.clients.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.off('upgrade', onUpgrade)
        for (const client of wss.clients) client.close(1001, 'server shutting down')
        wss.close(() => resolve())
      }),
  }
}
