/** The error types of @botpress/chat, with the HTTP status each one travels with. */
export const errorStatus = {
  InvalidPayload: 400,
  Unauthorized: 401,
  Forbidden: 403,
  ResourceNotFound: 404,
  MethodNotFound: 405,
  AlreadyExists: 409,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  RateLimited: 429,
  Internal: 500,
} as const

export type ErrorType = keyof typeof errorStatus

/** An expected failure: its message is safe to show to the caller. */
export class DomainError extends Error {
  constructor(
    readonly type: ErrorType,
    message: string,
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
export const notFound = (entity: string, id: string) =>
  new DomainError('ResourceNotFound', `${entity} "${id}" does not exist`)
export const alreadyExists = (entity: string, id: string) =>
  new DomainError('AlreadyExists', `${entity} "${id}" already exists`)
