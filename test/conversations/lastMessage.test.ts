import { afterEach, describe, expect, it } from 'vitest'
import { createTestApp, iso, type TestApp, useTestApp } from '../helpers/app.ts'
import { setClock } from '../helpers/clock.ts'

// listConversations carries each conversation's newest message as `lastMessage` (REST: left out when
// there is none), the shape @botpress/webchat's ConversationWithLastMessage reads: its history panel
// lists only conversations with one (`filter(e => !!e.lastMessage)`). GraphQL's Conversation has
// `lastMessage` (null when none), read for a whole page of conversations in one statement.

const second = (n: number) => `2030-01-01T00:00:${String(n).padStart(2, '0')}.000Z`

const LAST_MESSAGES = /* GraphQL */ `
  query ($first: Int) {
    conversations(first: $first) {
      edges { node { conversationId lastMessage { messageId createdAt rawPayload userId conversationId metadata } } }
    }
  }
`

describe('lastMessage', () => {
  const t = useTestApp({ handlers: {} })

  /** alice in a1 (two messages, the second with metadata), a2 (none) and b1 (bob's, one message of bob's). */
  async function conversations() {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    setClock(second(0))
    await t.conversation(alice.key, 'a1')
    await t.conversation(alice.key, 'a2')
    await t.conversation(bob.key, 'b1', ['alice'])
    setClock(second(1))
    const older = await t.message(alice.key, 'a1', { type: 'text', text: 'first' })
    setClock(second(2))
    const newest = await t.message(alice.key, 'a1', { type: 'text', text: 'second' }, { trace: 't2' })
    setClock(second(3))
    const bobs = await t.message(bob.key, 'b1', { type: 'image', imageUrl: 'https://pics.test/1.png' })
    return { alice, bob, older, newest, bobs }
  }

  describe('REST GET /conversations', () => {
    it('gives each conversation its newest message as getMessage returns it, whoever wrote it, and leaves it out where there is none', async () => {
      const { alice, newest, bobs } = await conversations()
      const res = await t.chat('GET', '/conversations', { key: alice.key })
      expect(res.status).toBe(200)
      const byId = Object.fromEntries(res.body.conversations.map((c: { id: string }) => [c.id, c]))
      expect(byId.a1).toStrictEqual({
        id: 'a1',
        createdAt: iso,
        updatedAt: iso,
        lastMessage: {
          id: newest.id,
          createdAt: second(2),
          payload: { type: 'text', text: 'second' },
          userId: 'alice',
          conversationId: 'a1',
          metadata: { trace: 't2' },
        },
      })
      expect(byId.a1.lastMessage).toEqual((await t.chat('GET', `/messages/${newest.id}`, { key: alice.key })).body.message)
      expect(byId.b1.lastMessage).toStrictEqual({
        id: bobs.id,
        createdAt: second(3),
        payload: { type: 'image', imageUrl: 'https://pics.test/1.png' },
        userId: 'bob',
        conversationId: 'b1',
      })
      expect(byId.a2).toStrictEqual({ id: 'a2', createdAt: iso, updatedAt: iso })
      expect('lastMessage' in byId.a2).toBe(false)
    })

    it('is the one before once the newest is deleted, and none once all are', async () => {
      const { alice, older, newest } = await conversations()
      const lastOf = async (id: string) =>
        (await t.chat('GET', '/conversations', { key: alice.key })).body.conversations.find((c: { id: string }) => c.id === id).lastMessage
      expect((await t.chat('DELETE', `/messages/${newest.id}`, { key: alice.key })).status).toBe(200)
      expect((await lastOf('a1'))?.id).toBe(older.id)
      expect((await t.chat('DELETE', `/messages/${older.id}`, { key: alice.key })).status).toBe(200)
      expect(await lastOf('a1')).toBeUndefined()
    })

    it('carries the message feedback as getMessage does', async () => {
      const { alice, bobs } = await conversations()
      expect((await t.chat('PUT', `/messages/${bobs.id}/feedback`, { key: alice.key, body: { value: 'positive' } })).status).toBe(200)
      const listed = (await t.chat('GET', '/conversations', { key: alice.key })).body.conversations.find((c: { id: string }) => c.id === 'b1')
      const got = (await t.chat('GET', `/messages/${bobs.id}`, { key: alice.key })).body.message
      expect(got.feedback).toEqual({ value: 'positive' })
      expect(listed.lastMessage).toEqual(got)
    })
  })

  describe('GraphQL Conversation.lastMessage', () => {
    it('is the newest message, or null', async () => {
      const { alice, newest, bobs } = await conversations()
      const res = await t.graphql(LAST_MESSAGES, {}, { key: alice.key })
      expect(res.body.errors).toBeUndefined()
      const byId = Object.fromEntries(res.body.data.conversations.edges.map((e: any) => [e.node.conversationId, e.node.lastMessage]))
      expect(byId).toEqual({
        a1: {
          messageId: newest.id,
          createdAt: second(2),
          rawPayload: { type: 'text', text: 'second' },
          userId: 'alice',
          conversationId: 'a1',
          metadata: { trace: 't2' },
        },
        a2: null,
        b1: {
          messageId: bobs.id,
          createdAt: second(3),
          rawPayload: { type: 'image', imageUrl: 'https://pics.test/1.png' },
          userId: 'bob',
          conversationId: 'b1',
          metadata: null,
        },
      })
    })

    it('of a conversation read alone', async () => {
      const { alice, newest } = await conversations()
      const res = await t.graphql('{ conversation(id: "a1") { lastMessage { messageId } } }', {}, { key: alice.key })
      expect(res.body).toEqual({ data: { conversation: { lastMessage: { messageId: newest.id } } } })
    })
  })
})

describe('lastMessage costs the same statements for a page of one conversation as for a page of twenty (no N+1)', () => {
  let app: TestApp | undefined
  afterEach(() => app?.close())

  it.each([
    ['REST', (a: TestApp, key: string) => a.chat('GET', '/conversations', { key })],
    ['GraphQL', (a: TestApp, key: string) => a.graphql(LAST_MESSAGES, { first: 20 }, { key })],
  ])('%s', async (_name, list) => {
    let statements = 0
    let counting = false
    // The outbox sweeps (every 2 s on PostgreSQL) are pushed out of the test: only the list's statements are counted.
    app = createTestApp({ handlers: {}, onQuery: () => void (counting && statements++), botSweepMs: 3_600_000 })
    const a = app
    await a.ready
    const alice = await a.user('alice')
    const counted = async () => {
      // The delivery of the messages posted is done: only the list's statements are counted.
      await a.app.bots.idle()
      statements = 0
      counting = true
      const res = await list(a, alice.key)
      counting = false
      expect(res.status).toBe(200)
      expect(res.body.errors).toBeUndefined()
      return statements
    }
    await a.conversation(alice.key, 'c0')
    await a.message(alice.key, 'c0')
    await counted()
    const one = await counted()
    for (let i = 1; i < 20; i++) {
      await a.conversation(alice.key, `c${i}`)
      await a.message(alice.key, `c${i}`)
    }
    const twenty = await counted()
    expect(one).toBeGreaterThan(0)
    expect(twenty).toBe(one)
  })
})
