import { AlreadyExistsError, ChatClientError, Client, InvalidPayloadError } from '@botpress/chat'
import { decodeProtectedHeader } from 'jose'
import { describe, expect, it } from 'vitest'
import { CLIENT_ID, iso, useTestApp, WEBHOOK_ID } from '../helpers/app.ts'
import { USER_FIELDS } from '../helpers/graphql.ts'
import { INVALID_IDS, invalidIdWords, LONGEST_ID } from '../helpers/ids.ts'
import { expectApiError, useOfficialClient, verifiedClaims, withoutKey } from '../helpers/listening.ts'
import { expectRefusal, TRANSPORTS } from '../helpers/transports.ts'

const CREATE_USER = /* GraphQL */ `
  mutation ($input: CreateUserInput!) { createUser(input: $input) { user { ${USER_FIELDS} } key } }
`

describe('createUser', () => {
  const t = useTestApp({ handlers: {} })
  const createUser = {
    REST: (body: object) => t.chat('POST', '/users', { body }),
    GraphQL: (input: object) => t.graphql(CREATE_USER, { input }),
  }
  const humans = () => t.count('select count(*) as n from users where not is_bot')

  describe('REST POST /users', () => {
    it('creates the user with the chosen id and profile, without a key, and returns an HS256 key naming it', async () => {
      const res = await createUser.REST({ id: 'dave', name: 'Dave', pictureUrl: 'https://pics.test/dave.png', profile: '{"plan":"pro"}' })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({
        user: { id: 'dave', name: 'Dave', pictureUrl: 'https://pics.test/dave.png', profile: '{"plan":"pro"}', createdAt: iso, updatedAt: iso },
        key: expect.any(String),
      })
      expect(res.body.user.updatedAt).toBe(res.body.user.createdAt)
      expect(decodeProtectedHeader(res.body.key).alg).toBe('HS256')
      expect(await verifiedClaims(res.body.key)).toEqual({ alg: 'HS256', id: 'dave' })
      expect(await t.me(res.body.key)).toEqual(res.body.user)
    })

    it('generates an id when none is given, a new one for every user, and leaves the absent profile fields out', async () => {
      const res = await createUser.REST({})
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ user: { id: expect.stringMatching(CLIENT_ID), createdAt: iso, updatedAt: iso }, key: expect.any(String) })
      expect((await createUser.REST({})).body.user.id).not.toBe(res.body.user.id)
      expect(await t.me(res.body.key)).toEqual(res.body.user)
    })

    it.each([
      ['a property the operation does not take', { id: 'dave', isBot: true }, 'the request body has a property "isBot" that this operation does not take'],
      ['a name that is not a string', { id: 'dave', name: 5 }, 'name: expected a string, got the number 5'],
    ])('refuses a body with %s with 400 InvalidPayload, saying so, creating nobody', async (_what, body, message) => {
      expectRefusal(await createUser.REST(body), 'REST', 400, 'InvalidPayload', null, message)
      expect(await humans()).toBe(0)
    })
  })

  describe('GraphQL createUser', () => {
    it('creates the user with the chosen id and profile, without a key, and returns a key that opens it', async () => {
      const res = await createUser.GraphQL({ id: 'dave', name: 'Dave', pictureUrl: 'https://pics.test/d.png', profile: '{"a":1}' })
      expect(res.status).toBe(200)
      const user = { userId: 'dave', name: 'Dave', pictureUrl: 'https://pics.test/d.png', profile: '{"a":1}', isBot: false, createdAt: iso, updatedAt: iso }
      expect(res.body).toEqual({ data: { createUser: { user, key: expect.any(String) } } })
      const { key } = res.body.data.createUser
      expect(await verifiedClaims(key)).toEqual({ alg: 'HS256', id: 'dave' })
      const me = await t.graphql(`query { me { ${USER_FIELDS} } }`, {}, { key })
      expect(me.body).toEqual({ data: { me: res.body.data.createUser.user } })
    })

    it('generates an id when none is given and leaves the profile null', async () => {
      const res = await createUser.GraphQL({})
      expect(res.body.data.createUser.user).toEqual({
        userId: expect.stringMatching(CLIENT_ID),
        name: null,
        pictureUrl: null,
        profile: null,
        isBot: false,
        createdAt: iso,
        updatedAt: iso,
      })
    })
  })

  describe.each(TRANSPORTS)('%s: the id', (transport) => {
    const userId = (res: { body: any }) => (transport === 'REST' ? res.body.user.id : res.body.data.createUser.user.userId)

    it('accepts 64 characters of every allowed class', async () => {
      const res = await createUser[transport]({ id: LONGEST_ID })
      expect(res.status).toBe(200)
      expect(userId(res)).toBe(LONGEST_ID)
    })

    it('refuses an id that exists with 409 AlreadyExists, leaving that user as it was', async () => {
      const alice = await t.user('alice', { name: 'Alice' })
      expectRefusal(await createUser[transport]({ id: 'alice', name: 'Impostor' }), transport, 409, 'AlreadyExists', ['createUser'])
      expect(await t.me(alice.key)).toEqual(alice.user)
      expect(await humans()).toBe(1)
    })

    it.each(INVALID_IDS)('refuses an id that is %s with 400 InvalidPayload, creating nobody', async (_what, id) => {
      expectRefusal(await createUser[transport]({ id }), transport, 400, 'InvalidPayload', ['createUser'], invalidIdWords('id', id))
      expect(await humans()).toBe(0)
    })
  })

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('creates the user with the given id and profile, with a key signed for it', async () => {
      const created = await client.bare().createUser({ id: 'alice', name: 'Alice', pictureUrl: 'https://pics.test/alice.png', profile: 'likes:cats' })
      expect(created).toEqual({
        user: { id: 'alice', name: 'Alice', pictureUrl: 'https://pics.test/alice.png', profile: 'likes:cats', createdAt: iso, updatedAt: iso },
        key: expect.any(String),
      })
      expect(await verifiedClaims(created.key)).toEqual({ alg: 'HS256', id: 'alice' })
    })

    it('generates a new id for every user created without one, leaving absent fields out', async () => {
      const first = await client.bare().createUser({})
      expect(first).toEqual({ user: { id: expect.stringMatching(CLIENT_ID), createdAt: iso, updatedAt: iso }, key: expect.any(String) })
      expect((await client.bare().createUser({})).user.id).not.toBe(first.user.id)
    })

    it('Client.connect without a user has the server create one and holds the key it returned', async () => {
      const connected = await Client.connect({ apiUrl: client.apiUrl })
      expect(connected.user).toEqual({ id: expect.stringMatching(CLIENT_ID), createdAt: iso, updatedAt: iso, key: expect.any(String) })
      expect(await verifiedClaims(connected.user.key)).toEqual({ alg: 'HS256', id: connected.user.id })
      expect(await connected.getUser({})).toEqual({ user: withoutKey(connected.user) })
    })

    it('Client.connect with a userId creates that user, and fails with AlreadyExistsError once it is taken', async () => {
      const connected = await Client.connect({ apiUrl: client.apiUrl, userId: 'alice' })
      expect(connected.user).toEqual({ id: 'alice', createdAt: iso, updatedAt: iso, key: expect.any(String) })
      expect(await verifiedClaims(connected.user.key)).toEqual({ alg: 'HS256', id: 'alice' })
      await expectApiError(Client.connect({ apiUrl: client.apiUrl, userId: 'alice' }), AlreadyExistsError, 409, 'AlreadyExists')
    })

    it('Client.connect takes a webhookId with a baseApiUrl in place of the apiUrl', async () => {
      const connected = await Client.connect({ webhookId: WEBHOOK_ID, baseApiUrl: client.baseUrl, userId: 'erin' })
      expect(connected.user.id).toBe('erin')
      expect(await connected.getUser({})).toEqual({ user: withoutKey(connected.user) })
    })

    it('Client.connect fails for a webhook id the server does not know', async () => {
      await expect(Client.connect({ apiUrl: `${client.baseUrl}/no-such-webhook` })).rejects.toBeInstanceOf(ChatClientError)
    })

    it('reports an invalid id as InvalidPayloadError', async () => {
      await expectApiError(client.bare().createUser({ id: 'not valid!' }), InvalidPayloadError, 400, 'InvalidPayload')
    })
  })
})
