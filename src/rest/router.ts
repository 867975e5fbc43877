import {
  type ExecutionResult,
  execute,
  type GraphQLError,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  subscribe,
  validate,
} from 'graphql'
import type { Logger } from 'pino'
import type { GraphQLContext } from '../graphql/context.ts'
import { createMaskError, describeGraphQLError, type ErrorShape } from '../graphql/errors.ts'
import { readJsonObject } from '../http/body.ts'
import { decodePathSegment } from '../http/path.ts'
import { errorResponse, HttpError, json } from '../http/responses.ts'
import type { SseStreams } from '../http/sse.ts'
import type { AnyRoute, RestRequest, StreamRoute } from './route.ts'

export interface RestScope {
  schema: GraphQLSchema
  routes: AnyRoute[]
  bodyLimit: number
  streams: SseStreams
  log: Logger
  /** `scope` holds what the mount point names, e.g. the webhook id of /{webhookId}/…. */
  /** `baseUrl` is the request's origin. */
  context: (init: { requestId: string; scope: Record<string, string>; headers: Headers; baseUrl: string }) => Promise<GraphQLContext>
}

interface CompiledRoute {
  route: AnyRoute
  pattern: RegExp
  paramNames: string[]
  variableNames: Set<string>
}

function compile(schema: GraphQLSchema, route: AnyRoute): CompiledRoute {
  const errors = validate(schema, route.document)
  if (errors.length > 0) {
    throw new Error(`REST route ${route.operation}: its document does not fit the schema: ${errors[0]?.message}`)
  }
  const operation = route.document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  )
  const paramNames: string[] = []
  const source = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_match, name: string) => {
    paramNames.push(name)
    return '([^/]+)'
  })
  return {
    route,
    pattern: new RegExp(`^${source}/?$`),
    paramNames,
    variableNames: new Set(operation?.variableDefinitions?.map((v) => v.variable.name.value) ?? []),
  }
}

/**
 * The default variable mapping: path parameters, then body properties, each by its name. A body
 * property the operation has no variable for, or that would override a path parameter, is refused
 * rather than dropped, so that a misspelt field never passes silently.
 */
function pickVariables(compiled: CompiledRoute, request: RestRequest): Record<string, unknown> {
  const variables: Record<string, unknown> = { ...request.params }
  for (const [name, value] of Object.entries(request.body)) {
    if (!compiled.variableNames.has(name) || name in request.params) {
      throw new HttpError(400, 'InvalidPayload', `the request body has a property "${name}" that this operation does not take`)
    }
    variables[name] = value
  }
  return variables
}

/** Serves a table of routes by running each one's GraphQL document in-process against `schema`. */
export function createRestHandler(scope: RestScope) {
  const compiled = scope.routes.map((route) => compile(scope.schema, route))
  const maskError = createMaskError(scope.log)

  const fail = (requestId: string, { status, type, message }: ErrorShape) =>
    errorResponse(requestId, status, type, message)

  return async (
    request: Request,
    { path, requestId, scope: mount = {} }: { path: string; requestId: string; scope?: Record<string, string> },
  ): Promise<Response> => {
    const byPath = compiled
      .map((c) => ({ c, match: c.pattern.exec(path) }))
      .filter((m): m is { c: CompiledRoute; match: RegExpExecArray } => m.match !== null)
    if (byPath.length === 0) return fail(requestId, { status: 404, type: 'ResourceNotFound', message: `no route for ${path}` })
    const hit = byPath.find((m) => m.c.route.method === request.method)
    if (!hit) {
      return fail(requestId, {
        status: 405,
        type: 'MethodNotFound',
        message: `${request.method} is not allowed on ${path}; allowed: ${byPath.map((m) => m.c.route.method).join(', ')}`,
      })
    }
    const { c, match } = hit
    try {
      const params = Object.fromEntries(c.paramNames.map((name, i) => [name, decodePathSegment(match[i + 1] ?? '')]))
      const raw = await readJsonObject(request, scope.bodyLimit)
      const body = c.route.mapBody ? c.route.mapBody(raw) : raw
      const url = new URL(request.url)
      const restRequest: RestRequest = { params, query: url.searchParams, body }
      const variableValues = c.route.variables ? c.route.variables(restRequest) : pickVariables(c, restRequest)
      const contextValue = await scope.context({ requestId, scope: mount, headers: request.headers, baseUrl: url.origin })
      const operation = { schema: scope.schema, document: c.route.document, variableValues, contextValue }
      if (c.route.kind === 'stream') {
        const results = await subscribe(operation)
        if (Symbol.asyncIterator in results) {
          return scope.streams.open(eventTexts(c.route, results, scope.log), request.signal)
        }
        const [refusal] = results.errors ?? []
        if (refusal) return fail(requestId, describeGraphQLError(maskError(refusal, 'Unexpected error.') as GraphQLError))
        return fail(requestId, { status: 500, type: 'Internal', message: 'the live stream could not start' })
      }
      const result = await execute(operation)
      const [first] = result.errors ?? []
      if (first) return fail(requestId, describeGraphQLError(maskError(first, 'Unexpected error.') as GraphQLError))
      return json(200, c.route.response(result.data), { 'x-request-id': requestId })
    } catch (error) {
      if (error instanceof HttpError) return fail(requestId, error)
      return fail(requestId, describeGraphQLError(maskError(error, 'Unexpected error.') as GraphQLError))
    }
  }
}

/** The subscription's results as the JSON texts of the route's events; a result with errors is skipped. */
function eventTexts(
  route: StreamRoute,
  results: AsyncGenerator<ExecutionResult>,
  log: Logger,
): AsyncIterator<string> {
  return {
    async next() {
      for (;;) {
        const next = await results.next()
        if (next.done) return { done: true, value: undefined }
        if (next.value.errors?.length) {
          log.error({ errors: next.value.errors }, `${route.operation}: a signal could not be resolved`)
          continue
        }
        return { done: false, value: JSON.stringify(route.event(next.value.data)) }
      }
    },
    async return() {
      await results.return(undefined)
      return { done: true, value: undefined }
    },
  }
}
