import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { Db } from './db/client.ts'
import { createAdminContext, createChatContext } from './graphql/context.ts'
import { adminSchema, chatSchema } from './graphql/schema.ts'
import { createAdminYoga, createChatYoga } from './graphql/yoga.ts'
import { bodyLimits, withLimitedBody } from './http/body.ts'
import { errorResponse, HttpError, json } from './http/responses.ts'
import { adminRoutes } from './rest/admin/routes.ts'
import { chatRoutes } from './rest/chat/routes.ts'
import { createRestHandler } from './rest/router.ts'

export interface App {
  fetch: (request: Request) => Promise<Response>
}

const adminPrefix = '/v1/admin'

/** The whole HTTP surface as one fetch function; listening is main.ts's business. */
export function createApp({ db, log }: { db: Db; log: Logger }): App {
  const deps = { db, log }
  const chatYoga = createChatYoga(deps)
  const adminYoga = createAdminYoga(deps)
  const chatRest = createRestHandler({
    schema: chatSchema,
    routes: chatRoutes,
    bodyLimit: bodyLimits.chat,
    log,
    context: ({ requestId, scope, headers }) =>
      createChatContext(deps, { requestId, webhookId: scope.webhookId ?? '', headers }),
  })
  const adminRest = createRestHandler({
    schema: adminSchema,
    routes: adminRoutes,
    bodyLimit: bodyLimits.admin,
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
      const webhookId = decodeURIComponent(chat[1] ?? '')
      const rest = chat[2] ?? '/'
      if (rest === '/graphql' || rest === '/graphql/') {
        return chatYoga.fetch(await withLimitedBody(request, bodyLimits.chat), { requestId, webhookId })
      }
      return chatRest(request, { path: rest, requestId, scope: { webhookId } })
    }
    return errorResponse(requestId, 404, 'ResourceNotFound', `no route for ${pathname}`)
  }

  return {
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
  }
}
