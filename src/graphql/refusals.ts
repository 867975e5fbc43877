import { type ExecutionResult, GraphQLError } from 'graphql'
import { isAsyncIterable, type Plugin, processRegularResult } from 'graphql-yoga'
import { DomainError, errorTypeOf } from '../domain/errors.ts'
import type { Failure } from './errors.ts'

const graphqlResponseType = 'application/graphql-response+json'

/**
 * The GraphQL-over-HTTP media type when the client's Accept allows it, else plain JSON. The most
 * specific range that names it (itself, `application/*`, `*` + `/*`) decides, by its q.
 */
const errorMediaType = (request: Request): string => {
  const ranges = (request.headers.get('accept') ?? '').split(',').map((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase())
    const q = params.find((param) => param.startsWith('q='))
    return { type, q: q === undefined ? 1 : Number(q.slice(2)) }
  })
  for (const candidate of [graphqlResponseType, 'application/*', '*/*']) {
    const range = ranges.find((r) => r.type === candidate)
    if (range) return range.q > 0 ? graphqlResponseType : 'application/json'
  }
  return 'application/json'
}

/**
 * A result yoga would answer with an HTTP error status: the request as a whole was refused. An
 * invalid operation is one only by the GraphQL-over-HTTP spec's rules (`spec`): a client of an event
 * stream still gets it as an event (the graphql-sse client reads it there), any other as JSON.
 */
const isRefusal = (request: Request, result: ExecutionResult): boolean =>
  result.errors?.some((error) => {
    const http = error.extensions?.http as { status?: number; spec?: boolean } | undefined
    if ((http?.status ?? 0) < 400) return false
    return !http?.spec || !(request.headers.get('accept') ?? '').includes('text/event-stream')
  }) ?? false

/**
 * A refusal of a GraphQL endpoint as GraphQL over HTTP describes it: the status, and a body whose one
 * error says the same type and status as the REST error body would.
 */
export function graphqlRefusal(request: Request, failure: Failure, requestId: string): Response {
  const body = { errors: [{ message: failure.message, extensions: { type: failure.type, status: failure.status, requestId } }] }
  return Response.json(body, {
    status: failure.status,
    headers: { ...failure.headers, 'content-type': `${errorMediaType(request)}; charset=utf-8` },
  })
}

// What yoga answers with an empty body, said in words.
const emptyRefusals: Partial<Record<number, string>> = {
  404: 'no GraphQL endpoint at this path',
  405: 'a GraphQL endpoint takes GET and POST',
  406: `the response can only be ${graphqlResponseType} or application/json (see the Accept header)`,
  415: 'a GraphQL request is sent as application/json, application/graphql+json, multipart/form-data or application/x-www-form-urlencoded',
}

const refusal = (status: number, message: string): Failure => ({ type: errorTypeOf(status), status, message })

/**
 * Makes every refusal of yoga's HTTP layer explain itself. A request parser that throws something
 * other than a GraphQL error (a `variables` or `extensions` parameter that is not JSON) is a bad
 * request, not a server failure; and the answers yoga gives with an empty body (415, 406, 404) get
 * the GraphQL error body every other refusal has.
 */
export const useExplainedRefusals = (): Plugin<Record<string, unknown>, { requestId: string }> => ({
  onRequestParse({ requestParser, setRequestParser }) {
    if (!requestParser) return
    setRequestParser(async (request) => {
      try {
        return await requestParser(request)
      } catch (error) {
        if (error instanceof DomainError || (error instanceof GraphQLError && error.extensions.http)) throw error
        // A request that cannot be read is refused as a whole (400), whatever form the parser found it in.
        const message = error instanceof GraphQLError ? error.message : `the GraphQL request is malformed: ${String((error as Error)?.message ?? error)}`
        throw new GraphQLError(message, { extensions: { http: { status: 400 } } })
      }
    })
  },
  // A refused request is answered with a JSON error body, even to a client that asked for a stream.
  onResultProcess({ request, result, setResultProcessor }) {
    if (isAsyncIterable(result) || Array.isArray(result) || !isRefusal(request, result)) return
    setResultProcessor(processRegularResult, errorMediaType(request))
  },
  onResponse({ request, response, serverContext, setResponse }) {
    if (response.status < 400 || response.body !== null) return
    const message = emptyRefusals[response.status] ?? 'the GraphQL request was refused'
    const allow = response.headers.get('allow')
    const failure = { ...refusal(response.status, message), ...(allow ? { headers: { allow } } : {}) }
    setResponse(graphqlRefusal(request, failure, serverContext.requestId))
  },
})
