import { ResourceNotFoundError } from '@botpress/chat'
import { describe, expect, it } from 'vitest'
import { errorBody, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { expectApiError, useOfficialClient } from '../helpers/listening.ts'
import { expectRefusal, TRANSPORTS } from '../helpers/transports.ts'

const DELETE_CONVERSATION = /* GraphQL */ `
  mutation ($input: DeleteConversationInput!) { deleteConversation(input: $input) { conversationId } }
`

describe('deleteConversation', () => {
  const t = useTestApp({ handlers: {} })
  const deleteConversation = {
    REST: (key: string | undefined, id: string) => t.chat('DELETE', `/conversations/${id}`, { key, body: {} }),
    GraphQL: (key: string | undefined, id: string) => t.graphql(DELETE_CONVERSATION, { input: { id } }, { key }),
  }
  const answers = { REST: {}, GraphQL: { data: { deleteConversation: { conversationId: 'c1' } } } }
  const notFound = { status: 404, body: errorBody(404, 'ResourceNotFound') }
  const outcome = async (request: Promise<{ status: number; body: unknown }>) => {
    const { status, body } = await request
    return { status, body }
  }

  describe.each(TRANSPORTS)('%s', (transport) => {
    it('lets the owner delete it whole, with its participants, messages and events', async () => {
      const alice = await t.user('alice')
      const bob = await t.user('bob')
      await t.conversation(alice.key, 'c1', ['bob'])
      await t.conversation(alice.key, 'c2')
      const message = await t.message(bob.key, 'c1')
      const event = await t.event(alice.key, 'c1')
      const res = await deleteConversation[transport](alice.key, 'c1')
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: answers[transport] })
      for (const key of [alice.key, bob.key]) expect(await outcome(t.chat('GET', '/conversations/c1', { key }))).toEqual(notFound)
      expect(await outcome(t.chat('GET', `/messages/${message.id}`, { key: bob.key }))).toEqual(notFound)
      expect(await outcome(t.chat('GET', `/events/${event.id}`, { key: alice.key }))).toEqual(notFound)
      expect((await t.chat('GET', '/conversations', { key: alice.key })).body.conversations.map((c: { id: string }) => c.id)).toEqual(['c2'])
      expect((await t.chat('GET', '/conversations', { key: bob.key })).body).toEqual({ conversations: [], meta: {} })
      for (const [table, column] of [
        ['conversations', 'id'],
        ['participants', 'conversation_id'],
        ['messages', 'conversation_id'],
        ['events', 'conversation_id'],
      ]) {
        expect(await t.count(`select count(*) as n from ${table} where ${column} = 'c1'`)).toBe(0)
      }
    })

    it('refuses a participant who is not the owner with 403 Forbidden, deleting nothing', async () => {
      const alice = await t.user('alice')
      const bob = await t.user('bob')
      await t.conversation(alice.key, 'c1', ['bob'])
      const message = await t.message(alice.key, 'c1')
      expectRefusal(await deleteConversation[transport](bob.key, 'c1'), transport, 403, 'Forbidden', ['deleteConversation'])
      expect((await t.chat('GET', '/conversations/c1', { key: bob.key })).status).toBe(200)
      expect(await t.messageIds(bob.key, 'c1')).toEqual([message.id])
      expect(await t.participantIds(alice.key, 'c1')).toEqual(['alice', 'bob'])
    })
  })

  it('REST accepts a request without a body, and the id can then be created again', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    expect(await outcome(t.chat('DELETE', '/conversations/c1', { key: alice.key }))).toEqual({ status: 200, body: {} })
    expect((await t.chat('POST', '/conversations', { key: alice.key, body: { id: 'c1' } })).status).toBe(200)
  })

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('lets the owner delete it: {} and it is gone for every participant', async () => {
      const [alice, bob] = await client.inConversation('c1', 'alice', 'bob')
      expect(await alice.deleteConversation({ id: 'c1' })).toEqual({})
      await expectApiError(bob.getConversation({ id: 'c1' }), ResourceNotFoundError, 404, 'ResourceNotFound')
      expect(await bob.listConversations({})).toEqual({ conversations: [], meta: {} })
    })
  })

  describeAccess(t, 'deleteConversation', deleteConversation, ({ conversationId }) => [conversationId])
})
