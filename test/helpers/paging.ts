import { expect } from 'vitest'
import type { JsonResponse } from './app.ts'
import { expectRefusal, type Transport } from './transports.ts'

/** A token in the form lists issue (base64url JSON), as if another list had issued it. */
export const foreignToken = (list: string) => Buffer.from(JSON.stringify([list, 'a', 'b'])).toString('base64url')

/** A token the list issued, spoiled in every way that matters. */
const spoiled = (token: string, foreign: string): [string, string][] => [
  ['altered', `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`],
  ['with bytes appended', `${token}xyz`],
  ['cut short', token.slice(0, Math.floor(token.length / 2))],
  ['made up', 'not-a-next-token'],
  ['of other JSON', Buffer.from('{"after":"p05"}').toString('base64url')],
  ['issued by another list', foreign],
]

/**
 * Asks for the page after each spoiled form of `token` (a REST nextToken or a GraphQL cursor):
 * every one is refused with 400 InvalidPayload, as the transport maps it.
 */
export async function expectSpoiledTokensRefused(
  token: string,
  foreign: string,
  page: (token: string) => Promise<JsonResponse>,
  transport: Transport,
  path: (string | number)[],
) {
  expect(token).toEqual(expect.any(String))
  for (const [what, bad] of spoiled(token, foreign)) {
    const res = await page(bad)
    try {
      expectRefusal(res, transport, 400, 'InvalidPayload', path)
    } catch (error) {
      throw new Error(`a token ${what} (${bad}): ${(error as Error).message}`)
    }
  }
}

/** Every page of a REST list, following meta.nextToken until it is absent. */
export async function allPages<T = { id: string }>(list: (nextToken?: string) => Promise<JsonResponse>, field: string) {
  const pages: { items: T[]; meta: { nextToken?: string } }[] = []
  let nextToken: string | undefined
  do {
    const res = await list(nextToken)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    pages.push({ items: res.body[field], meta: res.body.meta })
    nextToken = res.body.meta.nextToken
    if (pages.length > 60) throw new Error('the list never stops paging')
  } while (nextToken !== undefined)
  return pages
}

/** A REST list path with its nextToken, when there is one. */
export const withToken = (path: string, nextToken?: string) =>
  nextToken === undefined ? path : `${path}${path.includes('?') ? '&' : '?'}nextToken=${encodeURIComponent(nextToken)}`
