import type { GraphQLSchema } from 'graphql'
import { agentSchema } from '../graphql/agent-schema.ts'
import { botApiSchema } from '../graphql/bot-api-schema.ts'
import { adminSchema, chatSchema } from '../graphql/schema.ts'
import { bodyLimits } from '../http/body.ts'
import { adminRoutes } from '../rest/admin/routes.ts'
import { agentRoutes } from '../rest/agent/routes.ts'
import { botApiRoutes } from '../rest/bot-api/routes.ts'
import { chatRoutes } from '../rest/chat/routes.ts'
import { webchatRoutes } from '../rest/chat/webchat.ts'
import type { AnyRoute } from '../rest/route.ts'

/** A security requirement of OpenAPI: the schemes (components.securitySchemes) that together admit a call. */
export type Security = Record<string, string[]>[]

/**
 * One REST API of Confab: the route table served under its prefix, the GraphQL schema its operations
 * run on, its body limit (spec part 8), and the credentials it takes. The server mounts exactly these
 * (wiring.ts), and the OpenAPI document is made of them (document.ts).
 */
export interface RestApi {
  /** The prefix of its paths as OpenAPI writes them (`/{webhookId}`). */
  prefix: string
  routes: AnyRoute[]
  schema: GraphQLSchema
  bodyLimit: number
  /** What the API is, for the document's tag. */
  description: string
  /** The OpenAPI tag of a route. */
  tagOf(route: AnyRoute): string
  /** The operationId of a route (unique across the APIs). */
  operationIdOf(route: AnyRoute): string
  security(route: AnyRoute): Security
}

const userKey: Security = [{ userKey: [] }]
/** The operations a caller without a user key may call: the connection check, and the one that makes a user (and its key). */
const keyless = new Set(['hello', 'createUser'])
/** The web chat's first visit has no key yet: `initialize` makes the user. */
const keyOptional = new Set(['initialize'])
const webchat = new Set<AnyRoute>(webchatRoutes)

export const restApis = {
  chat: {
    prefix: '/{webhookId}',
    routes: chatRoutes,
    schema: chatSchema,
    bodyLimit: bodyLimits.chat,
    description: "The Chat API of a bot's chat integration (`@botpress/chat`'s `apiUrl`), and the Webchat API of `@botpress/webchat`.",
    tagOf: (route) => (webchat.has(route) ? 'webchat' : 'chat'),
    operationIdOf: (route) => route.operation,
    security: (route) => (keyless.has(route.operation) ? [] : keyOptional.has(route.operation) ? [...userKey, {}] : userKey),
  },
  admin: {
    prefix: '/v1/admin',
    routes: adminRoutes,
    schema: adminSchema,
    bodyLimit: bodyLimits.admin,
    description: "The administration API of a workspace (`@botpress/client`'s admin operations).",
    tagOf: () => 'admin',
    operationIdOf: (route) => route.operation,
    security: () => [{ adminToken: [], workspaceId: [] }],
  },
  botApi: {
    prefix: '/v1/chat',
    routes: botApiRoutes,
    schema: botApiSchema,
    bodyLimit: bodyLimits.botApi,
    description: 'The runtime operations a `@botpress/sdk` bot calls (`@botpress/client`), as the bot: each checks its own input and names the field at fault.',
    tagOf: () => 'bot',
    operationIdOf: (route) => `botApi${route.operation[0]?.toUpperCase()}${route.operation.slice(1)}`,
    security: () => [{ botApiKey: [], botId: [] }],
  },
  agent: {
    prefix: '/v1/agent',
    routes: agentRoutes,
    schema: agentSchema,
    bodyLimit: bodyLimits.chat,
    description: 'The agent API: a person answers users in place of the bots of a workspace (docs/guides/handoff.md), with an agent key.',
    tagOf: () => 'agent',
    operationIdOf: (route) => `agent${route.operation[0]?.toUpperCase()}${route.operation.slice(1)}`,
    security: () => [{ agentKey: [] }],
  },
} satisfies Record<string, RestApi>
