import { ResourceNotFoundError } from '@botpress/chat'
import { describe, expect, it } from 'vitest'
import { iso, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { MESSAGE_FIELDS } from '../helpers/graphql.ts'
import { expectApiError, useOfficialClient } from '../helpers/listening.ts'

const MESSAGE = /* GraphQL */ `
  query ($id: String!) {
    message(id: $id) {
      ${MESSAGE_FIELDS}
      payload { __typename ... on TextPayload { type text } }
      author { userId name }
      conversation { conversationId owner { userId } }
    }
  }
`

describe('getMessage', () => {
  const t = useTestApp({ handlers: {} })
  const getMessage = {
    REST: (key: string | undefined, id: string) => t.chat('GET', `/messages/${id}`, { key }),
    GraphQL: (key: string | undefined, id: string) => t.graphql(MESSAGE, { id }, { key }),
  }
  const aliceAndBobInC1 = () => t.c1({ members: ['bob'], profiles: { alice: { name: 'Alice' }, bob: { name: 'Bob' } } })

  it('REST GET /messages/{id} returns the message exactly as created, to every participant', async () => {
    const { alice, bob } = await aliceAndBobInC1()
    const created = await t.chat('POST', '/messages', {
      key: alice.key,
      body: { conversationId: 'c1', payload: { type: 'text', text: 'hi', extra: [1] }, metadata: { a: { b: 1 } } },
    })
    for (const key of [alice.key, bob.key]) {
      const res = await getMessage.REST(key, created.body.message.id)
      expect(res.status).toBe(200)
      expect(res.body).toEqual({
        message: {
          id: created.body.message.id,
          createdAt: iso,
          payload: { type: 'text', text: 'hi', extra: [1] },
          userId: 'alice',
          conversationId: 'c1',
          metadata: { a: { b: 1 } },
        },
      })
      expect(res.body).toEqual(created.body)
    }
  })

  it('GraphQL message(id) resolves the message, its author and its conversation, the same for every participant', async () => {
    const { alice, bob } = await aliceAndBobInC1()
    const message = await t.message(bob.key, 'c1', { type: 'text', text: 'from bob' })
    const asAlice = await getMessage.GraphQL(alice.key, message.id)
    expect(asAlice.body).toEqual({
      data: {
        message: {
          messageId: message.id,
          userId: 'bob',
          conversationId: 'c1',
          createdAt: message.createdAt,
          rawPayload: { type: 'text', text: 'from bob' },
          metadata: null,
          payload: { __typename: 'TextPayload', type: 'text', text: 'from bob' },
          author: { userId: 'bob', name: 'Bob' },
          conversation: { conversationId: 'c1', owner: { userId: 'alice' } },
        },
      },
    })
    expect((await getMessage.GraphQL(bob.key, message.id)).body).toEqual(asAlice.body)
  })

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('returns the message as created to every participant, and reports a missing one as ResourceNotFoundError', async () => {
      const [alice, bob] = await client.inConversation('c1', 'alice', 'bob')
      const { message } = await alice.createMessage({ conversationId: 'c1', payload: { type: 'text', text: 'Hello' }, metadata: { a: 1 } })
      expect(await alice.getMessage({ id: message.id })).toEqual({ message })
      expect(await bob.getMessage({ id: message.id })).toEqual({ message })
      await expectApiError(alice.getMessage({ id: 'nope' }), ResourceNotFoundError, 404, 'ResourceNotFound')
    })
  })

  describeAccess(t, 'message', getMessage, ({ messageId }) => [messageId])
})
