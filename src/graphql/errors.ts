import { GraphQLError } from 'graphql'
import type { Logger } from 'pino'
import { DomainError, type ErrorType, errorTypeOf, unavailableError, writeConflictError } from '../domain/errors.ts'

/** How a failure is told over any transport: the contract's type, its HTTP status and a safe message. */
export interface Failure {
  type: ErrorType
  status: number
  message: string
  /** Response headers the refusal needs (`Allow` on a 405). */
  headers?: Record<string, string>
}

const internal: Failure = { type: 'Internal', status: 500, message: 'an internal error occurred' }

export const requestTimeoutMessage = 'the request did not arrive in time (HTTP_REQUEST_TIMEOUT_SECONDS)'

/**
 * A request whose body did not arrive within HTTP_REQUEST_TIMEOUT_SECONDS: node fails the body's read
 * with ERR_HTTP_REQUEST_TIMEOUT (http/wire-refusals.ts), which reaches here as it is, or as the cause
 * of what the body's reader (whatwg-node, yoga) threw. 408, as node's own refusal of slow headers.
 */
function requestTimedOut(error: unknown): Failure | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 4; depth++) {
    if ((cause as NodeJS.ErrnoException).code === 'ERR_HTTP_REQUEST_TIMEOUT') return { type: 'InvalidPayload', status: 408, message: requestTimeoutMessage }
    cause = cause instanceof GraphQLError ? cause.originalError : cause.cause
  }
  return undefined
}

const httpStatusOf = (error: GraphQLError): number | undefined => (error.extensions.http as { status?: number } | undefined)?.status

/**
 * What an error says to the caller, or undefined when it is unexpected: a DomainError (raised by
 * a verb, or wrapped by GraphQL around one), a write that lost a race with another instance's
 * (WriteConflict), a GraphQL error that already carries its type, or an error of the GraphQL
 * request itself (syntax, validation, variables, the HTTP request yoga parsed).
 */
function expectedFailure(error: unknown): Failure | undefined {
  if (error instanceof DomainError) {
    return { type: error.type, status: error.status, message: error.message, headers: error.headers }
  }
  const conflict = writeConflictError(error)
  if (conflict) return expectedFailure(conflict)
  if (!(error instanceof GraphQLError)) {
    const unavailable = unavailableError(error)
    return unavailable ? expectedFailure(unavailable) : requestTimedOut(error)
  }
  const { type, status } = error.extensions
  if (typeof type === 'string' && typeof status === 'number') {
    // A refusal's own headers (a 429's Retry-After) travel with it to a REST error body too: on the HTTP
    // refusal, or kept by a field's error as its cause (a field's extensions would show them to the client).
    const headers =
      (error.extensions.http as { headers?: Record<string, string> } | undefined)?.headers ??
      (error.originalError instanceof DomainError ? error.originalError.headers : undefined)
    return { type: type as ErrorType, status, message: error.message, ...(headers && { headers }) }
  }
  if (error.originalError instanceof DomainError || writeConflictError(error.originalError)) return expectedFailure(error.originalError)
  const unavailable = error.originalError && unavailableError(error.originalError)
  if (unavailable) return expectedFailure(unavailable)
  if (error.originalError && !(error.originalError instanceof GraphQLError)) return requestTimedOut(error.originalError)
  const requestStatus = httpStatusOf(error) ?? 400
  if (requestStatus >= 500) return undefined
  return { type: errorTypeOf(requestStatus), status: requestStatus, message: error.message }
}

/** A new error at the place of `base` in the operation (its nodes or positions, and its path), saying `message` with `extensions`. */
export function errorAt(base: GraphQLError | undefined, message: string, extensions: GraphQLError['extensions'], originalError?: Error): GraphQLError {
  return new GraphQLError(message, {
    nodes: base?.nodes,
    source: base?.source,
    positions: base?.positions,
    path: base?.path,
    originalError,
    extensions,
  })
}

/** A failure as a GraphQL error; `refusesRequest` makes the whole HTTP response carry its status. */
export function failureToGraphQLError(failure: Failure, refusesRequest: boolean, base?: GraphQLError): GraphQLError {
  return errorAt(
    base,
    failure.message,
    {
      type: failure.type,
      status: failure.status,
      // A refusal's headers (a 503's Retry-After) go on the HTTP response, as a 429's do.
      ...(refusesRequest || failure.status >= 500 ? { http: { status: failure.status, ...(failure.headers && { headers: failure.headers }) } } : {}),
    },
    failure.headers && new DomainError(failure.type, failure.message, failure.headers),
  )
}

/**
 * A request its client gave up on: the connection closed while its body was read (node's
 * "aborted") or while it was served (its signal's AbortError). No one is left to answer, and the
 * server did nothing wrong: that is not an error to log, or a load test's end would fill the log.
 */
const clientWentAway = (cause: unknown): boolean =>
  cause instanceof Error && (cause.name === 'AbortError' || (cause.message === 'aborted' && (cause as NodeJS.ErrnoException).code === 'ECONNRESET'))

/**
 * The one error path of the server. Every transport (REST, GraphQL over HTTP, graphql-sse, WebSocket)
 * turns what was thrown into a Failure through `describe`, and yoga's masking goes through `mask`: an
 * expected error keeps its message and gains its type and status; anything else becomes a masked
 * Internal error (no stack, SQL or internal message leaves the server) whose cause is logged exactly
 * once, with the request id, by whichever transport reports it.
 */
export function createErrorPath(log: Logger) {
  // Masked errors waiting to be reported, with what caused them.
  const causes = new WeakMap<object, unknown>()

  const mask = (error: unknown): GraphQLError => {
    if (error instanceof GraphQLError && causes.has(error)) return error
    const failure = expectedFailure(error)
    if (failure) {
      // An error already in its final form passes unchanged (yoga masks some errors twice).
      if (error instanceof GraphQLError && error.extensions.type === failure.type) return error
      // A refused request (yoga's HTTP checks, a context that cannot be made) keeps its HTTP status as it was.
      if (error instanceof GraphQLError && error.extensions.http) {
        // Yoga may describe the cause in `originalError`: the message says enough.
        const { originalError: _cause, ...extensions } = error.extensions
        return errorAt(error, failure.message, { ...extensions, type: failure.type, status: failure.status })
      }
      return failureToGraphQLError(failure, false, error instanceof GraphQLError ? error : undefined)
    }
    // Only the path: where in the operation the server failed, nothing of how.
    const masked = new GraphQLError('Unexpected error.', {
      path: error instanceof GraphQLError ? error.path : undefined,
      extensions: { type: internal.type, status: internal.status, http: { status: internal.status } },
    })
    causes.set(masked, error instanceof GraphQLError ? (error.originalError ?? error) : error)
    return masked
  }

  /** Logs the cause of a masked error once, naming the request; a no-op for expected errors. */
  const report = (error: unknown, requestId: string): void => {
    if (typeof error !== 'object' || error === null || !causes.has(error)) return
    const cause = causes.get(error)
    causes.delete(error)
    if (clientWentAway(cause)) log.debug({ requestId }, 'the client went away before its answer')
    else log.error({ err: cause, requestId }, 'unexpected error')
  }

  /** What the caller is told of anything thrown while serving request `requestId`. */
  const describe = (error: unknown, requestId: string): Failure => {
    const failure = expectedFailure(error)
    if (failure) return failure
    const masked = mask(error)
    report(masked, requestId)
    return expectedFailure(masked) ?? internal
  }

  return { mask, report, describe }
}

export type ErrorPath = ReturnType<typeof createErrorPath>
