import { METHODS } from 'node:http'
import { isHostAndPort } from '../../src/http/public-origin.ts'
import type { HostileRequest, Received } from './http.ts'

/** The error types of the contract ("Error body") that a refusal may carry. */
const refusalTypes = new Set([
  'InvalidPayload',
  'Unauthorized',
  'Forbidden',
  'ResourceNotFound',
  'MethodNotFound',
  'AlreadyExists',
  'PayloadTooLarge',
  'UnsupportedMediaType',
  'RateLimited',
])

/** What an error message must never show: stacks, SQL errors, file paths, internal invariants. */
const internals = [/SqliteError/i, /\bat \//, /node_modules/, /resolved outside/, /\.[cm]?[jt]s:\d+/, /\n\s+at /]

/**
 * The one place that ties an error's id to the response's `x-request-id`. The contract's error id
 * is `err_<request-scoped id>`; until every layer prefixes it, the bare request id passes too.
 */
export function requestIdViolation(errorId: unknown, header: string | null): string | undefined {
  if (typeof errorId !== 'string' || errorId === '') return `the error id is not a non-empty string: ${JSON.stringify(errorId)}`
  if (header === null) return 'no x-request-id header'
  if (errorId !== header && errorId !== `err_${header}`) return `the error id ${errorId} does not match x-request-id ${header}`
  return undefined
}

type Parsed = { ok: true; value: unknown } | { ok: false }

const parse = (text: string | undefined): Parsed => {
  try {
    return text === undefined ? { ok: false } : { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

const defined = (findings: (string | undefined)[]) => findings.filter((f): f is string => f !== undefined)

function leak(message: unknown): string | undefined {
  if (typeof message !== 'string') return `an error message is not a string: ${JSON.stringify(message)}`
  const pattern = internals.find((p) => p.test(message))
  return pattern ? `an error message leaks internals (${pattern}): ${message}` : undefined
}

const mediaType = (headers: Headers) => (headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? ''

/** The REST contract's error body: exactly `{id, code, type, message}`, `code` the HTTP status. */
function restErrorViolations({ status, headers, text }: Received): string[] {
  if (mediaType(headers) !== 'application/json') return [`a ${status} without a JSON error body (content-type ${headers.get('content-type')})`]
  const body = parse(text)
  if (!body.ok || !isObject(body.value)) return [`a ${status} whose body is not a JSON object`]
  const { id, code, type, message } = body.value
  return defined([
    Object.keys(body.value).sort().join() === 'code,id,message,type' ? undefined : 'the error body has keys other than id, code, type, message',
    code === status ? undefined : `the error body's code ${JSON.stringify(code)} is not the status ${status}`,
    typeof type === 'string' && refusalTypes.has(type) ? undefined : `the error type ${JSON.stringify(type)} is not a refusal type of the contract`,
    requestIdViolation(id, headers.get('x-request-id')),
    leak(message),
  ])
}

/**
 * Each GraphQL error says its type, its status and the request id, and nothing internal. In a
 * refusal (4xx) its status is the response's own; in a 200 no error may be an internal failure.
 */
function graphqlErrorViolations(errors: unknown, { status, headers }: Received): string[] {
  if (!Array.isArray(errors) || errors.length === 0) return ['`errors` is not a non-empty array']
  return errors.flatMap((error) => {
    if (!isObject(error) || !isObject(error.extensions)) return [`an error without extensions: ${JSON.stringify(error)}`]
    const { type, status: errorStatus, requestId } = error.extensions
    const shown = JSON.stringify(error)
    return defined([
      typeof type === 'string' && type !== '' ? undefined : `an error without extensions.type: ${shown}`,
      typeof errorStatus === 'number' ? undefined : `an error without a numeric extensions.status: ${shown}`,
      status >= 400 && errorStatus !== status ? `an error's extensions.status ${errorStatus} is not the HTTP status ${status}` : undefined,
      status < 400 && (type === 'Internal' || (typeof errorStatus === 'number' && errorStatus >= 500))
        ? `an internal failure inside a ${status}: ${shown}`
        : undefined,
      requestId === undefined ? 'an error without extensions.requestId' : requestIdViolation(requestId, headers.get('x-request-id')),
      leak(error.message),
      /"stack(trace)?"/.test(shown) ? `an error carries a stack: ${shown}` : undefined,
      'originalError' in error.extensions ? `an error exposes its original error: ${shown}` : undefined,
    ])
  })
}

/**
 * Whether the Accept header lets the server answer `application/graphql-response+json`: the most
 * specific matching range decides, by its q. Undefined without an Accept header (either type is fine).
 */
export function acceptsGraphQLResponse(accept: string | undefined): boolean | undefined {
  if (accept === undefined) return undefined
  const ranges = accept.split(',').map((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase())
    const q = params.find((p) => p.startsWith('q='))
    return { type, q: q === undefined ? 1 : Number(q.slice(2)) }
  })
  for (const candidate of ['application/graphql-response+json', 'application/*', '*/*']) {
    const range = ranges.find((r) => r.type === candidate)
    if (range) return range.q > 0
  }
  return false
}

const headerOf = (request: HostileRequest, name: string) => Object.entries(request.headers).find(([key]) => key.toLowerCase() === name)?.[1]

/** A GraphQL-over-HTTP error response, in the media type the request's Accept asks for. */
function graphqlRefusalViolations(request: HostileRequest, received: Received): string[] {
  const wanted = acceptsGraphQLResponse(headerOf(request, 'accept'))
  const expected =
    wanted === undefined ? ['application/graphql-response+json', 'application/json'] : [wanted ? 'application/graphql-response+json' : 'application/json']
  const contentType = mediaType(received.headers)
  const body = parse(received.text)
  return defined([
    expected.includes(contentType) ? undefined : `a ${received.status} with content-type ${contentType || '(none)'}, expected ${expected.join(' or ')}`,
    ...(body.ok && isObject(body.value)
      ? graphqlErrorViolations(body.value.errors, received)
      : [`a ${received.status} whose body is not a GraphQL error response`]),
  ])
}

/** A result at a GraphQL endpoint: any `errors` of its JSON result(s) must be well described. */
function graphqlResultViolations(received: Received): string[] {
  if (received.text === undefined || !/json/i.test(received.headers.get('content-type') ?? '')) return []
  const body = parse(received.text)
  if (!body.ok) return [`a ${received.status} JSON response that does not parse`]
  const results = Array.isArray(body.value) ? body.value : [body.value]
  return results.flatMap((result) => (isObject(result) && 'errors' in result ? graphqlErrorViolations(result.errors, received) : []))
}

/** Everything the issue requires of the answer to a hostile request; an empty list when it holds. */
export function violations(request: HostileRequest, received: Received): string[] {
  const { status } = received
  if (status >= 500 || status < 200) return [`a ${status}`]
  const found: string[] = []
  // A Host that is no host[:port] is refused before anything else (a trusted proxy's forwarded host
  // too, but the fuzzer's peer is trusted by no one).
  // As HTTP reads it: without the spaces and tabs around it (one of blanks only is no Host at all).
  const host = headerOf(request, 'host')?.replace(/^[ \t]+|[ \t]+$/g, '')
  if (host && !isHostAndPort(host) && status !== 431) {
    if (status !== 400) return [`a Host of ${JSON.stringify(host)} answered ${status}, not 400`]
    return request.method.toUpperCase() === 'HEAD' ? [] : restErrorViolations(received)
  }
  if (status === 405 && received.headers.get('allow') === null) found.push('a 405 without an Allow header')
  // A HEAD response has no body to check (an HTTP server drops it).
  if (request.method.toUpperCase() === 'HEAD' && !received.text) return found
  if (status < 400) {
    if (request.surface === 'graphql') found.push(...graphqlResultViolations(received))
    return found
  }
  // Refused by the HTTP server before any route (headers over its limit, a method its parser does not
  // know): the one error body it has is REST's.
  if (status === 431 || !METHODS.includes(request.method.toUpperCase())) return [...found, ...restErrorViolations(received)]
  if (request.surface === 'rest') found.push(...restErrorViolations(received))
  if (request.surface === 'graphql') found.push(...graphqlRefusalViolations(request, received))
  if (request.surface === 'either') {
    const [rest] = restErrorViolations(received)
    const [graphql] = graphqlRefusalViolations(request, received)
    if (rest && graphql) found.push(`neither error body: ${rest}; ${graphql}`)
  }
  return found
}

/** A lookup of ids the scope cannot read: 200, no errors, and null for every id. */
export function absentNodeViolations(received: Received): string[] {
  const body = parse(received.text)
  if (received.status !== 200 || !body.ok || !isObject(body.value)) return [`expected 200 with null nodes, got ${received.status}`]
  if ('errors' in body.value) return ['expected null nodes without errors']
  const data = body.value.data
  const nodes = isObject(data) ? ('node' in data ? [data.node] : data.nodes) : undefined
  return Array.isArray(nodes) && nodes.every((node) => node === null) ? [] : [`expected null nodes, got ${JSON.stringify(data)}`]
}
