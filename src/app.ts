import { randomUUID } from 'node:crypto'
import type { Server } from 'node:http'
import type { Logger } from 'pino'
import type { BotHandler } from './bots/handler.ts'
import { builtInHandlers } from './bots/handlers.ts'
import { type BotRuntime, startBotRuntime } from './bots/runtime.ts'
import type { Store } from './db/store.ts'
import { createAdminContext, createChatContext } from './graphql/context.ts'
import { createMaskError } from './graphql/errors.ts'
import { adminSchema, chatSchema } from './graphql/schema.ts'
import { attachGraphQLWebSocket } from './graphql/ws.ts'
import { createAdminYoga, createChatYoga } from './graphql/yoga.ts'
import { bodyLimits, withLimitedBody } from './http/body.ts'
import { decodePathSegment } from './http/path.ts'
import { type CorsOrigins, createCors } from './http/cors.ts'
import { errorResponse, HttpError, json, withHeaders } from './http/responses.ts'
import { defaultSseTiming, type SseTiming, SseStreams } from './http/sse.ts'
import { adminRoutes } from './rest/admin/routes.ts'
import { chatRoutes } from './rest/chat/routes.ts'
import { createRestHandler } from './rest/router.ts'
import { createSignalHub, type SignalHub } from './signals/hub.ts'
import { DomainError } from './domain/errors.ts'
import { findChatIntegration } from './domain/tenancy.ts'
import { serveWebChat } from './webchat/serve.ts'

export interface AppOptions {
  store: Store
  log: Logger
  /** Bot handlers by name (bots.handler); the built-in echo bot by default. */
  handlers?: Record<string, BotHandler>
  botTimeoutMs?: number
  /** Seconds before each delivery attempt (CONFAB_BOT_RETRY_SCHEDULE); the Standard Webhooks schedule by default. */
  botRetrySchedule?: readonly number[]
  /** The clock bot deliveries come due by (tests move it instead of waiting). */
  clock?: () => Date
  sseTiming?: SseTiming
  /** Origins allowed to call cross-origin (CORS_ORIGINS); none by default. */
  corsOrigins?: CorsOrigins
}

export interface App {
  fetch: (request: Request) => Promise<Response>
  signals: SignalHub
  bots: BotRuntime
  streams: SseStreams
  /** Serves GraphQL over WebSocket on the HTTP server that serves `fetch`. */
  attach(server: Server): void
  /** Ends live streams and WebSockets, which would otherwise hold a closing server open. */
  endLiveConnections(): Promise<void>
  /** Ends live connections and stops the bot runtime; the store stays open (its owner closes it). */
  close(): Promise<void>
}

const adminPrefix = '/v1/admin'

/** The whole HTTP surface as one fetch function, with the live parts it runs; listening is main.ts's business. */
export function createApp({
  store,
  log,
  handlers = builtInHandlers,
  botTimeoutMs,
  botRetrySchedule,
  clock,
  sseTiming = defaultSseTiming,
  corsOrigins = [],
}: AppOptions): App {
  const cors = createCors(corsOrigins)
  const signals = createSignalHub()
  const streams = new SseStreams(log, sseTiming)
  const bots = startBotRuntime({
    store,
    log,
    signals,
    handlers,
    timeoutMs: botTimeoutMs,
    retrySchedule: botRetrySchedule,
    clock,
  })
  const deps = { store, log, signals, bots }
  const chatYoga = createChatYoga(deps)
  const adminYoga = createAdminYoga(deps)
  const chatRest = createRestHandler({
    schema: chatSchema,
    routes: chatRoutes,
    bodyLimit: bodyLimits.chat,
    streams,
    log,
    context: ({ requestId, scope, headers }) =>
      createChatContext(deps, {
        requestId,
        webhookId: scope.webhookId ?? '',
        userKey: headers.get('x-user-key') ?? undefined,
      }),
  })
  const adminRest = createRestHandler({
    schema: adminSchema,
    routes: adminRoutes,
    bodyLimit: bodyLimits.admin,
    streams,
    log,
    context: ({ requestId, headers }) =>
      createAdminContext(deps, {
        requestId,
        authorization: headers.get('authorization') ?? undefined,
        workspaceId: headers.get('x-workspace-id') ?? undefined,
      }),
  })

  async function route(request: Request, requestId: string): Promise<Response> {
    const { pathname } = new URL(request.url)
    if (pathname === '/healthz') return json(200, { status: 'ok' })
    if (pathname === `${adminPrefix}/graphql`) {
      return adminYoga.fetch(await withLimitedBody(request, bodyLimits.admin), { requestId })
    }
    if (pathname.startsWith(`${adminPrefix}/`)) {
      return adminRest(request, { path: pathname.slice(adminPrefix.length), requestId })
    }
    const chat = /^\/([^/]+)(\/.*)$/.exec(pathname)
    if (chat) {
      const webhookId = decodePathSegment(chat[1] ?? '')
      const rest = chat[2] ?? '/'
      if (request.method === 'GET' && (rest === '/' || rest === '/webchat.js')) {
        await findChatIntegration(store, webhookId)
        const page = await serveWebChat(webhookId, rest)
        if (page) return page
      }
      if (rest === '/graphql' || rest.startsWith('/graphql/')) {
        return chatYoga.fetch(await withLimitedBody(request, bodyLimits.chat), { requestId, webhookId })
      }
      return chatRest(request, { path: rest, requestId, scope: { webhookId } })
    }
    return errorResponse(requestId, 404, 'ResourceNotFound', `no route for ${pathname}`)
  }

  const sockets: { close(): Promise<void> }[] = []
  let ending: Promise<void> | undefined
  let closing: Promise<void> | undefined
  const endLiveConnections = () => {
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
      sockets.push(attachGraphQLWebSocket(server, chatYoga, createMaskError(log)))
    },
    async fetch(request) {
      const preflight = cors.preflight(request)
      if (preflight) return preflight
      const requestId = randomUUID()
      let response: Response
      try {
        response = await route(request, requestId)
      } catch (error) {
        if (error instanceof DomainError) {
          response = errorResponse(requestId, error.status, error.type, error.message)
        } else if (error instanceof HttpError) {
          response = errorResponse(requestId, error.status, error.type, error.message)
        } else {
          log.error({ err: error, requestId }, 'unhandled error')
          response = errorResponse(requestId, 500, 'Internal', 'an internal error occurred')
        }
      }
      return withHeaders(response, { 'x-request-id': requestId, ...cors.responseHeaders(request) })
    },
    endLiveConnections,
    close() {
      closing ??= endLiveConnections().then(() => bots.stop())
      return closing
    },
  }
}
