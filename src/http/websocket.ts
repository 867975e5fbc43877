import type { IncomingMessage, Server } from 'node:http'
import { randomUUID } from 'node:crypto'
import type { ExecutionArgs, FormattedExecutionResult, GraphQLError } from 'graphql'
import type { Logger } from 'pino'
import { useServer } from 'graphql-ws/use/ws'
import { WebSocketServer } from 'ws'
import type { ErrorPath } from '../graphql/errors.ts'
import { withRequestId } from '../graphql/request-id.ts'
import type { createChatYoga } from '../graphql/yoga.ts'
import type { RateLimits } from '../limits/rate-limits.ts'
import { type Peer, peerOf } from './peer.ts'
import { rateLimited } from './rate-limited.ts'

type ChatYoga = ReturnType<typeof createChatYoga>

interface Enveloped {
  execute: (args: ExecutionArgs) => unknown
  subscribe: (args: ExecutionArgs) => unknown
}

const refusedConnection = 4403
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
 */
export function attachGraphQLWebSocket(
  server: Server,
  yoga: ChatYoga,
  errors: ErrorPath,
  { log, clientAddress, limits }: WebSocketOptions,
): { close(): Promise<void> } {
  const wss = new WebSocketServer({ noServer: true })
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
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request))
  }
  server.on('upgrade', onUpgrade)

  const envelop = (
    ctx: { extra: { request: IncomingMessage }; connectionParams?: Record<string, unknown> },
    params?: unknown,
    requestId = randomUUID(),
  ) =>
    yoga.getEnveloped({
      requestId,
      webhookId: webhookOf(ctx.extra.request),
      clientAddress: client(ctx.extra.request),
      connectionParams: ctx.connectionParams,
      params,
    })

  useServer(
    {
      execute: (args) => (args.rootValue as Enveloped).execute(args) as never,
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args) as never,
      onConnect: async (ctx) => {
        const requestId = randomUUID()
        const address = client(ctx.extra.request)
        const line = { route: '/:webhookId/graphql (WebSocket)', requestId, client: address, credential: ctx.connectionParams?.['x-user-key'] ? 'user-key' : 'none' }
        try {
          const blocked = limits?.blockedAddress(address)
          if (blocked) throw rateLimited(blocked)
          await envelop(ctx, undefined, requestId).contextFactory()
          const opened = performance.now()
          log.info({ ...line, stream: 'open' }, 'WebSocket opened')
          ctx.extra.socket.once('close', (code) => log.info({ ...line, stream: 'closed', code, openMs: Math.round(performance.now() - opened) }, 'WebSocket closed'))
          return true
        } catch (error) {
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
      onNext: (_ctx, _id, _payload, args, result) =>
        withRequestId(result, (args.contextValue as { requestId: string }).requestId, errors) as FormattedExecutionResult,
    },
    wss,
  )

  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.off('upgrade', onUpgrade)
        for (const client of wss.clients) client.close(1001, 'server shutting down')
        wss.close(() => resolve())
      }),
  }
}
