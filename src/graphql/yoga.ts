import type { GraphQLSchema } from 'graphql'
import { createYoga } from 'graphql-yoga'
import type { Logger } from 'pino'
import { armorPlugins } from './armor.ts'
import { type ContextDeps, createAdminContext, createChatContext, type GraphQLContext } from './context.ts'
import { createMaskError } from './errors.ts'
import { useGraphQLSSE } from './graphql-sse.ts'
import { useRequestId } from './request-id.ts'
import { adminSchema, chatSchema } from './schema.ts'

/** What the app hands each GraphQL request besides the Request itself. */
export interface ServerContext {
  requestId: string
  webhookId?: string
}

/** What yoga passes the context factory: the request, or for a WebSocket its connection parameters. */
interface ContextInit extends ServerContext {
  request: Request
  connectionParams?: Record<string, unknown>
}

const yogaFor = (
  schema: GraphQLSchema,
  graphqlEndpoint: string,
  log: Logger,
  headers: Record<string, string>,
  context: (init: ContextInit) => Promise<GraphQLContext>,
  maskError = createMaskError(log),
) =>
  createYoga<ServerContext>({
    schema,
    graphqlEndpoint,
    context,
    logging: log,
    // The app answers CORS for REST and GraphQL alike (CORS_ORIGINS); yoga's own would allow any origin.
    cors: false,
    // The endpoint is a pattern (/:webhookId/graphql): GraphiQL must post to the concrete path it was opened on.
    graphiql: (request) => ({
      title: 'Confab',
      endpoint: new URL(request.url).pathname,
      headers: JSON.stringify(headers, null, 2),
    }),
    landingPage: false,
    maskedErrors: { maskError },
    plugins: [...armorPlugins(), useGraphQLSSE(maskError), useRequestId()],
  })

/** A header of the request, or the same-named connection parameter of a WebSocket. */
const credential = ({ request, connectionParams }: ContextInit, name: string): string | undefined => {
  const fromParams = connectionParams?.[name]
  if (typeof fromParams === 'string') return fromParams
  return request?.headers.get(name) ?? undefined
}

export function createChatYoga(deps: ContextDeps) {
  return yogaFor(chatSchema, '/:webhookId/graphql', deps.log, { 'x-user-key': '<user key>' }, (init) =>
    createChatContext(deps, {
      requestId: init.requestId,
      webhookId: init.webhookId ?? '',
      userKey: credential(init, 'x-user-key'),
    }),
  )
}

export function createAdminYoga(deps: ContextDeps) {
  const headers = { authorization: 'Bearer <admin token>', 'x-workspace-id': '<workspace id>' }
  return yogaFor(adminSchema, '/v1/admin/graphql', deps.log, headers, (init) =>
    createAdminContext(deps, {
      requestId: init.requestId,
      authorization: credential(init, 'authorization'),
      workspaceId: credential(init, 'x-workspace-id'),
      baseUrl: new URL(init.request.url).origin,
    }),
  )
}
