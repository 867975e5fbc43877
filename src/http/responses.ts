/** The error body of every REST failure (contract: Error body). */
export interface ErrorBody {
  id: string
  code: number
  type: string
  message: string
}

export const json = (status: number, body: unknown, headers?: HeadersInit): Response =>
  Response.json(body, { status, headers })

export const errorResponse = (requestId: string, status: number, type: string, message: string): Response =>
  json(status, { id: requestId, code: status, type, message } satisfies ErrorBody, { 'x-request-id': requestId })

/** A failure found while reading the HTTP request itself, before any operation runs. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message)
  }
}

/**
 * Sets these headers on the response. It is done in place, never by copying the response: a copy
 * would re-wrap a streaming body, and the client's disconnect would then no longer reach it.
 */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value)
  return response
}
