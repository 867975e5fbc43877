import type { DocumentNode, ExecutionArgs, GraphQLSchema } from 'graphql'
import { createYoga, type Plugin } from 'graphql-yoga'
import type { Logger } from 'pino'
import type { RateLimits } from '../limits/rate-limits.ts'
import { countAnswers, useAnswerCap } from './answer-cap.ts'
import { armorPlugins, executionLimits } from './armor.ts'
import { useCompiledExecution } from './compiled-execution.ts'
import { EndpointPattern } from './endpoint-pattern.ts'
import { type ContextDeps, createAdminContext, createAgentContext, createChatContext, createBotApiContext, type GraphQLContext } from './context.ts'
import type { ErrorPath } from './errors.ts'
import { useGraphQLSSE } from './graphql-sse.ts'
import { useIntegrationCheck } from './integration-check.ts'
import { operationOf, rootFields, rootFieldsLabel } from './operation.ts'
import { useCsrfPrevention } from './csrf.ts'
import { useExplainedRefusals } from './refusals.ts'
import { useRateLimits } from './rate-limits.ts'
import { type ReplicaReads, type ReplicaThread, replicaReads, useReplicaReads } from './replica-reads.ts'
import { useRequestId } from './request-id.ts'
import { type SignalRenderings, useSharedRendering } from './shared-rendering.ts'
import { useTracing } from './tracing.ts'
import { tracing } from '../tracing/tracing.ts'
import { agentSchema } from './agent-schema.ts'
import { botApiSchema } from './bot-api-schema.ts'
import { adminSchema, chatSchema } from './schema.ts'

/** What the app hands each GraphQL request besides the Request itself. */
export interface ServerContext {
  requestId: string
  webhookId?: string
  /** The client's address (the socket's, or the hop TRUST_PROXY names): what key-less doors are counted by. */
  clientAddress?: string
  /** The base of the absolute URLs handed out (http/public-origin.ts); asked for, as few operations need it. */
  publicUrl?: () => string
  /**
   * Told the operation that runs (its root fields), for the metrics (http/request-labels.ts), and the
   * verified caller, for the caps on live connections (graphql/context.ts countedCaller).
   */
  labelled?: { operation?: string; caller?: string }
}

/**
 * Each request's server context, handed to yoga beside the request rather than as its argument: yoga
 * copies a given context onto a slow new object for every request, which every resolver then reads
 * (docs/internals/performance.md).
 */
const serverContexts = new WeakMap<Request, ServerContext>()

/** The request, to be handed to yoga's `handleRequest` with no server context: its own is `context`. */
export function withServerContext(request: Request, context: ServerContext): Request {
  serverContexts.set(request, context)
  return request
}

/** Runs first: every other plugin, and the context factory, reads the server context yoga passes on. */
const useServerContext = (): Plugin<Record<string, unknown>, ServerContext> => ({
  onRequest({ request, serverContext }) {
    Object.assign(serverContext, serverContexts.get(request))
    // Now, rather than when the request is collected: see ChatMemo on why a WeakMap should hold nothing long.
    serverContexts.delete(request)
  },
})

/** What yoga passes the context factory: the request, or for a WebSocket its connection parameters. */
export interface ContextInit extends ServerContext {
  request: Request
  params?: { query?: unknown }
  connectionParams?: Record<string, unknown>
}

/** What the yogas are made with: the context's dependencies and the server's one error path. */
export interface YogaDeps extends ContextDeps {
  errors: ErrorPath
  /** The rate limits every operation is counted against; none: nothing is counted. */
  limits?: RateLimits
  /** On a read replica's thread: what it hands back the operations it may not serve by. */
  replica?: ReplicaThread
  /** Where subscriptions' events are rendered once per shape (one for the app: REST streams share it). */
  renderings?: SignalRenderings
  /** RESPONSE_MAX_BYTES: the largest chat answer (answer-cap.ts); 0 or none: no cap. */
  answerMaxBytes?: number
}

/**
 * Yoga's own log, less its error lines: every unexpected error is logged once, with its request id,
 * by the error path (yoga would log it again, without one).
 */
const yogaLogger = (log: Logger) => ({
  debug: (...args: unknown[]) => log.debug(args),
  info: (...args: unknown[]) => log.info(args),
  warn: (...args: unknown[]) => log.warn(args),
  error: () => {},
})

const yogaFor = (
  schema: GraphQLSchema,
  graphqlEndpoint: string,
  { log, errors, limits, replica, renderings }: YogaDeps,
  reads: ReplicaReads,
  context: (init: ContextInit) => Promise<GraphQLContext>,
  answerMaxBytes = 0,
) =>
  createYoga<ServerContext>({
    schema,
    graphqlEndpoint,
    fetchAPI: { URLPattern: EndpointPattern },
    context,
    logging: yogaLogger(log),
    // The app answers CORS for REST and GraphQL alike (CORS_ORIGINS); yoga's own would allow any origin.
    cors: false,
    // The HTTP transport has read the body under the interface's payload limit before yoga sees it
    // (http/graphql.ts): yoga's own limit would stream it through a second, costlier check.
    maxRequestBodySize: false,
    // The HTTP transport serves GraphiQL itself: compressed, cached and counted (http/graphiql.ts).
    graphiql: false,
    landingPage: false,
    maskedErrors: { maskError: (error) => errors.mask(error) },
    plugins: [
      useServerContext(),
      ...armorPlugins(),
      useGraphQLSSE(errors),
      useRequestId(errors),
      // After the errors have their final form, before a refusal is told as one.
      ...(answerMaxBytes > 0 ? [useAnswerCap(answerMaxBytes, executionLimits)] : []),
      useExplainedRefusals(),
      useCsrfPrevention(),
      // Before execution is compiled or run: a refused operation costs a counter and nothing else.
      ...(limits ? [useRateLimits(limits)] : []),
      ...(replica ? [useReplicaReads(reads, replica)] : []),
      useOperationLabel(),
      useCompiledExecution(log),
      ...(renderings ? [useSharedRendering(renderings)] : []),
      useIntegrationCheck(),
      ...withTracing(),
    ],
  })

/** A span for each execution, when traces are on (tracing/tracing.ts). */
const withTracing = (): Plugin[] => {
  const traces = tracing()
  return traces ? [useTracing(traces)] : []
}

/** Tells the request's transport which operation ran: its kind and root fields, names of the schema only. */
const useOperationLabel = (): Plugin<{ labelled?: { operation?: string } }> => {
  // Made once per document and operation name (yoga's parser cache hands the same document again).
  const labels = new WeakMap<DocumentNode, Map<string, string | undefined>>()
  const labelOf = (args: ExecutionArgs): string | undefined => {
    let byName = labels.get(args.document)
    if (!byName) labels.set(args.document, (byName = new Map()))
    const name = args.operationName ?? ''
    if (byName.has(name)) return byName.get(name)
    const operation = operationOf(args)
    const made = operation && rootFieldsLabel(operation.operation, rootFields(operation))
    byName.set(name, made)
    return made
  }
  const label = (args: ExecutionArgs) => {
    const labelled = (args.contextValue as { labelled?: { operation?: string } } | undefined)?.labelled
    const made = labelled && labelOf(args)
    if (labelled && made) labelled.operation = made
  }
  return {
    onExecute: ({ args }) => label(args),
    onSubscribe: ({ args }) => label(args),
  }
}

/** A header of the request, or the same-named connection parameter of a WebSocket. */
const credential = ({ request, connectionParams }: ContextInit, name: string): string | undefined => {
  const fromParams = connectionParams?.[name]
  if (typeof fromParams === 'string') return fromParams
  return request?.headers.get(name) ?? undefined
}

/** The chat API's: the one strangers reach, so the one whose answers are capped (RESPONSE_MAX_BYTES). */
export function createChatYoga(deps: YogaDeps) {
  if (deps.answerMaxBytes) countAnswers(chatSchema)
  return yogaFor(
    chatSchema,
    '/:webhookId/graphql',
    deps,
    replicaReads.chat,
    (init) =>
      createChatContext(deps, {
        requestId: init.requestId,
        webhookId: init.webhookId ?? '',
        userKey: credential(init, 'x-user-key'),
        adminSecret: credential(init, 'x-admin-secret'),
        baseUrl: init.publicUrl,
        told: init.labelled,
      }),
    deps.answerMaxBytes,
  )
}

/** The administration API's: every operation, introspection included, needs the admin token. */
export function createAdminYoga(deps: YogaDeps) {
  return yogaFor(adminSchema, '/v1/admin/graphql', deps, replicaReads.admin, (init) =>
    createAdminContext(deps, {
      requestId: init.requestId,
      authorization: credential(init, 'authorization'),
      workspaceId: credential(init, 'x-workspace-id'),
      baseUrl: init.publicUrl,
    }),
  )
}

const noReads: ReplicaReads = { operations: [], rootFields: [] }

/** The bot API scope: served through its REST routes only (its GraphQL endpoint is not mounted). */
export function createBotApiYoga(deps: YogaDeps) {
  return yogaFor(botApiSchema, '/v1/chat/graphql', deps, noReads, (init) =>
    createBotApiContext(deps, {
      requestId: init.requestId,
      authorization: credential(init, 'authorization'),
      botId: credential(init, 'x-bot-id'),
    }),
  )
}

/** The agent API scope (docs/guides/handoff.md): its REST routes and its GraphQL endpoint, with an agent key. */
export function createAgentYoga(deps: YogaDeps) {
  return yogaFor(agentSchema, '/v1/agent/graphql', deps, noReads, (init) =>
    createAgentContext(deps, { requestId: init.requestId, authorization: credential(init, 'authorization') }),
  )
}
