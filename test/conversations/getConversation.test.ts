import { ResourceNotFoundError } from '@botpress/chat'
import { describe, expect, it } from 'vitest'
import { iso, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { expectApiError, useOfficialClient } from '../helpers/listening.ts'

const CONVERSATION = /* GraphQL */ `
  query ($id: String!) { conversation(id: $id) { id conversationId createdAt updatedAt owner { userId } } }
`

describe('getConversation', () => {
  const t = useTestApp({ handlers: {} })
  const getConversation = {
    REST: (key: string | undefined, id: string) => t.chat('GET', `/conversations/${id}`, { key }),
    GraphQL: (key: string | undefined, id: string) => t.graphql(CONVERSATION, { id }, { key }),
  }

  it('REST GET /conversations/{id} returns the conversation, as created, to every participant', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    const created = await t.chat('POST', '/conversations', { key: alice.key, body: { id: 'c1' } })
    await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })
    for (const key of [alice.key, bob.key]) {
      const res = await getConversation.REST(key, 'c1')
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ conversation: { id: 'c1', createdAt: iso, updatedAt: iso } })
      expect(res.body).toEqual(created.body)
    }
  })

  it('GraphQL conversation(id) reads the conversation and its owner, for every participant', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
    const { createdAt, updatedAt } = (await t.chat('GET', '/conversations/c1', { key: alice.key })).body.conversation
    for (const key of [alice.key, bob.key]) {
      const res = await getConversation.GraphQL(key, 'c1')
      expect(res.body).toEqual({
        data: { conversation: { id: expect.any(String), conversationId: 'c1', createdAt, updatedAt, owner: { userId: 'alice' } } },
      })
    }
  })

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('returns the conversation to every participant, and answers a non-participant as for no such conversation (ResourceNotFoundError)', async () => {
      const alice = await client.connect('alice')
      const bob = await client.connect('bob')
      const mallory = await client.connect('mallory')
      const conversation = await client.conversationOf(alice, 'c1', bob)
      expect(await alice.getConversation({ id: 'c1' })).toEqual({ conversation })
      expect(await bob.getConversation({ id: 'c1' })).toEqual({ conversation })
      await expectApiError(mallory.getConversation({ id: 'c1' }), ResourceNotFoundError, 404, 'ResourceNotFound')
    })
  })

  describeAccess(t, 'conversation', getConversation, ({ conversationId }) => [conversationId])
})
