import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { BotHandler } from './bots/handler.ts'
import { builtInHandlers } from './bots/handlers.ts'
import { type BotRuntime, startBotRuntime } from './bots/runtime.ts'
import type { Db } from './db/client.ts'
import { createAdminContext, createChatContext } from './graphql/context.ts'
import { adminSchema, chatSchema } from './graphql/schema.ts'
import { createAdminYoga, createChatYoga } from './graphql/yoga.ts'
import { bodyLimits, withLimitedBody } from './http/body.ts'
import { decodePathSegment } from './http/path.ts'
import { errorResponse, HttpError, json } from './http/responses.ts'
import { defaultSseTiming, type SseTiming, SseStreams } from './http/sse.ts'
import { adminRoutes } from './rest/admin/routes.ts'
import { chatRoutes } from './rest/chat/routes.ts'
import { createRestHandler } from './rest/router.ts'
import { createSignalHub, type SignalHub } from './signals/hub.ts'

export interface AppOptions {
  db: Db
  log: Logger
  /** Bot handlers by name (bots.handler); the built-in echo bot by default. */
  handlers?: Record<string, BotHandler>
  botTimeoutMs?: number
  sseTiming?: SseTiming
}

export interface App {
  fetch: (request: Request) => Promise<Response>
  signals: SignalHub
  bots: BotRuntime
  streams: SseStreams
  /** Ends live streams and the bot runtime; the database stays open (its owner closes it). */
  close(): Promise<void>
}

const adminPrefix = '/v1/admin'

/** The whole HTTP surface as one fetch function, with the live parts it runs; listening is main.ts's business. */
export function createApp({
  db,
  log,
  handlers = builtInHandlers,
  botTimeoutMs,
  sseTiming = defaultSseTiming,
}: AppOptions): App {
  const signals = createSignalHub()
  const streams = new SseStreams(log, sseTiming)
  const bots = startBotRuntime({ db, log, signals, handlers, timeoutMs: botTimeoutMs })
  const deps = { db, log, signals }
  const chatYoga = createChatYoga(deps)
  const adminYoga = createAdminYoga(deps)
  const chatRest = createRestHandler({
    schema: chatSchema,
    routes: chatRoutes,
    bodyLimit: bodyLimits.chat,
    streams,
    log,
    context: ({ requestId, scope, headers }) =>
      createChatContext(deps, { requestId, webhookId: scope.webhookId ?? '', headers }),
  })
  const adminRest = createRestHandler({
    schema: adminSchema,
    routes: adminRoutes,
    bodyLimit: bodyLimits.admin,
    streams,
    log,
    context: ({ requestId, headers }) => createAdminContext(deps, { requestId, headers }),
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
      if (rest === '/graphql' || rest === '/graphql/') {
        return chatYoga.fetch(await withLimitedBody(request, bodyLimits.chat), { requestId, webhookId })
      }
      return chatRest(request, { path: rest, requestId, scope: { webhookId } })
    }
    return errorResponse(requestId, 404, 'ResourceNotFound', `no route for ${pathname}`)
  }

  return {
    signals,
    bots,
    streams,
    async fetch(request) {
      const requestId = randomUUID()
      try {
        return await route(request, requestId)
      } catch (error) {
        if (error instanceof HttpError) return errorResponse(requestId, error.status, error.type, error.message)
        log.error({ err: error, requestId }, 'unhandled error')
        return errorResponse(requestId, 500, 'Internal', 'an internal error occurred')
      }
    },
    async close() {
      streams.closeAll()
      await bots.stop()
    },
  }
}
