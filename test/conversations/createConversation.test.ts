import { describe, expect, it } from 'vitest'
import { CLIENT_ID, iso, type TestApp, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { ownerOf } from '../helpers/graphql.ts'
import { INVALID_IDS, invalidIdWords, LONGEST_ID } from '../helpers/ids.ts'
import { useOfficialClient, withoutKey } from '../helpers/listening.ts'
import { expectRefusal, TRANSPORTS } from '../helpers/transports.ts'

const CREATE_CONVERSATION = /* GraphQL */ `
  mutation ($input: CreateConversationInput!) {
    createConversation(input: $input) {
      conversation {
        id
        conversationId
        createdAt
        updatedAt
        owner { userId name }
        participants { edges { node { userId } } pageInfo { hasNextPage } }
      }
    }
  }
`

type Chat = Pick<TestApp, 'chat' | 'graphql'>

const createConversation = {
  REST: (app: Chat, key: string | undefined, body?: object) => app.chat('POST', '/conversations', { key, body }),
  GraphQL: (app: Chat, key: string | undefined, input: object = {}) => app.graphql(CREATE_CONVERSATION, { input }, { key }),
}

/** The id of the conversation a transport answered with. */
const createdId = {
  REST: (res: { body: any }) => res.body.conversation.id as string,
  GraphQL: (res: { body: any }) => res.body.data.createConversation.conversation.conversationId as string,
}

describe('createConversation', () => {
  const t = useTestApp({ handlers: {} })

  describe('REST POST /conversations', () => {
    it('creates the conversation under the chosen id, owned by the caller, its only participant', async () => {
      const alice = await t.user('alice', { name: 'Alice' })
      const res = await createConversation.REST(t, alice.key, { id: 'support-42' })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ conversation: { id: 'support-42', createdAt: iso, updatedAt: iso } })
      expect((await t.chat('GET', '/conversations/support-42/participants', { key: alice.key })).body).toEqual({
        participants: [alice.user],
        meta: {},
      })
      expect(await ownerOf(t, alice.key, 'support-42')).toBe('alice')
    })

    it.each([
      ['an empty body', {}],
      ['no body at all', undefined],
    ])('generates an id from %s, a new one for every conversation', async (_what, body) => {
      const alice = await t.user('alice')
      const first = await createConversation.REST(t, alice.key, body)
      expect(first.status).toBe(200)
      expect(first.body).toEqual({ conversation: { id: expect.stringMatching(CLIENT_ID), createdAt: iso, updatedAt: iso } })
      expect(createdId.REST(await createConversation.REST(t, alice.key, body))).not.toBe(first.body.conversation.id)
    })

    it('refuses an id that is not a string with 400 InvalidPayload, saying so', async () => {
      const alice = await t.user('alice')
      expectRefusal(await createConversation.REST(t, alice.key, { id: 42 }), 'REST', 400, 'InvalidPayload', null, 'id: expected a string, got the number 42')
    })
  })

  describe('GraphQL createConversation', () => {
    it('creates the conversation under the chosen id, owned by the caller, its first participant', async () => {
      const alice = await t.user('alice', { name: 'Alice' })
      const res = await createConversation.GraphQL(t, alice.key, { id: 'c1' })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({
        data: {
          createConversation: {
            conversation: {
              id: expect.any(String),
              conversationId: 'c1',
              createdAt: iso,
              updatedAt: iso,
              owner: { userId: 'alice', name: 'Alice' },
              participants: { edges: [{ node: { userId: 'alice' } }], pageInfo: { hasNextPage: false } },
            },
          },
        },
      })
    })

    it('generates an id when none is given, a new one for every conversation, which the caller can read', async () => {
      const alice = await t.user('alice')
      const first = createdId.GraphQL(await createConversation.GraphQL(t, alice.key))
      expect(first).toMatch(CLIENT_ID)
      expect(createdId.GraphQL(await createConversation.GraphQL(t, alice.key))).not.toBe(first)
      const read = await t.graphql('query ($id: String!) { conversation(id: $id) { conversationId owner { userId } } }', { id: first }, { key: alice.key })
      expect(read.body).toEqual({ data: { conversation: { conversationId: first, owner: { userId: 'alice' } } } })
    })
  })

  describe.each(TRANSPORTS)('%s: the id', (transport) => {
    it('accepts 64 characters of every allowed class', async () => {
      const alice = await t.user('alice')
      const res = await createConversation[transport](t, alice.key, { id: LONGEST_ID })
      expect(createdId[transport](res)).toBe(LONGEST_ID)
      expect(await t.participantIds(alice.key, encodeURIComponent(LONGEST_ID))).toEqual(['alice'])
    })

    it('refuses an id that exists, whoever created it, with 409 AlreadyExists, leaving the conversation as it was', async () => {
      const alice = await t.user('alice')
      const bob = await t.user('bob')
      const created = await createConversation.REST(t, alice.key, { id: 'c1' })
      for (const key of [alice.key, bob.key]) {
        expectRefusal(await createConversation[transport](t, key, { id: 'c1' }), transport, 409, 'AlreadyExists', ['createConversation'])
      }
      expect(await t.participantIds(alice.key, 'c1')).toEqual(['alice'])
      expect((await t.chat('GET', '/conversations/c1', { key: alice.key })).body).toEqual(created.body)
      expect(await ownerOf(t, alice.key, 'c1')).toBe('alice')
    })

    it.each(INVALID_IDS)('refuses an id that is %s with 400 InvalidPayload, creating nothing', async (_what, id) => {
      const alice = await t.user('alice')
      expectRefusal(
        await createConversation[transport](t, alice.key, { id }),
        transport,
        400,
        'InvalidPayload',
        ['createConversation'],
        invalidIdWords('id', id),
      )
      expect(await t.count('select count(*) as n from conversations')).toBe(0)
    })

    it('keeps the conversations of two chat integrations apart, even under the same id', async () => {
      const alice = await t.user('alice')
      await t.conversation(alice.key, 'c1')
      const other = await t.otherTenant()
      const key = await other.keyFor('alice')
      expect((await other.chat('POST', '/users/get-or-create', { key })).status).toBe(200)
      expect(createdId[transport](await createConversation[transport](other, key, { id: 'c1' }))).toBe('c1')
      expect(await t.participantIds(alice.key, 'c1')).toEqual(['alice'])
    })
  })

  const inThisApp = {
    REST: (key?: string) => createConversation.REST(t, key, { id: 'c2' }),
    GraphQL: (key?: string) => createConversation.GraphQL(t, key, { id: 'c2' }),
  }

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('creates the conversation under the given id, or a new generated one, with the caller as its participant', async () => {
      const alice = await client.connect('alice')
      expect(await alice.createConversation({ id: 'support-1' })).toEqual({ conversation: { id: 'support-1', createdAt: iso, updatedAt: iso } })
      expect(await alice.listParticipants({ conversationId: 'support-1' })).toEqual({ participants: [withoutKey(alice.user)], meta: {} })
      const first = await alice.createConversation({})
      expect(first).toEqual({ conversation: { id: expect.stringMatching(CLIENT_ID), createdAt: iso, updatedAt: iso } })
      expect((await alice.createConversation({})).conversation.id).not.toBe(first.conversation.id)
    })
  })

  describeAccess(t, 'createConversation', inThisApp, () => [], { rules: ['no key', 'unknown user'] })
})
