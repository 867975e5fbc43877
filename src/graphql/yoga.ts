import type { GraphQLSchema } from 'graphql'
import { createYoga } from 'graphql-yoga'
import type { Logger } from 'pino'
import { type ContextDeps, createAdminContext, createChatContext, type GraphQLContext } from './context.ts'
import { createMaskError } from './errors.ts'
import { adminSchema, chatSchema } from './schema.ts'

/** What the app hands each GraphQL request besides the Request itself. */
export interface ServerContext {
  requestId: string
  webhookId?: string
}

const yogaFor = (
  schema: GraphQLSchema,
  graphqlEndpoint: string,
  log: Logger,
  headers: Record<string, string>,
  context: (init: ServerContext & { request: Request }) => Promise<GraphQLContext>,
) =>
  createYoga<ServerContext>({
    schema,
    graphqlEndpoint,
    context,
    logging: log,
    // The endpoint is a pattern (/:webhookId/graphql): GraphiQL must post to the concrete path it was opened on.
    graphiql: (request) => ({
      title: 'Confab',
      endpoint: new URL(request.url).pathname,
      headers: JSON.stringify(headers, null, 2),
    }),
    landingPage: false,
    maskedErrors: { maskError: createMaskError(log) },
  })

export function createChatYoga(deps: ContextDeps) {
  return yogaFor(chatSchema, '/:webhookId/graphql', deps.log, { 'x-user-key': '<user key>' }, ({ request, requestId, webhookId }) =>
    createChatContext(deps, { requestId, webhookId: webhookId ?? '', headers: request.headers }),
  )
}

export function createAdminYoga(deps: ContextDeps) {
  const headers = { authorization: 'Bearer <admin token>', 'x-workspace-id': '<workspace id>' }
  return yogaFor(adminSchema, '/v1/admin/graphql', deps.log, headers, ({ request, requestId }) =>
    createAdminContext(deps, { requestId, headers: request.headers }),
  )
}
