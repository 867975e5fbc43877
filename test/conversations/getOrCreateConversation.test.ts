import { ForbiddenError } from '@botpress/chat'
import { describe, expect, it } from 'vitest'
import { iso, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { ownerOf } from '../helpers/graphql.ts'
import { INVALID_IDS, invalidIdWords } from '../helpers/ids.ts'
import { expectApiError, useOfficialClient } from '../helpers/listening.ts'
import { expectRefusal, TRANSPORTS } from '../helpers/transports.ts'

const GET_OR_CREATE_CONVERSATION = /* GraphQL */ `
  mutation ($input: GetOrCreateConversationInput!) {
    getOrCreateConversation(input: $input) {
      conversation { conversationId createdAt updatedAt owner { userId } participants { edges { node { userId } } } }
    }
  }
`

describe('getOrCreateConversation', () => {
  const t = useTestApp({ handlers: {} })
  const getOrCreateConversation = {
    REST: (key: string | undefined, body: object) => t.chat('POST', '/conversations/get-or-create', { key, body }),
    GraphQL: (key: string | undefined, input: object) => t.graphql(GET_OR_CREATE_CONVERSATION, { input }, { key }),
  }
  /** The conversation a transport answered with, in the REST shape. */
  const answered = {
    REST: (res: { body: any }) => res.body.conversation,
    GraphQL: (res: { body: any }) => {
      const { conversationId, createdAt, updatedAt } = res.body.data.getOrCreateConversation.conversation
      return { id: conversationId, createdAt, updatedAt }
    },
  }
  const conversations = () => t.count('select count(*) as n from conversations')

  describe.each(TRANSPORTS)('%s', (transport) => {
    it('creates a missing conversation owned by the caller, its only participant', async () => {
      const alice = await t.user('alice')
      const res = await getOrCreateConversation[transport](alice.key, { id: 'c1' })
      expect(res.status).toBe(200)
      expect(answered[transport](res)).toEqual({ id: 'c1', createdAt: iso, updatedAt: iso })
      expect(await t.participantIds(alice.key, 'c1')).toEqual(['alice'])
      expect(await ownerOf(t, alice.key, 'c1')).toBe('alice')
    })

    it('returns an existing conversation, unchanged, to every participant, creating nothing', async () => {
      const [alice, bob] = [await t.user('alice'), await t.user('bob')]
      await t.conversation(alice.key, 'c1', ['bob'])
      const { conversation } = (await t.chat('GET', '/conversations/c1', { key: alice.key })).body
      for (const key of [alice.key, bob.key]) {
        const res = await getOrCreateConversation[transport](key, { id: 'c1' })
        expect(res.status).toBe(200)
        expect(answered[transport](res)).toEqual(conversation)
      }
      expect(await conversations()).toBe(1)
      expect(await ownerOf(t, bob.key, 'c1')).toBe('alice')
      expect(await t.participantIds(alice.key, 'c1')).toEqual(['alice', 'bob'])
    })

    it.each(INVALID_IDS)('refuses an id that is %s with 400 InvalidPayload, creating nothing', async (_what, id) => {
      const alice = await t.user('alice')
      expectRefusal(
        await getOrCreateConversation[transport](alice.key, { id }),
        transport,
        400,
        'InvalidPayload',
        ['getOrCreateConversation'],
        invalidIdWords('id', id),
      )
      expect(await conversations()).toBe(0)
    })
  })

  it.each([
    ['no id', {}, 'id is required: expected a string'],
    ['an id that is not a string', { id: 5 }, 'id: expected a string, got the number 5'],
    ['a property the operation does not take', { id: 'c1', owner: 'bob' }, 'the request body has a property "owner" that this operation does not take'],
  ])('REST refuses a body with %s with 400 InvalidPayload, saying so, creating nothing', async (_what, body, message) => {
    const alice = await t.user('alice')
    expectRefusal(await getOrCreateConversation.REST(alice.key, body), 'REST', 400, 'InvalidPayload', null, message)
    expect(await conversations()).toBe(0)
  })

  it('GraphQL answers the conversation with its owner and participants', async () => {
    const alice = await t.user('alice')
    const res = await getOrCreateConversation.GraphQL(alice.key, { id: 'c1' })
    expect(res.body).toEqual({
      data: {
        getOrCreateConversation: {
          conversation: {
            conversationId: 'c1',
            createdAt: iso,
            updatedAt: iso,
            owner: { userId: 'alice' },
            participants: { edges: [{ node: { userId: 'alice' } }] },
          },
        },
      },
    })
  })

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('creates a missing conversation owned by the caller, and returns it unchanged to every participant', async () => {
      const alice = await client.connect('alice')
      const bob = await client.connect('bob')
      const { conversation } = await alice.getOrCreateConversation({ id: 'c1' })
      expect(conversation).toEqual({ id: 'c1', createdAt: iso, updatedAt: iso })
      expect(await alice.getConversation({ id: 'c1' })).toEqual({ conversation })
      await alice.addParticipant({ conversationId: 'c1', userId: 'bob' })
      expect(await bob.getOrCreateConversation({ id: 'c1' })).toEqual({ conversation })
      expect(await alice.getOrCreateConversation({ id: 'c1' })).toEqual({ conversation })
      await expectApiError(bob.deleteConversation({ id: 'c1' }), ForbiddenError, 403, 'Forbidden')
      expect(await alice.deleteConversation({ id: 'c1' })).toEqual({})
    })
  })

  describeAccess(t, 'getOrCreateConversation', getOrCreateConversation, ({ conversationId }) => [{ id: conversationId }], {
    rules: ['no key', 'unknown user', 'not a participant'],
  })
})
