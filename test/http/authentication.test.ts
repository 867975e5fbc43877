import { SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { ENCRYPTION_KEY, type JsonResponse, type TestApp, useC1, useTestApp } from '../helpers/app.ts'
import { expectRefusal, type Transport } from '../helpers/transports.ts'

// The user key (x-user-key): an HS256 JWT signed with the chat integration's encryption key, whose
// `id` claim names the user. Which operations need one, and for whom, is each operation's own test
// (helpers/access.ts); here are the keys that are no key at all.

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const secret = new TextEncoder().encode(ENCRYPTION_KEY)
const signed = (claims: Record<string, unknown>, alg = 'HS256', key = secret) => new SignJWT(claims).setProtectedHeader({ alg }).sign(key)

const badKeys: [string, (aliceKey: string) => Promise<string>][] = [
  ['signed with another secret', () => signed({ id: 'alice' }, 'HS256', new TextEncoder().encode('wrong-key'))],
  ['signed with HS512', () => signed({ id: 'alice' }, 'HS512')],
  ['signed with HS384', () => signed({ id: 'alice' }, 'HS384')],
  ['unsigned (alg none)', async () => `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ id: 'alice' })}.`],
  ['without an id claim', () => signed({ sub: 'alice' })],
  ['with an id claim that is a number', () => signed({ id: 42 })],
  [
    'with a tampered payload',
    async (aliceKey) => {
      const [header, , signature] = aliceKey.split('.')
      return `${header}.${b64url({ id: 'mallory' })}.${signature}`
    },
  ],
  ['that is not a JWT', async () => 'not-a-jwt'],
]

/** Calls whose user need not exist yet (getOrCreateUser), must exist (a write), and GraphQL, which checks the key first. */
const calls: [string, Transport, (t: TestApp, key: string) => Promise<JsonResponse>][] = [
  ['REST getOrCreateUser', 'REST', (t, key) => t.chat('POST', '/users/get-or-create', { key, body: { name: 'Someone' } })],
  ['REST createMessage', 'REST', (t, key) => t.chat('POST', '/messages', { key, body: { conversationId: 'c1', payload: { type: 'text', text: 'hi' } } })],
  ['GraphQL', 'GraphQL', (t, key) => t.graphql('mutation { getOrCreateUser(input: {}) { user { userId } } }', {}, { key })],
]

describe('user keys', () => {
  const t = useTestApp({ handlers: {} })
  const users = useC1(t)

  describe.each(badKeys)('a key %s', (_what, makeKey) => {
    it.each(calls)('is refused by %s with 401 Unauthorized, changing nothing', async (_call, transport, call) => {
      const before = await t.rows()
      expectRefusal(await call(t, await makeKey(users.alice.key)), transport, 401, 'Unauthorized', null)
      expect(await t.rows()).toEqual(before)
    })
  })
})
