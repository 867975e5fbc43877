import { createHash } from 'node:crypto'
import { type ExecutionArgs, GraphQLError, type OperationDefinitionNode } from 'graphql'
import type { Plugin } from 'graphql-yoga'
import { bearerToken } from '../auth/admin-token.ts'
import type { RateLimitName } from '../config.ts'
import { type RateLimitRefusal, type RateLimits, refusalHeaders, refusalMessage } from '../limits/rate-limits.ts'
import type { GraphQLContext } from './context.ts'
import { operationOf, rootFields } from './operation.ts'

/** The context an operation is counted by: its scope, and the client address the app found. */
type Counted = Partial<Pick<GraphQLContext, 'chat' | 'admin' | 'botApi' | 'agent'>> & {
  clientAddress?: string
  request?: Request
}

/** The chat fields that make a user without a key: the doors that need none. */
const createsUser = new Set(['createUser', 'initialize'])
/** The chat fields whose every call is delivered to the bot (Botpress: 600 user messages a minute a bot). */
const deliveredToBot = new Set(['createMessage', 'createEvent'])

/**
 * The admin token is counted by a digest of the token the context verified (never of the header's
 * text, which has several spellings per token: auth/admin-token.ts): no token ever reaches the counters (or Redis).
 */
const tokenDigest = (request: Request | undefined) =>
  createHash('sha256')
    .update(bearerToken(request?.headers.get('authorization') ?? undefined) ?? '')
    .digest('base64url')
    .slice(0, 22)

/**
 * The counters an operation takes one point of, each a limit and the key it counts per: the one table
 * REST routes and GraphQL (over HTTP, SSE and WebSocket) share, since a REST route runs its GraphQL
 * operation through the same pipeline. Chat operations without a user key count per client address
 * (and those that make a user, once more on their own limit); with one, reads, writes and streams
 * count per user (each on its own limit), and user messages and events also per bot. Every
 * administration call counts per admin token, every bot API call per bot, and the administration
 * schema fetched without a token per client address.
 */
export function countersOf(context: Counted, operation: OperationDefinitionNode): readonly [RateLimitName, string][] {
  const { chat, admin, botApi, agent } = context
  if (chat) {
    if (chat.callerId === undefined) {
      const address = context.clientAddress ?? 'unknown'
      const counters: [RateLimitName, string][] = [['anonymous', address]]
      if (rootFields(operation).some((field) => createsUser.has(field))) counters.push(['createUser', address])
      return counters
    }
    const user = `${chat.integration.id}:${chat.callerId}`
    if (operation.operation === 'query') return [['userReads', user]]
    if (operation.operation === 'subscription') return [['streams', user]]
    const counters: [RateLimitName, string][] = [['userWrites', user]]
    if (rootFields(operation).some((field) => deliveredToBot.has(field))) counters.push(['botMessages', chat.integration.botId])
    return counters
  }
  if (admin) return [['admin', tokenDigest(context.request)]]
  if (botApi) return [['botApi', botApi.bot.id]]
  if (agent) return [['agent', agent.agent.id]]
  // No scope: the administration schema asked for without credentials (graphiql.ts), a door of its own.
  return [['anonymous', context.clientAddress ?? 'unknown']]
}

/** A refusal as GraphQL tells it: the whole request refused with 429, its headers on the HTTP response. */
export const rateLimitedError = (refusal: RateLimitRefusal): GraphQLError =>
  new GraphQLError(refusalMessage(refusal), {
    extensions: { type: 'RateLimited', status: 429, http: { status: 429, headers: refusalHeaders(refusal) } },
  })

/**
 * Counts an operation against its limits (see countersOf): the error that refuses it when one is
 * over, else undefined. Synchronous when nothing counts it (every limit that would is off).
 */
export function operationRefusal(limits: RateLimits, args: ExecutionArgs): Promise<GraphQLError | undefined> | undefined {
  const operation = operationOf(args)
  if (!operation) return undefined
  const all = countersOf(args.contextValue as Counted, operation)
  if (all.length === 0) return undefined
  const counters = all.filter(([name]) => limits.has(name))
  if (counters.length === 0) return undefined
  return (async () => {
    for (const [name, key] of counters) {
      const refusal = await limits.consume(name, key)
      if (refusal) return rateLimitedError(refusal)
    }
    return undefined
  })()
}

/** Every operation a yoga server executes or subscribes to is counted first (no hooks when every limit is off). */
export function useRateLimits(limits: RateLimits): Plugin {
  const check = ({ args, setResultAndStopExecution }: { args: ExecutionArgs; setResultAndStopExecution(result: unknown): void }) => {
    const refusal = operationRefusal(limits, args)
    if (!refusal) return undefined
    return refusal.then((error) => {
      if (error) setResultAndStopExecution({ errors: [error] })
    })
  }
  return { onExecute: check as never, onSubscribe: check as never }
}
