import { Response } from '@whatwg-node/fetch'
import type { Failure } from '../graphql/errors.ts'

/** The error body of every REST failure (contract: Error body). */
export interface ErrorBody {
  id: string
  code: number
  type: string
  message: string
}

/**
 * whatwg-node's Response, the one the node adapter writes without streaming: its JSON body is a
 * string and plain-object headers go out in one writeHead (a global Response is pumped through a
 * ReadableStream chunk by chunk).
 */
export const json = (status: number, body: unknown, headers?: Record<string, string>): Response => jsonText(status, JSON.stringify(body), headers)

/** A JSON answer already serialised (measured on the way: http/rest.ts). */
export const jsonText = (status: number, text: string, headers?: Record<string, string>): Response =>
  new Response(text, { status, headers: { 'content-type': 'application/json', 'x-content-type-options': 'nosniff', ...headers } })

/** Botpress' clients (the web chat among them) recognise an error body by the `err_` prefix of its id. */
export const errorId = (requestId: string): string => `err_${requestId}`

export const errorResponse = (requestId: string, { status, type, message, headers }: Failure): Response =>
  json(status, { id: errorId(requestId), code: status, type, message } satisfies ErrorBody, {
    ...headers,
    'x-request-id': requestId,
  })

/**
 * Sets these headers on the response. It is done in place, never by copying the response: a copy
 * would re-wrap a streaming body, and the client's disconnect would then no longer reach it.
 */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  // A header it has already is left alone: setting any header makes whatwg-node write them one by one.
  for (const [name, value] of Object.entries(headers)) if (response.headers.get(name) !== value) response.headers.set(name, value)
  return response
}
