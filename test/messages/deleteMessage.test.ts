import { describe, expect, it } from 'vitest'
import { useC1, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { useOfficialClient } from '../helpers/listening.ts'
import { expectRefusal, TRANSPORTS } from '../helpers/transports.ts'

const DELETE_MESSAGE = /* GraphQL */ `
  mutation ($input: DeleteMessageInput!) { deleteMessage(input: $input) { messageId } }
`

describe('deleteMessage', () => {
  const t = useTestApp({ handlers: {} })
  const answer = { REST: () => ({}), GraphQL: (messageId: string) => ({ data: { deleteMessage: { messageId } } }) }
  const deleteMessage = {
    REST: (key: string | undefined, id: string) => t.chat('DELETE', `/messages/${id}`, { key, body: {} }),
    GraphQL: (key: string | undefined, id: string) => t.graphql(DELETE_MESSAGE, { input: { id } }, { key }),
  }

  describe.each(TRANSPORTS)('%s', (transport) => {
    const users = useC1(t, { members: ['bob'] })

    it('lets the author delete it: it is gone from reads and listings, and a second delete finds nothing', async () => {
      const kept = await t.message(users.bob.key, 'c1', { type: 'text', text: 'kept' })
      const gone = await t.message(users.bob.key, 'c1', { type: 'text', text: 'gone' })
      const res = await deleteMessage[transport](users.bob.key, gone.id)
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: answer[transport](gone.id) })
      expectRefusal(await t.chat('GET', `/messages/${gone.id}`, { key: users.bob.key }), 'REST', 404, 'ResourceNotFound', null)
      expect(await t.messageIds(users.alice.key, 'c1')).toEqual([kept.id])
      expectRefusal(await deleteMessage[transport](users.bob.key, gone.id), transport, 404, 'ResourceNotFound', ['deleteMessage'])
    })

    it('refuses a participant who is not the author, the owner included, with 403 Forbidden, and an author who has left as for no such message (404)', async () => {
      const message = await t.message(users.bob.key, 'c1')
      expectRefusal(await deleteMessage[transport](users.alice.key, message.id), transport, 403, 'Forbidden', ['deleteMessage'])
      await t.chat('DELETE', '/conversations/c1/participants/bob', { key: users.bob.key })
      expectRefusal(await deleteMessage[transport](users.bob.key, message.id), transport, 404, 'ResourceNotFound', ['deleteMessage'])
      expect((await t.chat('GET', `/messages/${message.id}`, { key: users.alice.key })).status).toBe(200)
    })
  })

  it('REST accepts a request without a body', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const message = await t.message(alice.key, 'c1')
    const res = await t.chat('DELETE', `/messages/${message.id}`, { key: alice.key })
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: {} })
    expect(await t.count('select count(*) as n from messages where id = ?', message.id)).toBe(0)
  })

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('lets the author delete the message: {} and it is no longer listed', async () => {
      const alice = await client.connect('alice')
      await alice.createConversation({ id: 'c1' })
      const { message } = await alice.createMessage({ conversationId: 'c1', payload: { type: 'text', text: 'oops' } })
      expect(await alice.deleteMessage({ id: message.id })).toEqual({})
      expect(await alice.listMessages({ conversationId: 'c1' })).toEqual({ messages: [], meta: {} })
    })
  })

  describeAccess(t, 'deleteMessage', deleteMessage, ({ messageId }) => [messageId])
})
