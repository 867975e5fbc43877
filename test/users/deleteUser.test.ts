import { UnauthorizedError } from '@botpress/chat'
import { describe, expect, it } from 'vitest'
import { errorBody, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { fieldError } from '../helpers/graphql.ts'
import { expectApiError, useOfficialClient } from '../helpers/listening.ts'
import { TRANSPORTS } from '../helpers/transports.ts'

const DELETE_USER = 'mutation { deleteUser { userId } }'

describe('deleteUser', () => {
  const t = useTestApp({ handlers: {} })
  const deleteUser = {
    REST: (key?: string) => t.chat('DELETE', '/users/me', { key, body: {} }),
    GraphQL: (key?: string) => t.graphql(DELETE_USER, {}, { key }),
  }
  const answers = { REST: {}, GraphQL: { data: { deleteUser: { userId: 'alice' } } } }

  describe.each(TRANSPORTS)('%s', (transport) => {
    it('deletes the user, whose key then opens nothing', async () => {
      const alice = await t.user('alice')
      const res = await deleteUser[transport](alice.key)
      expect(res.status).toBe(200)
      expect(res.body).toEqual(answers[transport])
      for (const [method, path] of [
        ['GET', '/users/me'],
        ['GET', '/conversations'],
        ['PUT', '/users/me'],
      ] as const) {
        const after = await t.chat(method, path, { key: alice.key, body: method === 'PUT' ? {} : undefined })
        expect({ status: after.status, body: after.body }).toEqual({ status: 401, body: errorBody(401, 'Unauthorized') })
      }
      expect((await t.graphql('query { me { userId } }', {}, { key: alice.key })).body).toEqual(fieldError('Unauthorized', 401, ['me']))
      expect(await t.count("select count(*) as n from users where id = 'alice'")).toBe(0)
    })

    it('deletes the conversations it owns, whole, and its messages and participations elsewhere', async () => {
      const alice = await t.user('alice')
      const bob = await t.user('bob')
      await t.conversation(alice.key, 'owned', ['bob'])
      await t.conversation(bob.key, 'theirs', ['alice'])
      await t.message(bob.key, 'owned')
      await t.event(bob.key, 'owned')
      await t.message(alice.key, 'theirs', { type: 'text', text: 'from alice' })
      const kept = await t.message(bob.key, 'theirs', { type: 'text', text: 'from bob' })
      expect((await deleteUser[transport](alice.key)).status).toBe(200)

      const owned = await t.chat('GET', '/conversations/owned', { key: bob.key })
      expect({ status: owned.status, body: owned.body }).toEqual({ status: 404, body: errorBody(404, 'ResourceNotFound') })
      expect((await t.chat('GET', '/conversations', { key: bob.key })).body.conversations.map((c: { id: string }) => c.id)).toEqual(['theirs'])
      for (const table of ['messages', 'events', 'participants']) {
        expect(await t.count(`select count(*) as n from ${table} where conversation_id = 'owned'`)).toBe(0)
      }
      expect(await t.messageIds(bob.key, 'theirs')).toEqual([kept.id])
      expect(await t.participantIds(bob.key, 'theirs')).toEqual(['bob'])
      expect(await t.count("select count(*) as n from messages where user_id = 'alice'")).toBe(0)
    })
  })

  it('REST accepts a request without a body', async () => {
    const alice = await t.user('alice')
    const res = await t.chat('DELETE', '/users/me', { key: alice.key })
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: {} })
  })

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('answers {}, and the key is then refused with UnauthorizedError', async () => {
      const alice = await client.connect('alice')
      expect(await alice.deleteUser({})).toEqual({})
      await expectApiError(alice.getUser({}), UnauthorizedError, 401, 'Unauthorized')
      await expectApiError(alice.createConversation({}), UnauthorizedError, 401, 'Unauthorized')
    })
  })

  describeAccess(t, 'deleteUser', deleteUser, () => [], { rules: ['no key', 'unknown user'] })
})
