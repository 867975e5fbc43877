import { UnauthorizedError } from '@botpress/chat'
import { describe, expect, it } from 'vitest'
import { type Actor, iso, type TestApp, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { INVALID_IDS, LONGEST_ID } from '../helpers/ids.ts'
import { expectApiError, sign, useOfficialClient, verifiedClaims, withoutKey } from '../helpers/listening.ts'
import { expectRefusal, TRANSPORTS } from '../helpers/transports.ts'

const GET_OR_CREATE_USER = /* GraphQL */ `
  mutation ($input: GetOrCreateUserInput!) {
    getOrCreateUser(input: $input) { user { id userId name pictureUrl profile createdAt updatedAt } }
  }
`

type Chat = Pick<TestApp, 'chat' | 'graphql'>

/** getOrCreateUser over each transport, for the user `key` names, in this app or through another integration's `chat`. */
const getOrCreateUser = {
  REST: (app: Chat, key: string | undefined, profile?: object) => app.chat('POST', '/users/get-or-create', { key, body: profile }),
  GraphQL: (app: Chat, key: string | undefined, profile: object = {}) => app.graphql(GET_OR_CREATE_USER, { input: profile }, { key }),
}

/** The user a transport answered with, in the REST shape (absent fields left out). */
const answered = {
  REST: (res: { body: any }) => res.body.user,
  GraphQL: (res: { body: any }) => {
    const { id: _, userId, ...fields } = res.body.data.getOrCreateUser.user
    return Object.fromEntries([['id', userId], ...Object.entries(fields).filter(([, value]) => value !== null)])
  },
}

describe('getOrCreateUser', () => {
  const t = useTestApp({ handlers: {} })

  describe('REST POST /users/get-or-create', () => {
    it('creates the user the key names with every profile field of the body; the key then opens the API', async () => {
      const key = await t.keyFor('alice')
      const res = await getOrCreateUser.REST(t, key, { name: 'Alice', pictureUrl: 'https://pics.test/alice.png', profile: '{"tier":"gold"}' })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({
        user: { id: 'alice', name: 'Alice', pictureUrl: 'https://pics.test/alice.png', profile: '{"tier":"gold"}', createdAt: iso, updatedAt: iso },
      })
      expect((await t.chat('POST', '/conversations', { key, body: { id: 'c1' } })).status).toBe(200)
    })

    it.each([
      ['an empty body', {}, {}],
      ['no body at all', undefined, {}],
      ['a name alone', { name: 'Dave' }, { name: 'Dave' }],
    ])('creates the user from %s, leaving the absent fields out instead of sending null', async (_what, body, fields) => {
      const res = await getOrCreateUser.REST(t, await t.keyFor('dave'), body)
      expect(res.status).toBe(200)
      expect(res.body).toStrictEqual({ user: { id: 'dave', ...fields, createdAt: iso, updatedAt: iso } })
    })

    it.each([
      ['name', { name: 5 }, 'name: expected a string, got the number 5'],
      ['pictureUrl', { pictureUrl: true }, 'pictureUrl: expected a string, got true'],
      ['profile', { profile: { tier: 'gold' } }, 'profile: expected a string, got an object'],
    ])('refuses a %s of the wrong type with 400 InvalidPayload, naming it, and creates no user', async (_field, body, message) => {
      const key = await t.keyFor('erin')
      expectRefusal(await getOrCreateUser.REST(t, key, body), 'REST', 400, 'InvalidPayload', null, message)
      expect(await t.count("select count(*) as n from users where id = 'erin'")).toBe(0)
      expect((await getOrCreateUser.REST(t, key, { name: 'Erin' })).body.user).toEqual({ id: 'erin', name: 'Erin', createdAt: iso, updatedAt: iso })
    })
  })

  describe('GraphQL getOrCreateUser', () => {
    it('creates the user the key names with the given profile', async () => {
      const input = { name: 'Alice', pictureUrl: 'https://example.com/alice.png', profile: '{"plan":"pro"}' }
      const res = await getOrCreateUser.GraphQL(t, await t.keyFor('alice'), input)
      expect(res.status).toBe(200)
      expect(res.body).toEqual({
        data: { getOrCreateUser: { user: { id: expect.any(String), userId: 'alice', ...input, createdAt: iso, updatedAt: iso } } },
      })
    })

    it('leaves the profile fields that are not given null', async () => {
      const res = await getOrCreateUser.GraphQL(t, await t.keyFor('bob'))
      expect(res.body.data.getOrCreateUser.user).toEqual({
        id: expect.any(String),
        userId: 'bob',
        name: null,
        pictureUrl: null,
        profile: null,
        createdAt: iso,
        updatedAt: iso,
      })
    })
  })

  describe.each(TRANSPORTS)('%s', (transport) => {
    it('returns an existing user unchanged, ignoring the profile of a later call, and keeps every user its own', async () => {
      const alice = await t.user('alice', { name: 'Alice', pictureUrl: 'https://pics.test/a.png' })
      const bob = await getOrCreateUser[transport](t, await t.keyFor('bob'), { name: 'Bob' })
      const again = await getOrCreateUser[transport](t, alice.key, { name: 'Someone else', pictureUrl: 'https://pics.test/b.png', profile: 'p' })
      expect(again.status).toBe(200)
      expect(answered[transport](again)).toEqual(alice.user)
      expect(answered[transport](bob)).toEqual({ id: 'bob', name: 'Bob', createdAt: iso, updatedAt: iso })
    })

    it('keeps the users of two chat integrations apart, even under the same id', async () => {
      const here: Actor = await t.user('alice', { name: 'Alice here' })
      const other = await t.otherTenant()
      const there = await getOrCreateUser[transport](other, await other.keyFor('alice'), { name: 'Alice there' })
      expect(there.status).toBe(200)
      expect(answered[transport](there)).toEqual({ id: 'alice', name: 'Alice there', createdAt: iso, updatedAt: iso })
      expect(await t.me(here.key)).toEqual(here.user)
    })

    it('accepts a key naming a user id of 64 characters of every allowed class', async () => {
      const res = await getOrCreateUser[transport](t, await t.keyFor(LONGEST_ID))
      expect(res.status).toBe(200)
      expect(answered[transport](res).id).toBe(LONGEST_ID)
    })

    it.each(INVALID_IDS)('refuses a key naming a user id %s with 400 InvalidPayload, creating nobody', async (_what, id) => {
      expectRefusal(await getOrCreateUser[transport](t, await t.keyFor(id), { name: 'X' }), transport, 400, 'InvalidPayload', null)
      expect(await t.count('select count(*) as n from users where not is_bot')).toBe(0)
    })
  })

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('creates the user the key names with the given profile, then returns it unchanged', async () => {
      const key = await sign({ id: 'dave' })
      const created = await client.bare().getOrCreateUser({ 'x-user-key': key, name: 'Dave', pictureUrl: 'https://pics.test/d.png' })
      expect(created).toEqual({ user: { id: 'dave', name: 'Dave', pictureUrl: 'https://pics.test/d.png', createdAt: iso, updatedAt: iso } })
      expect(await client.bare().getOrCreateUser({ 'x-user-key': key, name: 'Somebody else' })).toEqual(created)
    })

    it('Client.connect with a userId and the encryption key signs its own key and gets or creates that user', async () => {
      const first = await client.connect('carol')
      expect(first.user).toEqual({ id: 'carol', createdAt: iso, updatedAt: iso, key: expect.any(String) })
      expect(await verifiedClaims(first.user.key)).toEqual({ alg: 'HS256', id: 'carol' })
      const again = await client.connect('carol')
      expect(withoutKey(again.user)).toEqual(withoutKey(first.user))
      expect(await again.getUser({})).toEqual({ user: withoutKey(first.user) })
    })

    it('reports a key signed with another secret as UnauthorizedError', async () => {
      const key = await sign({ id: 'dave' }, 'another-secret')
      await expectApiError(client.bare().getOrCreateUser({ 'x-user-key': key }), UnauthorizedError, 401, 'Unauthorized')
    })
  })

  describeAccess(t, 'getOrCreateUser', { REST: (key) => getOrCreateUser.REST(t, key, {}), GraphQL: (key) => getOrCreateUser.GraphQL(t, key) }, () => [], {
    rules: ['no key'],
  })
})
