import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
beforeEach(() => {
  t = createTestApp()
})
afterEach(() => t.close())

const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

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

const CONVERSATION = /* GraphQL */ `
  query ($id: String!) {
    conversation(id: $id) { id conversationId owner { userId } }
  }
`

const ADD_PARTICIPANT = /* GraphQL */ `
  mutation ($input: AddParticipantInput!) {
    addParticipant(input: $input) { participant { id userId name pictureUrl profile createdAt updatedAt } }
  }
`

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

const fieldError = (type: string, status: number, path: string[]) => ({
  errors: [expect.objectContaining({ path, extensions: { type, status, requestId: expect.any(String) } })],
  data: null,
})

const participantIds = async (key: string, id: string) => {
  const res = await t.graphql(PARTICIPANTS, { id, first: 100 }, { key })
  return res.body.data.conversation.participants.edges.map((e: { node: { userId: string } }) => e.node.userId)
}

describe('createConversation', () => {
  it('creates a conversation with the chosen id, owned by the caller, who is its first participant', async () => {
    const alice = await t.user('alice', { name: 'Alice' })
    const res = await t.graphql(CREATE_CONVERSATION, { input: { id: 'c1' } }, { key: alice.key })
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

  it('generates an id when none is given', async () => {
    const alice = await t.user('alice')
    const res = await t.graphql(CREATE_CONVERSATION, { input: {} }, { key: alice.key })
    const { conversationId } = res.body.data.createConversation.conversation
    expect(conversationId).toMatch(/^[A-Za-z0-9._:-]{1,64}$/)
    const read = await t.graphql(CONVERSATION, { id: conversationId }, { key: alice.key })
    expect(read.body).toEqual({
      data: { conversation: { id: expect.any(String), conversationId, owner: { userId: 'alice' } } },
    })
  })

  it('generates a different id for each conversation', async () => {
    const alice = await t.user('alice')
    const first = await t.graphql(CREATE_CONVERSATION, { input: {} }, { key: alice.key })
    const second = await t.graphql(CREATE_CONVERSATION, { input: {} }, { key: alice.key })
    expect(first.body.data.createConversation.conversation.conversationId).not.toBe(
      second.body.data.createConversation.conversation.conversationId,
    )
  })

  it('accepts an id of 64 characters using every allowed character class', async () => {
    const alice = await t.user('alice')
    const id = `aZ09._:-${'x'.repeat(56)}`
    const res = await t.graphql(CREATE_CONVERSATION, { input: { id } }, { key: alice.key })
    expect(res.body.errors).toBeUndefined()
    expect(res.body.data.createConversation.conversation.conversationId).toBe(id)
  })

  it('refuses an id that exists as AlreadyExists', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'c1')
    for (const key of [alice.key, bob.key]) {
      const res = await t.graphql(CREATE_CONVERSATION, { input: { id: 'c1' } }, { key })
      expect(res.status).toBe(200)
      expect(res.body).toEqual(fieldError('AlreadyExists', 409, ['createConversation']))
    }
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice'])
  })

  it.each([
    ['empty', ''],
    ['65 characters long', 'x'.repeat(65)],
    ['containing a space', 'a b'],
    ['containing a slash', 'a/b'],
    ['containing a non-ASCII letter', 'café'],
  ])('refuses an id %s as InvalidPayload', async (_name, id) => {
    const alice = await t.user('alice')
    const res = await t.graphql(CREATE_CONVERSATION, { input: { id } }, { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual(fieldError('InvalidPayload', 400, ['createConversation']))
  })

  it('refuses a key whose user does not exist as Unauthorized', async () => {
    const res = await t.graphql(CREATE_CONVERSATION, { input: { id: 'c1' } }, { key: await t.keyFor('ghost') })
    expect(res.body).toEqual(fieldError('Unauthorized', 401, ['createConversation']))
  })
})

describe('conversation', () => {
  it('reads a conversation for each of its participants', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
    for (const key of [alice.key, bob.key]) {
      const res = await t.graphql(CONVERSATION, { id: 'c1' }, { key })
      expect(res.body).toEqual({
        data: { conversation: { id: expect.any(String), conversationId: 'c1', owner: { userId: 'alice' } } },
      })
    }
  })

  it('refuses a user who does not participate as Forbidden', async () => {
    const alice = await t.user('alice')
    const carol = await t.user('carol')
    await t.conversation(alice.key, 'c1')
    const res = await t.graphql(CONVERSATION, { id: 'c1' }, { key: carol.key })
    expect(res.body).toEqual(fieldError('Forbidden', 403, ['conversation']))
  })

  it('answers ResourceNotFound for an unknown conversation', async () => {
    const alice = await t.user('alice')
    const res = await t.graphql(CONVERSATION, { id: 'nope' }, { key: alice.key })
    expect(res.body).toEqual(fieldError('ResourceNotFound', 404, ['conversation']))
  })
})

describe('addParticipant', () => {
  it('adds a user of the integration and returns it', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob', { name: 'Bob', pictureUrl: 'https://example.com/bob.png', profile: 'b' })
    await t.conversation(alice.key, 'c1')
    const res = await t.graphql(ADD_PARTICIPANT, { input: { conversationId: 'c1', userId: 'bob' } }, { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      data: {
        addParticipant: {
          participant: {
            id: expect.any(String),
            userId: 'bob',
            name: 'Bob',
            pictureUrl: 'https://example.com/bob.png',
            profile: 'b',
            createdAt: bob.user.createdAt,
            updatedAt: bob.user.updatedAt,
          },
        },
      },
    })
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'bob'])
    const asBob = await t.graphql(CONVERSATION, { id: 'c1' }, { key: bob.key })
    expect(asBob.body.data.conversation.conversationId).toBe('c1')
  })

  it('is idempotent: adding a participant twice returns the same participant, listed once', async () => {
    const alice = await t.user('alice')
    await t.user('bob', { name: 'Bob' })
    await t.conversation(alice.key, 'c1')
    const input = { conversationId: 'c1', userId: 'bob' }
    const first = await t.graphql(ADD_PARTICIPANT, { input }, { key: alice.key })
    const second = await t.graphql(ADD_PARTICIPANT, { input }, { key: alice.key })
    expect(first.body.errors).toBeUndefined()
    expect(second.body).toEqual(first.body)
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'bob'])
  })

  it('lets a participant who is not the owner add users', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.user('carol')
    await t.conversation(alice.key, 'c1', ['bob'])
    const res = await t.graphql(ADD_PARTICIPANT, { input: { conversationId: 'c1', userId: 'carol' } }, { key: bob.key })
    expect(res.body.errors).toBeUndefined()
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'bob', 'carol'])
  })

  it('refuses a caller who does not participate as Forbidden', async () => {
    const alice = await t.user('alice')
    await t.user('bob')
    const carol = await t.user('carol')
    await t.conversation(alice.key, 'c1')
    for (const userId of ['carol', 'bob']) {
      const res = await t.graphql(ADD_PARTICIPANT, { input: { conversationId: 'c1', userId } }, { key: carol.key })
      expect(res.body).toEqual(fieldError('Forbidden', 403, ['addParticipant']))
    }
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice'])
  })

  it('answers ResourceNotFound for a user that does not exist', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const res = await t.graphql(ADD_PARTICIPANT, { input: { conversationId: 'c1', userId: 'ghost' } }, { key: alice.key })
    expect(res.body).toEqual(fieldError('ResourceNotFound', 404, ['addParticipant']))
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice'])
  })

  it('answers ResourceNotFound for a conversation that does not exist', async () => {
    const alice = await t.user('alice')
    await t.user('bob')
    const res = await t.graphql(ADD_PARTICIPANT, { input: { conversationId: 'nope', userId: 'bob' } }, { key: alice.key })
    expect(res.body).toEqual(fieldError('ResourceNotFound', 404, ['addParticipant']))
  })
})

describe('participants', () => {
  /** The owner, then 44 users added in an order that is neither alphabetical nor reverse-creation order. */
  async function crowd() {
    const owner = await t.user('owner')
    const joined = ['owner']
    const others = Array.from({ length: 44 }, (_, i) => `p${String((i * 17) % 44).padStart(2, '0')}`)
    for (const id of [...others].sort()) await t.user(id)
    await t.conversation(owner.key, 'big')
    for (const userId of others) {
      const res = await t.graphql(ADD_PARTICIPANT, { input: { conversationId: 'big', userId } }, { key: owner.key })
      expect(res.body.errors).toBeUndefined()
      joined.push(userId)
    }
    return { owner, joined }
  }

  it('pages through 45 participants with first/after, each once, in join order', async () => {
    const { owner, joined } = await crowd()
    const seen: string[] = []
    const hasNext: boolean[] = []
    let after: string | undefined
    for (let page = 0; page < 10; page++) {
      const res = await t.graphql(PARTICIPANTS, { id: 'big', first: 20, after }, { key: owner.key })
      expect(res.body.errors).toBeUndefined()
      const { edges, pageInfo } = res.body.data.conversation.participants
      for (const edge of edges) {
        expect(edge.cursor).toEqual(expect.any(String))
        seen.push(edge.node.userId)
      }
      hasNext.push(pageInfo.hasNextPage)
      expect(pageInfo.endCursor).toBe(edges.at(-1).cursor)
      if (!pageInfo.hasNextPage) break
      after = pageInfo.endCursor
    }
    expect(hasNext).toEqual([true, true, false])
    expect(seen).toEqual(joined)
  })

  it('keeps join order for participants who join within the same millisecond', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2030-01-01T00:00:00.000Z') })
    try {
      const alice = await t.user('alice')
      for (const id of ['zed', 'mia', 'bob']) await t.user(id)
      await t.conversation(alice.key, 'c1', ['zed', 'mia', 'bob'])
      expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'zed', 'mia', 'bob'])
    } finally {
      vi.useRealTimers()
    }
  })

  it('pages one participant at a time when first is 1', async () => {
    const alice = await t.user('alice')
    await t.user('zed')
    await t.user('bob')
    await t.conversation(alice.key, 'c1', ['zed', 'bob'])
    const pages: unknown[] = []
    let after: string | undefined
    for (let page = 0; page < 5; page++) {
      const res = await t.graphql(PARTICIPANTS, { id: 'c1', first: 1, after }, { key: alice.key })
      const { edges, pageInfo } = res.body.data.conversation.participants
      pages.push({ users: edges.map((e: { node: { userId: string } }) => e.node.userId), more: pageInfo.hasNextPage })
      if (!pageInfo.hasNextPage) break
      after = pageInfo.endCursor
    }
    expect(pages).toEqual([
      { users: ['alice'], more: true },
      { users: ['zed'], more: true },
      { users: ['bob'], more: false },
    ])
  })

  it('returns all 45 participants in one page when first is 100', async () => {
    const { owner, joined } = await crowd()
    const res = await t.graphql(PARTICIPANTS, { id: 'big', first: 100 }, { key: owner.key })
    const { edges, pageInfo } = res.body.data.conversation.participants
    expect(edges.map((e: { node: { userId: string } }) => e.node.userId)).toEqual(joined)
    expect(pageInfo.hasNextPage).toBe(false)
  })

  it.each([0, 101, -1])('refuses first: %i as InvalidPayload', async (first) => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const res = await t.graphql(PARTICIPANTS, { id: 'c1', first }, { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual(fieldError('InvalidPayload', 400, ['conversation', 'participants']))
  })

  it.each([
    ['garbage', () => 'not-a-cursor'],
    ['a truncated cursor', (cursor: string) => cursor.slice(0, -3)],
    ['a cursor with altered characters', (cursor: string) => `${cursor.slice(0, -4)}AAAA`],
    ['an empty cursor', () => ''],
  ])('refuses %s as after with InvalidPayload', async (_name, tamper) => {
    const alice = await t.user('alice')
    await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
    const page = await t.graphql(PARTICIPANTS, { id: 'c1', first: 1 }, { key: alice.key })
    const cursor: string = page.body.data.conversation.participants.pageInfo.endCursor
    const res = await t.graphql(PARTICIPANTS, { id: 'c1', first: 1, after: tamper(cursor) }, { key: alice.key })
    expect(res.body).toEqual(fieldError('InvalidPayload', 400, ['conversation', 'participants']))
  })

  it('shows the participants only to participants', async () => {
    const alice = await t.user('alice')
    const carol = await t.user('carol')
    await t.conversation(alice.key, 'c1')
    const res = await t.graphql(PARTICIPANTS, { id: 'c1' }, { key: carol.key })
    expect(res.body).toEqual(fieldError('Forbidden', 403, ['conversation']))
  })
})
