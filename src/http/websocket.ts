import type { IncomingMessage, Server } from 'node:http'
import { randomUUID } from 'node:crypto'
import type { TLSSocket } from 'node:tls'
import type { ExecutionArgs, FormattedExecutionResult, GraphQLError } from 'graphql'
import { useServer } from 'graphql-ws/use/ws'
import { WebSocketServer } from 'ws'
import type { ErrorPath } from '../graphql/errors.ts'
import { withRequestId } from '../graphql/request-id.ts'
import type { createChatYoga } from '../graphql/yoga.ts'
import { peerOf } from './peer.ts'
import { nodeHeaders, type PublicUrls } from './public-origin.ts'
import { errorId } from './responses.ts'

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
  urls: PublicUrls,
): { close(): Promise<void> } {
  const wss = new WebSocketServer({ noServer: true })

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
      publicUrl: () => publicUrlOf(ctx.extra.request),
      connectionParams: ctx.connectionParams,
      params,
    })

  /** The upgrade request's public origin, as http/public-origin.ts tells it for any request. */
  const publicUrlOf = (request: IncomingMessage) => {
    const own = `${(request.socket as TLSSocket).encrypted ? 'https' : 'http'}://${request.headers.host || 'localhost'}/`
    return urls.baseOf(own, nodeHeaders(request.headers), peerOf(request))
  }

  useServer(
    {
      execute: (args) => (args.rootValue as Enveloped).execute(args) as never,
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args) as never,
      onConnect: async (ctx) => {
        const requestId = randomUUID()
        try {
          await envelop(ctx, undefined, requestId).contextFactory()
          return true
        } catch (error) {
          // graphql-ws's own code for a refused connection, with the failure's words as the reason.
          const { message } = errors.describe(error, requestId)
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
