import { beforeEach, describe, expect, it } from 'vitest'
import { type Actor, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { useOfficialClient } from '../helpers/listening.ts'
import { expectRefusal, TRANSPORTS } from '../helpers/transports.ts'

const DELETE_MESSAGE = /* GraphQL */ `
  mutation ($input: DeleteMessageInput!) { deleteMessage(input: $input) { messageId } }
`

describe('deleteMessage', () => {
  const t = useTestApp({ handlers: {} })
  const deleteMessage = {
    REST: (key: string | undefined, id: string) => t.chat('DELETE', `/messages/${id}`, { key, body: {} }),
    GraphQL: (key: string | undefined, id: string) => t.graphql(DELETE_MESSAGE, { input: { id } }, { key }),
  }
  const answer = { REST: () => ({}), GraphQL: (messageId: string) => ({ data: { deleteMessage: { messageId } } }) }

  describe.each(TRANSPORTS)('%s', (transport) => {
    let alice: Actor
    let bob: Actor
    beforeEach(async () => {
      alice = await t.user('alice')
      bob = await t.user('bob')
      await t.conversation(alice.key, 'c1', ['bob'])
    })

    it('lets the author delete it: it is gone from reads and listings, and a second delete finds nothing', async () => {
      const kept = await t.message(bob.key, 'c1', { type: 'text', text: 'kept' })
      const gone = await t.message(bob.key, 'c1', { type: 'text', text: 'gone' })
      const res = await deleteMessage[transport](bob.key, gone.id)
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: answer[transport](gone.id) })
      expectRefusal(await t.chat('GET', `/messages/${gone.id}`, { key: bob.key }), 'REST', 404, 'ResourceNotFound', null)
      expect(await t.messageIds(alice.key, 'c1')).toEqual([kept.id])
      expectRefusal(await deleteMessage[transport](bob.key, gone.id), transport, 404, 'ResourceNotFound', ['deleteMessage'])
    })

    it('refuses a participant who is not the author, the owner included, and an author who has left, with 403 Forbidden', async () => {
      const message = await t.message(bob.key, 'c1')
      expectRefusal(await deleteMessage[transport](alice.key, message.id), transport, 403, 'Forbidden', ['deleteMessage'])
      await t.chat('DELETE', '/conversations/c1/participants/bob', { key: bob.key })
      expectRefusal(await deleteMessage[transport](bob.key, message.id), transport, 403, 'Forbidden', ['deleteMessage'])
      expect((await t.chat('GET', `/messages/${message.id}`, { key: alice.key })).status).toBe(200)
    })
  })

  it('REST accepts a request without a body', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const message = await t.message(alice.key, 'c1')
    const res = await t.chat('DELETE', `/messages/${message.id}`, { key: alice.key })
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: {} })
    expect(t.count('select count(*) as n from messages where id = ?', message.id)).toBe(0)
  })

  describeAccess(t, {
    call: {
      REST: (key, { messageId }) => deleteMessage.REST(key, messageId),
      GraphQL: (key, { messageId }) => deleteMessage.GraphQL(key, messageId),
    },
    field: 'deleteMessage',
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
})
