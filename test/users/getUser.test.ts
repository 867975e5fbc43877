import { Client, UnauthorizedError } from '@botpress/chat'
import { describe, expect, it } from 'vitest'
import { iso, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { USER_FIELDS } from '../helpers/graphql.ts'
import { expectApiError, sign, useOfficialClient } from '../helpers/listening.ts'

describe('getUser', () => {
  const t = useTestApp({ handlers: {} })

  it('REST GET /users/me returns the user the key names', async () => {
    const alice = await t.user('alice', { name: 'Alice', profile: 'p' })
    const res = await t.chat('GET', '/users/me', { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ user: { id: 'alice', name: 'Alice', profile: 'p', createdAt: iso, updatedAt: iso } })
  })

  it('GraphQL me returns the user the key names', async () => {
    const alice = await t.user('alice', { name: 'Alice', pictureUrl: 'https://pics.test/a.png' })
    const res = await t.graphql(`query { me { id ${USER_FIELDS} } }`, {}, { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      data: {
        me: {
          id: expect.any(String),
          userId: 'alice',
          name: 'Alice',
          pictureUrl: 'https://pics.test/a.png',
          profile: null,
          isBot: false,
          createdAt: alice.user.createdAt,
          updatedAt: alice.user.updatedAt,
        },
      },
    })
  })

  const getUser = { REST: (key?: string) => t.chat('GET', '/users/me', { key }), GraphQL: (key?: string) => t.graphql('query { me { userId } }', {}, { key }) }

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('Client.connect with a userKey resumes that user: getUser returns it as created, with what it owns', async () => {
      const { user, key } = await client.bare().createUser({ id: 'alice', name: 'Alice', profile: 'p' })
      const first = await Client.connect({ apiUrl: client.apiUrl, userKey: key })
      const { conversation } = await first.createConversation({})
      const resumed = await Client.connect({ apiUrl: client.apiUrl, userKey: key })
      expect(resumed.user).toEqual({ ...user, key })
      expect(await resumed.getUser({})).toEqual({ user })
      expect(await resumed.getConversation({ id: conversation.id })).toEqual({ conversation })
    })

    it('Client.connect with a userKey that is not a valid key fails with UnauthorizedError', async () => {
      for (const userKey of ['not-a-jwt', await sign({ id: 'dave' }, 'another-secret')]) {
        await expectApiError(Client.connect({ apiUrl: client.apiUrl, userKey }), UnauthorizedError, 401, 'Unauthorized')
      }
    })
  })

  describeAccess(t, 'me', getUser, () => [], { rules: ['no key', 'unknown user'] })
})
