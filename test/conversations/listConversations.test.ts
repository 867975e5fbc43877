import { describe, expect, it } from 'vitest'
import { iso, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { setClock } from '../helpers/clock.ts'
import { nodeIds } from '../helpers/graphql.ts'
import { useOfficialClient } from '../helpers/listening.ts'
import { allPages, expectSpoiledTokensRefused, foreignToken, withToken } from '../helpers/paging.ts'

const CONVERSATIONS = /* GraphQL */ `
  query ($first: Int, $after: String) {
    conversations(first: $first, after: $after) {
      edges { cursor node { conversationId } }
      pageInfo { hasNextPage endCursor }
    }
  }
`

/** The clock at the n-th second of a day: conversations created at different instants. */
const second = (n: number) => `2030-01-01T00:00:${String(n).padStart(2, '0')}.000Z`

describe('listConversations', () => {
  const t = useTestApp({ handlers: {} })
  const list = (key: string | undefined, nextToken?: string) => t.chat('GET', withToken('/conversations', nextToken), { key })

  /** alice owns a1 and a2 and joined b1; bob owns b1 and b2; created a1, b1, b2, a2, one second apart. */
  async function fourConversations() {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    const made: [string, string, string[]][] = [
      [alice.key, 'a1', []],
      [bob.key, 'b1', ['alice']],
      [bob.key, 'b2', []],
      [alice.key, 'a2', []],
    ]
    for (const [i, [owner, id, others]] of made.entries()) {
      setClock(second(i))
      await t.conversation(owner, id, others)
    }
    return { alice, bob }
  }

  describe('REST GET /conversations', () => {
    it('lists the conversations the caller owns or joined, newest first, as getConversation returns them, and no other', async () => {
      const { alice, bob } = await fourConversations()
      const res = await list(alice.key)
      expect(res.status).toBe(200)
      expect(res.body).toEqual({
        conversations: [
          { id: 'a2', createdAt: second(3), updatedAt: second(3) },
          { id: 'b1', createdAt: second(1), updatedAt: second(1) },
          { id: 'a1', createdAt: second(0), updatedAt: second(0) },
        ],
        meta: {},
      })
      expect(res.body.conversations[1]).toEqual((await t.chat('GET', '/conversations/b1', { key: alice.key })).body.conversation)
      expect((await list(bob.key)).body.conversations.map((c: { id: string }) => c.id)).toEqual(['b2', 'b1'])
    })

    it('answers an empty list when the caller has no conversation', async () => {
      const alice = await t.user('alice')
      expect((await list(alice.key)).body).toEqual({ conversations: [], meta: {} })
    })

    it('pages by 20, newest first, with meta.nextToken absent on the last page', async () => {
      const alice = await t.user('alice')
      const ids = Array.from({ length: 25 }, (_, i) => `c${String(i).padStart(2, '0')}`)
      for (const id of ids) await t.conversation(alice.key, id)
      const pages = await allPages((token) => list(alice.key, token), 'conversations')
      expect(pages.map((page) => page.items.length)).toEqual([20, 5])
      expect(pages.map((page) => page.meta)).toEqual([{ nextToken: expect.any(String) }, {}])
      expect(pages.flatMap((page) => page.items.map((c) => c.id))).toEqual([...ids].reverse())
    })

    it('refuses a spoiled nextToken with 400 InvalidPayload', async () => {
      const alice = await t.user('alice')
      for (let i = 0; i < 21; i++) await t.conversation(alice.key, `c${i}`)
      const token = (await list(alice.key)).body.meta.nextToken
      await expectSpoiledTokensRefused(token, foreignToken('messages'), (bad) => list(alice.key, bad), 'REST', [])
    })
  })

  describe('GraphQL conversations', () => {
    it("lists the caller's conversations, owned or joined, newest first", async () => {
      const { alice } = await fourConversations()
      const res = await t.graphql(CONVERSATIONS, {}, { key: alice.key })
      expect(res.body).toEqual({
        data: {
          conversations: {
            edges: ['a2', 'b1', 'a1'].map((conversationId) => ({ cursor: expect.any(String), node: { conversationId } })),
            pageInfo: { hasNextPage: false, endCursor: expect.any(String) },
          },
        },
      })
    })

    it('pages with first and after', async () => {
      const alice = await t.user('alice')
      for (const id of ['c1', 'c2', 'c3', 'c4', 'c5']) await t.conversation(alice.key, id)
      const first = (await t.graphql(CONVERSATIONS, { first: 2 }, { key: alice.key })).body.data.conversations
      expect(nodeIds(first, 'conversationId')).toEqual(['c5', 'c4'])
      expect(first.pageInfo.hasNextPage).toBe(true)
      const rest = (await t.graphql(CONVERSATIONS, { first: 10, after: first.pageInfo.endCursor }, { key: alice.key })).body.data.conversations
      expect(nodeIds(rest, 'conversationId')).toEqual(['c3', 'c2', 'c1'])
      expect(rest.pageInfo.hasNextPage).toBe(false)
    })

    it('refuses a spoiled cursor with InvalidPayload', async () => {
      const alice = await t.user('alice')
      for (const id of ['c1', 'c2']) await t.conversation(alice.key, id)
      const cursor = (await t.graphql(CONVERSATIONS, { first: 1 }, { key: alice.key })).body.data.conversations.pageInfo.endCursor
      await expectSpoiledTokensRefused(
        cursor,
        foreignToken('messages'),
        (after) => t.graphql(CONVERSATIONS, { first: 1, after }, { key: alice.key }),
        'GraphQL',
        ['conversations'],
      )
    })
  })

  const listConversations = { REST: (key?: string) => list(key), GraphQL: (key?: string) => t.graphql(CONVERSATIONS, {}, { key }) }

  describe('official client', () => {
    const client = useOfficialClient(t)

    it("lists the caller's conversations newest first, by pages of 20, and list.conversations collects them all", async () => {
      const alice = await client.connect('alice')
      const bob = await client.connect('bob')
      const theirs = await client.conversationOf(bob, 'conv-00', alice)
      await client.conversationOf(bob, 'not-alices')
      const created = [theirs]
      for (let i = 1; i < 25; i++) created.push(await client.conversationOf(alice, `conv-${String(i).padStart(2, '0')}`))
      const newestFirst = created.reverse()
      const first = await alice.listConversations({})
      expect(first).toEqual({ conversations: newestFirst.slice(0, 20), meta: { nextToken: expect.any(String) } })
      expect(await alice.listConversations({ nextToken: first.meta.nextToken })).toEqual({ conversations: newestFirst.slice(20), meta: {} })
      expect(await alice.list.conversations({}).collect()).toEqual(newestFirst)
      expect(first.conversations[0]).toEqual({ id: 'conv-24', createdAt: iso, updatedAt: iso })
    })
  })

  describeAccess(t, 'conversations', listConversations, () => [], { rules: ['no key', 'unknown user'] })
})
