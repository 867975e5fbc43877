import { describe, expect, it } from 'vitest'
import { iso, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { MESSAGE_FIELDS, nodeIds } from '../helpers/graphql.ts'
import { useOfficialClient } from '../helpers/listening.ts'
import { allPages, expectSpoiledTokensRefused, foreignToken, withToken } from '../helpers/paging.ts'

const MESSAGES = /* GraphQL */ `
  query ($id: String!, $first: Int, $after: String) {
    conversation(id: $id) {
      messages(first: $first, after: $after) {
        edges { cursor node { ${MESSAGE_FIELDS} } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`

describe('listMessages', () => {
  const t = useTestApp({ handlers: {} })
  const list = (key: string | undefined, conversationId: string, nextToken?: string) =>
    t.chat('GET', withToken(`/conversations/${conversationId}/messages`, nextToken), { key })
  const text = (value: string) => ({ type: 'text' as const, text: value })
  /** alice's conversation c1 holding `count` messages m0… from alice, oldest first. */
  const c1With = async (count: number) => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const ids: string[] = []
    for (let i = 0; i < count; i++) ids.push((await t.message(alice.key, 'c1', text(`m${i}`))).id)
    return { alice, ids }
  }

  describe('REST GET /conversations/{conversationId}/messages', () => {
    it('lists the messages of the conversation newest first, with the bodies getMessage returns', async () => {
      const alice = await t.user('alice')
      const bob = await t.user('bob')
      await t.conversation(alice.key, 'c1', ['bob'])
      await t.conversation(alice.key, 'other')
      const first = await t.message(alice.key, 'c1', text('one'), { n: 1 })
      await t.message(alice.key, 'other', text('elsewhere'))
      const second = await t.message(bob.key, 'c1', { type: 'image', imageUrl: 'https://pics.test/2.png' })
      const res = await list(bob.key, 'c1')
      expect(res.status).toBe(200)
      expect(res.body).toStrictEqual({
        messages: [
          { id: second.id, createdAt: iso, payload: { type: 'image', imageUrl: 'https://pics.test/2.png' }, userId: 'bob', conversationId: 'c1' },
          { id: first.id, createdAt: iso, payload: text('one'), userId: 'alice', conversationId: 'c1', metadata: { n: 1 } },
        ],
        meta: {},
      })
      expect(res.body.messages).toEqual([second, first])
    })

    it('answers an empty list for a conversation without messages', async () => {
      const { alice } = await c1With(0)
      expect((await list(alice.key, 'c1')).body).toEqual({ messages: [], meta: {} })
    })

    it('pages by 20, newest first across pages, with meta.nextToken absent on the last page and refused spoiled', async () => {
      const { alice, ids } = await c1With(25)
      const pages = await allPages((token) => list(alice.key, 'c1', token), 'messages')
      expect(pages.map((page) => page.items.length)).toEqual([20, 5])
      expect(pages.map((page) => page.meta)).toEqual([{ nextToken: expect.any(String) }, {}])
      expect(pages.flatMap((page) => page.items.map((m) => m.id))).toEqual([...ids].reverse())
      await expectSpoiledTokensRefused(pages[0]?.meta.nextToken as string, foreignToken('conversations'), (bad) => list(alice.key, 'c1', bad), 'REST', [])
    })
  })

  describe('GraphQL conversation.messages', () => {
    it('lists the messages newest first, and pages with first and after', async () => {
      const alice = await t.user('alice')
      const bob = await t.user('bob')
      await t.conversation(alice.key, 'c1', ['bob'])
      const ids: string[] = []
      for (let i = 0; i < 5; i++) ids.push((await t.message(i % 2 ? bob.key : alice.key, 'c1', text(`m${i}`))).id)
      const page = async (variables: { first?: number; after?: string }) =>
        (await t.graphql(MESSAGES, { id: 'c1', ...variables }, { key: bob.key })).body.data.conversation.messages
      expect(await page({})).toEqual({
        edges: [4, 3, 2, 1, 0].map((i) => ({
          cursor: expect.any(String),
          node: { messageId: ids[i], userId: i % 2 ? 'bob' : 'alice', conversationId: 'c1', createdAt: iso, rawPayload: text(`m${i}`), metadata: null },
        })),
        pageInfo: { hasNextPage: false, endCursor: expect.any(String) },
      })
      const first = await page({ first: 3 })
      expect(first.pageInfo.hasNextPage).toBe(true)
      const rest = await page({ first: 3, after: first.pageInfo.endCursor })
      expect([...nodeIds(first, 'messageId'), ...nodeIds(rest, 'messageId')]).toEqual([...ids].reverse())
      expect(rest.pageInfo.hasNextPage).toBe(false)
    })

    it('refuses a spoiled cursor with InvalidPayload', async () => {
      const { alice } = await c1With(2)
      const page = (after?: string) => t.graphql(MESSAGES, { id: 'c1', first: 1, after }, { key: alice.key })
      const cursor = (await page()).body.data.conversation.messages.pageInfo.endCursor
      await expectSpoiledTokensRefused(cursor, foreignToken('conversations'), page, 'GraphQL', ['conversation', 'messages'])
    })
  })

  const listMessages = {
    REST: (key: string | undefined, id: string) => list(key, id),
    GraphQL: (key: string | undefined, id: string) => t.graphql(MESSAGES, { id }, { key }),
  }

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('lists newest first by pages of 20, and list.messages collects every page', async () => {
      const alice = await client.connect('alice')
      await alice.createConversation({ id: 'c1' })
      expect(await alice.listMessages({ conversationId: 'c1' })).toEqual({ messages: [], meta: {} })
      const newestFirst = []
      for (let i = 0; i < 25; i++) newestFirst.unshift((await alice.createMessage({ conversationId: 'c1', payload: text(`m${i}`) })).message)
      const first = await alice.listMessages({ conversationId: 'c1' })
      expect(first).toEqual({ messages: newestFirst.slice(0, 20), meta: { nextToken: expect.any(String) } })
      expect(await alice.listMessages({ conversationId: 'c1', nextToken: first.meta.nextToken })).toEqual({ messages: newestFirst.slice(20), meta: {} })
      expect(await alice.list.messages({ conversationId: 'c1' }).collect()).toEqual(newestFirst)
    })
  })

  describeAccess(t, 'conversation', listMessages, ({ conversationId }) => [conversationId])
})
