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

/** The response with these headers set, copied only when one of them is missing or differs. */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  const missing = Object.entries(headers).filter(([name, value]) => response.headers.get(name) !== value)
  if (missing.length === 0) return response
  const merged = new Headers(response.headers)
  for (const [name, value] of missing) merged.set(name, value)
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged })
}
