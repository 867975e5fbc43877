import { describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { setClock } from '../helpers/clock.ts'
import { nodeIds } from '../helpers/graphql.ts'
import { useOfficialClient, withoutKey } from '../helpers/listening.ts'
import { expectRefusal } from '../helpers/transports.ts'
import { allPages, expectSpoiledTokensRefused, foreignToken, withToken } from '../helpers/paging.ts'

const PARTICIPANTS = /* GraphQL */ `
  query ($id: String!, $first: Int, $after: String) {
    conversation(id: $id) {
      participants(first: $first, after: $after) {
        edges { cursor node { userId } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`

describe('listParticipants', () => {
  const t = useTestApp({ handlers: {} })
  const list = (key: string | undefined, conversationId: string, nextToken?: string) =>
    t.chat('GET', withToken(`/conversations/${conversationId}/participants`, nextToken), { key })
  const graphqlPage = async (key: string, variables: { id: string; first?: number; after?: string }) =>
    (await t.graphql(PARTICIPANTS, variables, { key })).body.data.conversation.participants

  /**
   * The owner and `size - 1` users who join 'big' in an order that is neither alphabetical nor
   * the order they were created in. Returns the owner and the users in join order.
   */
  async function crowd(size: number) {
    const owner = await t.user('owner', { name: 'Owner' })
    const others = Array.from({ length: size - 1 }, (_, i) => `p${String((i * 17) % (size - 1)).padStart(2, '0')}`)
    const users = new Map<string, unknown>()
    for (const id of [...others].sort()) users.set(id, (await t.user(id, { name: `User ${id}` })).user)
    await t.conversation(owner.key, 'big', others)
    return { owner, joined: ['owner', ...others], users: [owner.user, ...others.map((id) => users.get(id))] }
  }

  describe('REST GET /conversations/{conversationId}/participants', () => {
    it('lists the participants as users, field by field, with an empty meta on a single page', async () => {
      const alice = await t.user('alice', { name: 'Alice', pictureUrl: 'https://pics.test/alice.png', profile: 'p' })
      const bob = await t.user('bob')
      await t.conversation(alice.key, 'c1', ['bob'])
      const res = await list(alice.key, 'c1')
      expect(res.status).toBe(200)
      expect(res.body).toStrictEqual({ participants: [alice.user, bob.user], meta: {} })
      expect(alice.user).toEqual({
        id: 'alice',
        name: 'Alice',
        pictureUrl: 'https://pics.test/alice.png',
        profile: 'p',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      })
    })

    it.each([
      [20, [20]],
      [21, [20, 1]],
      [45, [20, 20, 5]],
    ])('serves %i participants in pages of %j, each once and in join order, meta.nextToken absent on the last', async (size, lengths) => {
      const { owner, joined, users } = await crowd(size)
      const pages = await allPages((token) => list(owner.key, 'big', token), 'participants')
      expect(pages.map((page) => page.items.length)).toEqual(lengths)
      expect(pages.map((page) => page.meta)).toEqual(lengths.map((_, i) => (i < lengths.length - 1 ? { nextToken: expect.any(String) } : {})))
      expect(new Set(pages.map((page) => page.meta.nextToken)).size).toBe(lengths.length)
      expect(pages.flatMap((page) => page.items.map((user) => user.id))).toEqual(joined)
      expect(pages.flatMap((page) => page.items)).toEqual(users)
      // A nextToken is good only as the list issued it.
      const token = pages[0]?.meta.nextToken
      if (token !== undefined) await expectSpoiledTokensRefused(token, foreignToken('conversations'), (bad) => list(owner.key, 'big', bad), 'REST', [])
    })
  })

  describe('GraphQL conversation.participants', () => {
    it('pages through 45 participants with first/after, each once, in join order, every edge with its cursor', async () => {
      const { owner, joined } = await crowd(45)
      const seen: string[] = []
      const hasNext: boolean[] = []
      let after: string | undefined
      do {
        const { edges, pageInfo } = await graphqlPage(owner.key, { id: 'big', first: 20, after })
        for (const edge of edges) expect(edge.cursor).toEqual(expect.any(String))
        expect(pageInfo.endCursor).toBe(edges.at(-1).cursor)
        seen.push(...nodeIds({ edges }, 'userId'))
        hasNext.push(pageInfo.hasNextPage)
        after = pageInfo.hasNextPage ? pageInfo.endCursor : undefined
      } while (after !== undefined && hasNext.length < 10)
      expect(hasNext).toEqual([true, true, false])
      expect(seen).toEqual(joined)
      const all = await graphqlPage(owner.key, { id: 'big', first: 100 })
      expect({ ids: nodeIds(all, 'userId'), more: all.pageInfo.hasNextPage }).toEqual({ ids: joined, more: false })
    })

    it('pages one participant at a time when first is 1', async () => {
      const alice = await t.user('alice')
      for (const id of ['zed', 'bob']) await t.user(id)
      await t.conversation(alice.key, 'c1', ['zed', 'bob'])
      const pages: unknown[] = []
      let after: string | undefined
      do {
        const page = await graphqlPage(alice.key, { id: 'c1', first: 1, after })
        pages.push({ users: nodeIds(page, 'userId'), more: page.pageInfo.hasNextPage })
        after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : undefined
      } while (after !== undefined && pages.length < 5)
      expect(pages).toEqual([
        { users: ['alice'], more: true },
        { users: ['zed'], more: true },
        { users: ['bob'], more: false },
      ])
    })

    it('gives each edge when its participant joined the conversation (joinedAt), not when the user was created', async () => {
      setClock('2030-01-01T00:00:00.000Z')
      const alice = await t.user('alice')
      await t.user('bob')
      setClock('2030-01-01T00:01:00.000Z')
      await t.conversation(alice.key, 'c1')
      setClock('2030-01-01T00:02:00.000Z')
      await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })
      const res = await t.graphql('query { conversation(id: "c1") { participants { edges { joinedAt node { userId } } } } }', {}, { key: alice.key })
      expect(res.body.data.conversation.participants.edges).toEqual([
        { joinedAt: '2030-01-01T00:01:00.000Z', node: { userId: 'alice' } },
        { joinedAt: '2030-01-01T00:02:00.000Z', node: { userId: 'bob' } },
      ])
    })

    it('refuses a spoiled or empty cursor with InvalidPayload', async () => {
      const alice = await t.user('alice')
      await t.user('bob')
      await t.conversation(alice.key, 'c1', ['bob'])
      const cursor = (await graphqlPage(alice.key, { id: 'c1', first: 1 })).pageInfo.endCursor
      const page = (after: string) => t.graphql(PARTICIPANTS, { id: 'c1', first: 1, after }, { key: alice.key })
      await expectSpoiledTokensRefused(cursor, foreignToken('conversations'), page, 'GraphQL', ['conversation', 'participants'])
      expectRefusal(await page(''), 'GraphQL', 400, 'InvalidPayload', ['conversation', 'participants'])
    })
  })

  it('keeps join order, not id order, for participants who join within the same millisecond, over REST and GraphQL', async () => {
    setClock('2030-01-01T00:00:00.000Z')
    const owner = await t.user('owner')
    const joined = Array.from({ length: 24 }, (_, i) => `z${String(24 - i).padStart(2, '0')}`)
    for (const id of joined) await t.user(id)
    await t.conversation(owner.key, 'same-ms', joined)
    const pages = await allPages((token) => list(owner.key, 'same-ms', token), 'participants')
    expect(pages.flatMap((page) => page.items.map((user) => user.id))).toEqual(['owner', ...joined])
    expect(nodeIds(await graphqlPage(owner.key, { id: 'same-ms', first: 100 }), 'userId')).toEqual(['owner', ...joined])
  })

  const listParticipants = {
    REST: (key: string | undefined, id: string) => list(key, id),
    GraphQL: (key: string | undefined, id: string) => t.graphql(PARTICIPANTS, { id }, { key }),
  }

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('lists the participants in join order, by pages of 20, and list.participants collects them all', async () => {
      const alice = await client.connect('alice')
      const carol = await client.connect('carol')
      await alice.createConversation({ id: 'c1' })
      await alice.addParticipant({ conversationId: 'c1', userId: 'carol' })
      const joined = [withoutKey(alice.user), withoutKey(carol.user)]
      for (let i = 0; i < 23; i++) {
        const { user } = await client.bare().createUser({ id: `user-${i}` })
        joined.push((await carol.addParticipant({ conversationId: 'c1', userId: user.id })).participant)
      }
      const first = await carol.listParticipants({ conversationId: 'c1' })
      expect(first).toEqual({ participants: joined.slice(0, 20), meta: { nextToken: expect.any(String) } })
      expect(await carol.listParticipants({ conversationId: 'c1', nextToken: first.meta.nextToken })).toEqual({
        participants: joined.slice(20),
        meta: {},
      })
      expect(await alice.list.participants({ conversationId: 'c1' }).collect()).toEqual(joined)
    })
  })

  describeAccess(t, 'conversation', listParticipants, ({ conversationId }) => [conversationId])
})
