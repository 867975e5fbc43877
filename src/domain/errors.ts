import { databaseUnavailability } from '../db/unavailable.ts'
import { WriteConflict } from '../db/write-conflict.ts'

/** The error types of @botpress/chat, with the HTTP status each one travels with. */
export const errorStatus = {
  InvalidPayload: 400,
  Unauthorized: 401,
  Forbidden: 403,
  ResourceNotFound: 404,
  MethodNotFound: 405,
  // Only GraphQL content negotiation refuses with it; @botpress/chat has no such type.
  NotAcceptable: 406,
  AlreadyExists: 409,
  PayloadTooLarge: 413,
  // Botpress' type for a hard limit: here, an answer over RESPONSE_MAX_BYTES (after PayloadTooLarge: 413 alone reads as that).
  LimitExceeded: 413,
  UnsupportedMediaType: 415,
  RateLimited: 429,
  Internal: 500,
  // The request cannot be served now, and may be later (Retry-After): the instance is stopping, or the
  // database cannot be reached. @botpress/chat and @botpress/client have no such type: they surface it
  // as an UnknownError whose message carries this message, type and code (docs/reference/errors.md).
  Unavailable: 503,
  // The database has no room left (a full disk).
  InsufficientStorage: 507,
} as const

export type ErrorType = keyof typeof errorStatus

/**
 * The one error type of an expected failure, whichever layer finds it (a verb's rule, a key that does
 * not verify, a body over its limit, a path with no route): its message is safe to show to the caller,
 * and its type says the HTTP status it travels with.
 */
export class DomainError extends Error {
  constructor(
    readonly type: ErrorType,
    message: string,
    /** Response headers the refusal needs (`Allow` on a 405). */
    readonly headers?: Record<string, string>,
  ) {
    super(message)
    this.name = `${type}Error`
  }

  get status(): number {
    return errorStatus[this.type]
  }
}

export const invalidPayload = (message: string) => new DomainError('InvalidPayload', message)
export const unauthorized = (message: string) => new DomainError('Unauthorized', message)
export const forbidden = (message: string) => new DomainError('Forbidden', message)
export const notFound = (entity: string, id: string) => new DomainError('ResourceNotFound', `${entity} "${id}" does not exist`)
/**
 * What is not the caller's to see is answered as what does not exist (the same type, status and
 * words): a 403 for "exists, not yours" beside a 404 for "no such thing" would tell a stranger which
 * ids exist. `entity` and `id` name the thing the caller asked for.
 */
export const hiddenAs =
  (entity: string, id: string) =>
  (error: unknown): never => {
    if (error instanceof DomainError && error.type === 'ResourceNotFound') throw notFound(entity, id)
    throw error
  }
export const alreadyExists = (entity: string, id: string) => new DomainError('AlreadyExists', `${entity} "${id}" already exists`)

/** The error type that travels with an HTTP status; a status without one of its own is a bad request. */
export const errorTypeOf = (status: number): ErrorType =>
  (Object.entries(errorStatus).find(([, code]) => code === status)?.[0] as ErrorType | undefined) ?? (status >= 500 ? 'Internal' : 'InvalidPayload')

/** A write that lost a race with another instance's (db/write-conflict.ts) as the failure it is, 404 or 409; else undefined. */
export const writeConflictError = (error: unknown): DomainError | undefined =>
  error instanceof WriteConflict ? new DomainError(error.kind === 'gone' ? 'ResourceNotFound' : 'AlreadyExists', error.message) : undefined

/** Seconds a client is told to wait (Retry-After) before it tries again while the database is away or full. */
export const unavailableRetryAfterSeconds = 1

/**
 * A storage failure that is the database's, not the request's (db/unavailable.ts), as the failure it
 * is: 503 Unavailable while the database cannot be reached, 507 InsufficientStorage when it
 * is full, each with Retry-After; else undefined. A write so answered may have committed (the
 * database went away while its commit was under way): a client retries it with the ids it chose.
 */
export function unavailableError(error: unknown): DomainError | undefined {
  const unavailability = databaseUnavailability(error)
  if (!unavailability) return undefined
  const headers = { 'retry-after': String(unavailableRetryAfterSeconds) }
  return unavailability === 'full'
    ? new DomainError('InsufficientStorage', `the database has no space left; retry in ${unavailableRetryAfterSeconds} s`, headers)
    : new DomainError('Unavailable', `the database is unavailable; retry in ${unavailableRetryAfterSeconds} s`, headers)
}

/**
 * Whether a write failed because what it is about was deleted meanwhile (a 404, or a race another
 * instance won: WriteConflict `gone`): the expected end of a bot's answer to a deleted conversation.
 */
export const isGone = (error: unknown): boolean =>
  (error instanceof DomainError && error.type === 'ResourceNotFound') || (error instanceof WriteConflict && error.kind === 'gone')
