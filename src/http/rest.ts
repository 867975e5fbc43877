import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLError,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  validate,
} from 'graphql'
import type { Logger } from 'pino'
import { DomainError } from '../domain/errors.ts'
import { answerTooLarge, sizeOver } from '../graphql/answer-cap.ts'
import { runsOften } from '../graphql/compiled-execution.ts'
import { countedCaller, type GraphQLContext } from '../graphql/context.ts'
import type { Failure } from '../graphql/errors.ts'
import type { ReplicaReads } from '../graphql/replica-reads.ts'
import type { SignalRenderings } from '../graphql/shared-rendering.ts'
import { refusalWords } from '../rest/refusal-words.ts'
import { type RequestSchema, requestSchema } from '../rest/request-schema.ts'
import type { AnyRoute, RestRequest } from '../rest/route.ts'
import { readJsonObject } from './body.ts'
import { decodePathSegment } from './path.ts'
import type { Transport } from './mounts.ts'
import { errorResponse, jsonText } from './responses.ts'
import type { SseStreams } from './sse.ts'
import { createStreamEvents } from './stream-events.ts'

/** What the REST transport needs of a yoga server: its envelop pipeline. */
export interface Enveloping {
  getEnveloped(initialContext: Record<string, unknown>): {
    schema: GraphQLSchema
    contextFactory(): unknown
    execute(args: ExecutionArgs): unknown
    subscribe(args: ExecutionArgs): unknown
  }
}

export interface RestTransportOptions {
  schema: GraphQLSchema
  /** The yoga server whose pipeline (context, masking, plugins) every route runs through. */
  yoga: Enveloping
  routes: AnyRoute[]
  bodyLimit: number
  streams: SseStreams
  log: Logger
  /** Where stream routes' signals are rendered once for all their listeners. */
  renderings: SignalRenderings
  /**
   * Counts a stream route's operation against the rate limits (graphql/rate-limits.ts): a stream
   * subscribes outside the pipeline's subscribe (see stream-events.ts), whose plugin counts the others.
   */
  admitStream?: (args: ExecutionArgs) => Promise<GraphQLError | undefined> | undefined
  /** The operations a read replica may serve (graphql/replica-reads.ts); none when absent. */
  reads?: ReplicaReads
  /** RESPONSE_MAX_BYTES: a larger answer is refused with 413 LimitExceeded (graphql/answer-cap.ts); none when absent. */
  answerMaxBytes?: number
}

interface CompiledRoute {
  route: AnyRoute
  pattern: RegExp
  paramNames: string[]
  /** What a request may carry (rest/request-schema.ts): checked before the operation runs. */
  request: RequestSchema
  /** Whether the route's operation is a query (a read). */
  query: boolean
  /** The route's path as the access log names it: `/conversations/:id`. */
  logged: string
}

function compile(schema: GraphQLSchema, route: AnyRoute): CompiledRoute {
  const errors = validate(schema, route.document as DocumentNode)
  if (errors.length > 0) {
    throw new Error(`REST route ${route.operation}: its document does not fit the schema: ${errors[0]?.message}`)
  }
  runsOften(route.document as DocumentNode)
  const operation = route.document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
  const paramNames: string[] = []
  const source = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_match, name: string) => {
    paramNames.push(name)
    return '([^/]+)'
  })
  return {
    route,
    pattern: new RegExp(`^${source}/?$`),
    paramNames,
    request: requestSchema(schema, route),
    query: operation?.operation === 'query',
    logged: route.path.replace(/\{(\w+)\}/g, ':$1'),
  }
}

/** A request part as its schema reads it, or InvalidPayload naming each field at fault. */
function checked(part: 'query' | 'body', schema: RequestSchema['query'], input: Record<string, unknown>): Record<string, unknown> {
  const result = schema.safeParse(input)
  if (!result.success) throw new DomainError('InvalidPayload', refusalWords(part, result.error, input))
  return result.data
}

/** The query parameters a route declares, an empty one counting as absent. */
function declaredQuery(route: AnyRoute, query: URLSearchParams): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const name of Object.keys(route.query ?? {})) {
    const value = query.get(name)
    if (value !== null && value !== '') values[name] = value
  }
  return values
}

/**
 * The default variable mapping, once the request is checked: path parameters, the query parameters
 * onto the variables they name, and the body's properties by their names (a body property the
 * operation does not take was refused by the body's schema, so that a misspelt field never passes
 * silently).
 */
function pickVariables(route: AnyRoute, request: RestRequest, query: Record<string, unknown>, headers: Headers): Record<string, unknown> {
  const variables: Record<string, unknown> = { ...request.params, ...request.body }
  for (const [name, variable] of Object.entries(route.query ?? {})) if (query[name] !== undefined) variables[variable] = query[name]
  for (const [name, variable] of Object.entries(route.headers ?? {})) {
    const value = headers.get(name)
    if (value) variables[variable] = value
  }
  return variables
}

/** The REST error body of a failure. */
export const restRefusal = (_request: Request, failure: Failure, requestId: string) => errorResponse(requestId, failure)

/**
 * Serves a table of REST routes. Each route's document was parsed with the route table and is
 * validated here once; a request runs it through the same envelop pipeline as a GraphQL request
 * of that yoga server (context, error masking and every plugin), never through a second one.
 */
export function restTransport({
  schema,
  yoga,
  routes,
  bodyLimit,
  streams,
  log,
  renderings,
  admitStream,
  reads,
  answerMaxBytes,
}: RestTransportOptions): Transport {
  const compiled = routes.map((route) => compile(schema, route))
  for (const name of reads?.operations ?? []) {
    const found = compiled.find((c) => c.route.operation === name)
    if (found?.route.kind !== 'call' || !found.query) throw new Error(`a read replica may serve ${name}, which is no REST read`)
  }
  const streamEvents = createStreamEvents(log, renderings)
  // A request is matched against its method's routes only, in the table's order.
  const byMethod = new Map<string, CompiledRoute[]>()
  for (const c of compiled) byMethod.set(c.route.method, [...(byMethod.get(c.route.method) ?? []), c])

  const firstError = (result: ExecutionResult) => {
    const [first] = result.errors ?? []
    return first
  }

  /** The route of a path and method; 404 when no route has the path, 405 (with the methods it takes) when none has the method. */
  const routeOf = (path: string, method: string): { c: CompiledRoute; match: RegExpExecArray } => {
    for (const c of byMethod.get(method) ?? []) {
      const match = c.pattern.exec(path)
      if (match) return { c, match }
    }
    const allowed = compiled.filter((c) => c.pattern.test(path)).map((c) => c.route.method)
    if (allowed.length === 0) throw new DomainError('ResourceNotFound', `no route for ${path}`)
    const allow = allowed.join(', ')
    throw new DomainError('MethodNotFound', `${method} is not allowed on ${path}; allowed: ${allow}`, { allow })
  }

  const serve: Transport['serve'] = async (request, landing) => {
    const { requestId, params: mount, path, url, clientAddress, publicUrl } = landing
    const { c, match } = routeOf(path, request.method)
    landing.operation = c.route.operation
    landing.route = c.logged
    const params = Object.fromEntries(c.paramNames.map((name, i) => [name, decodePathSegment(match[i + 1] ?? '')]))
    const raw = await readJsonObject(request, bodyLimit)
    const query = c.route.query ? checked('query', c.request.query, declaredQuery(c.route, url.searchParams)) : {}
    if (c.request.body) checked('body', c.request.body, raw)
    const body = c.route.mapBody ? c.route.mapBody(raw) : raw
    const restRequest: RestRequest = { params, query: url.searchParams, body }
    const variableValues = c.route.variables ? c.route.variables(restRequest) : pickVariables(c.route, restRequest, query, request.headers)

    // The same initial context yoga gives a GraphQL request: `mount` holds the webhook id of /{webhookId}/….
    // Assigned, not spread: one object shape for every request (docs/internals/performance.md).
    const enveloped = yoga.getEnveloped(Object.assign({ requestId, request, clientAddress, publicUrl, params: { variables: variableValues } }, mount))
    const args: ExecutionArgs = {
      schema: enveloped.schema,
      document: c.route.document as DocumentNode,
      variableValues,
      contextValue: await enveloped.contextFactory(),
    }
    if (c.route.kind === 'stream') {
      landing.caller = countedCaller(args.contextValue as GraphQLContext)
      const refusal = await admitStream?.(args)
      if (refusal) throw refusal
      const events = await streamEvents(c.route, args, JSON.stringify(mount))
      if ('next' in events) return streams.open(events, request.signal)
      throw firstError(events) ?? new Error('the live stream could not start')
    }
    const result = (await enveloped.execute(args)) as ExecutionResult
    const refusal = firstError(result)
    if (refusal) throw refusal
    const answer = JSON.stringify(c.route.response(result.data))
    const size = answerMaxBytes ? sizeOver(answer, answerMaxBytes) : undefined
    if (size !== undefined) throw answerTooLarge(answerMaxBytes as number, size)
    return jsonText(200, answer, { 'x-request-id': requestId })
  }

  const replicable = (method: string, path: string) => {
    if (!reads) return false
    const found = compiled.find((c) => c.route.method === method && c.pattern.test(path))
    return found !== undefined && reads.operations.includes(found.route.operation)
  }

  return { serve, refuse: restRefusal, replicable }
}
