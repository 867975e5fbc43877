import { expect } from 'vitest'
import { errorBody, type JsonResponse } from './app.ts'
import { fieldError, requestError } from './graphql.ts'

/** The two ways to call a chat operation: its REST route and its GraphQL field. */
export const TRANSPORTS = ['REST', 'GraphQL'] as const
export type Transport = (typeof TRANSPORTS)[number]

/**
 * A refusal as each transport maps it: REST answers the status with the contract's JSON error body;
 * GraphQL answers HTTP 200 with the error on the field at `path` and no data, or, for a request
 * refused as a whole (`path` null: its user key, its webhook id), the status itself with the error
 * and no data at all.
 */
export function expectRefusal(
  res: JsonResponse,
  transport: Transport,
  code: number,
  type: string,
  path: (string | number)[] | null,
  /** The REST message, where the test says it (the caller's words: field path, what was expected). */
  message?: string | RegExp,
) {
  if (transport === 'REST') {
    const expected = message === undefined ? expect.any(String) : typeof message === 'string' ? message : expect.stringMatching(message)
    expect({ status: res.status, contentType: res.headers.get('content-type'), body: res.body }).toEqual({
      status: code,
      contentType: 'application/json',
      body: { ...errorBody(code, type), message: expected },
    })
  } else if (path === null) {
    expect({ status: res.status, body: res.body }).toEqual({ status: code, body: requestError(type, code) })
  } else {
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: fieldError(type, code, path) })
  }
}
