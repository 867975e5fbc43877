import { GraphQLError } from 'graphql'
import type { Logger } from 'pino'
import { DomainError } from '../domain/errors.ts'

/** How a failed operation is described over any transport: the contract's type and HTTP status. */
export interface ErrorShape {
  type: string
  status: number
  message: string
}

/**
 * A domain error as a GraphQL error that says its type and status in `extensions`. It keeps no
 * `originalError`: an expected error is complete as it is, and yoga would count one that has a
 * non-GraphQL cause as unexpected (HTTP 500 for a refused subscription).
 */
export function domainToGraphQLError(error: DomainError, withHttpStatus = false, base?: GraphQLError): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: base?.nodes,
    source: base?.source,
    positions: base?.positions,
    path: base?.path,
    extensions: {
      type: error.type,
      status: error.status,
      ...(withHttpStatus ? { http: { status: error.status } } : {}),
    },
  })
}

/**
 * The one place errors are masked: a domain error keeps its message and gains its type and status,
 * a GraphQL error of the request (syntax, validation, variables) passes as it is, and anything else
 * is logged and replaced, so no stack, SQL or internal message leaves the server.
 */
export function createMaskError(log: Logger) {
  return (error: unknown, message: string): Error => {
    if (error instanceof GraphQLError && typeof error.extensions.type === 'string') return error
    const original = error instanceof GraphQLError ? error.originalError : error
    if (original instanceof DomainError) {
      return domainToGraphQLError(original, false, error instanceof GraphQLError ? error : undefined)
    }
    if (error instanceof GraphQLError && (!error.originalError || error.originalError instanceof GraphQLError)) {
      return error
    }
    log.error({ err: original }, 'unexpected error while executing an operation')
    return new GraphQLError(message, {
      path: error instanceof GraphQLError ? error.path : undefined,
      // A failure of the server's own is a 5xx over HTTP, as REST answers it, whatever else resolved.
      extensions: { type: 'Internal', status: 500, http: { status: 500 } },
    })
  }
}

/** Reads the type and status a (masked) GraphQL error carries; a request error without them is 400. */
export function describeGraphQLError(error: GraphQLError): ErrorShape {
  const { type, status } = error.extensions
  if (typeof type === 'string' && typeof status === 'number') return { type, status, message: error.message }
  const http = error.extensions.http as { status?: number } | undefined
  if (http?.status && http.status >= 500) return { type: 'Internal', status: 500, message: error.message }
  return { type: 'InvalidPayload', status: 400, message: error.message }
}
