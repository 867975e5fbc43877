import { jwtVerify } from 'jose'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { payloadToInput } from '../../src/graphql/types/payload-input.ts'
import { BASE, createTestApp, ENCRYPTION_KEY, type TestApp, WEBHOOK_ID } from '../helpers/app.ts'

// The parity operations over GraphQL (POST /{webhookId}/graphql), and the conversationSignals
// subscription over graphql-yoga's SSE transport. The bot is given no handler here: it never
// answers, so connections hold exactly what the test wrote (the runtime has its own tests).

const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

let t: TestApp
beforeEach(() => {
  t = createTestApp({ handlers: {} })
})
afterEach(async () => {
  await t.close()
})

type Actor = Awaited<ReturnType<TestApp['user']>>

const fieldError = (type: string, status: number, path: (string | number)[]) => ({
  errors: [expect.objectContaining({ path, extensions: { type, status, requestId: expect.any(String) } })],
  data: null,
})

const count = (sql: string) => (t.db.$client.prepare(sql).get() as { n: number }).n

const USER_FIELDS = 'userId name pictureUrl profile isBot createdAt updatedAt'

const CREATE_USER = /* GraphQL */ `
  mutation ($input: CreateUserInput!) {
    createUser(input: $input) { user { ${USER_FIELDS} } key }
  }
`
const UPDATE_USER = /* GraphQL */ `
  mutation ($input: UpdateUserInput!) {
    updateUser(input: $input) { user { ${USER_FIELDS} } }
  }
`
const DELETE_USER = /* GraphQL */ `
  mutation { deleteUser }
`
const ME = /* GraphQL */ `
  query { me { ${USER_FIELDS} } }
`
const GET_OR_CREATE_CONVERSATION = /* GraphQL */ `
  mutation ($input: GetOrCreateConversationInput!) {
    getOrCreateConversation(input: $input) {
      conversation { conversationId createdAt updatedAt owner { userId } participants { edges { node { userId } } } }
    }
  }
`
const CONVERSATIONS = /* GraphQL */ `
  query ($first: Int, $after: String) {
    conversations(first: $first, after: $after) {
      edges { cursor node { conversationId } }
      pageInfo { hasNextPage endCursor }
    }
  }
`
const CONVERSATION = /* GraphQL */ `
  query ($id: String!) {
    conversation(id: $id) { conversationId owner { userId } }
  }
`
const PARTICIPANT = /* GraphQL */ `
  query ($id: String!, $userId: String!) {
    conversation(id: $id) { participant(userId: $userId) { ${USER_FIELDS} } }
  }
`
const PARTICIPANT_IDS = /* GraphQL */ `
  query ($id: String!) {
    conversation(id: $id) { participants(first: 100) { edges { node { userId } } } }
  }
`
const MESSAGES = /* GraphQL */ `
  query ($id: String!, $first: Int, $after: String) {
    conversation(id: $id) {
      messages(first: $first, after: $after) {
        edges { cursor node { messageId userId conversationId createdAt rawPayload metadata } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`
const CREATE_MESSAGE = /* GraphQL */ `
  mutation ($input: CreateMessageInput!) {
    createMessage(input: $input) { message { messageId userId conversationId createdAt rawPayload metadata } }
  }
`
const DELETE_CONVERSATION = /* GraphQL */ `
  mutation ($input: DeleteConversationInput!) {
    deleteConversation(input: $input) { conversationId }
  }
`
const REMOVE_PARTICIPANT = /* GraphQL */ `
  mutation ($input: RemoveParticipantInput!) {
    removeParticipant(input: $input) { conversationId userId }
  }
`
const DELETE_MESSAGE = /* GraphQL */ `
  mutation ($input: DeleteMessageInput!) {
    deleteMessage(input: $input) { messageId }
  }
`
const MESSAGE = /* GraphQL */ `
  query ($id: String!) { message(id: $id) { messageId } }
`

const participantIds = async (key: string, id: string) => {
  const res = await t.graphql(PARTICIPANT_IDS, { id }, { key })
  expect(res.body.errors).toBeUndefined()
  return res.body.data.conversation.participants.edges.map((e: { node: { userId: string } }) => e.node.userId)
}

/** createMessage with a Chat API `{type, …}` payload, sent as the @oneOf input it maps onto. */
const createMessage = async (key: string, conversationId: string, payload: object = { type: 'text', text: 'hi' }) => {
  const res = await t.graphql(CREATE_MESSAGE, { input: { conversationId, payload: payloadToInput(payload) } }, { key })
  expect(res.body.errors).toBeUndefined()
  return res.body.data.createMessage.message as { messageId: string }
}

describe('createUser', () => {
  it('creates the user with the chosen id and profile without a key, and returns a key for it', async () => {
    const input = { id: 'dave', name: 'Dave', pictureUrl: 'https://pics.test/d.png', profile: '{"a":1}' }
    const res = await t.graphql(CREATE_USER, { input })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      data: {
        createUser: {
          user: {
            userId: 'dave',
            name: 'Dave',
            pictureUrl: 'https://pics.test/d.png',
            profile: '{"a":1}',
            isBot: false,
            createdAt: iso,
            updatedAt: iso,
          },
          key: expect.any(String),
        },
      },
    })
    const { key } = res.body.data.createUser
    const { payload, protectedHeader } = await jwtVerify(key, new TextEncoder().encode(ENCRYPTION_KEY))
    expect(protectedHeader.alg).toBe('HS256')
    expect(payload.id).toBe('dave')
    const me = await t.graphql(ME, {}, { key })
    expect(me.body).toEqual({ data: { me: res.body.data.createUser.user } })
  })

  it('generates an id when none is given and leaves the profile null', async () => {
    const res = await t.graphql(CREATE_USER, { input: {} })
    expect(res.body.data.createUser.user).toEqual({
      userId: expect.stringMatching(/^[A-Za-z0-9._:-]{1,64}$/),
      name: null,
      pictureUrl: null,
      profile: null,
      isBot: false,
      createdAt: iso,
      updatedAt: iso,
    })
  })

  it('refuses an id that exists with AlreadyExists', async () => {
    await t.user('alice', { name: 'Alice' })
    const res = await t.graphql(CREATE_USER, { input: { id: 'alice', name: 'Impostor' } })
    expect(res.body).toEqual(fieldError('AlreadyExists', 409, ['createUser']))
    expect(count("select count(*) as n from users where name = 'Impostor'")).toBe(0)
  })

  it.each([['a b'], [''], ['x'.repeat(65)]])('refuses the id %j with InvalidPayload', async (id) => {
    const res = await t.graphql(CREATE_USER, { input: { id } })
    expect(res.body).toEqual(fieldError('InvalidPayload', 400, ['createUser']))
    expect(count('select count(*) as n from users where not is_bot')).toBe(0)
  })
})

describe('updateUser', () => {
  it('sets the given fields, clears those given as null and keeps the others', async () => {
    const alice = await t.user('alice', { name: 'Alice', pictureUrl: 'https://pics.test/a.png', profile: 'p0' })
    const res = await t.graphql(UPDATE_USER, { input: { name: 'Alicia', pictureUrl: null } }, { key: alice.key })
    expect(res.status).toBe(200)
    const user = {
      userId: 'alice',
      name: 'Alicia',
      pictureUrl: null,
      profile: 'p0',
      isBot: false,
      createdAt: alice.user.createdAt,
      updatedAt: iso,
    }
    expect(res.body).toEqual({ data: { updateUser: { user } } })
    expect((await t.graphql(ME, {}, { key: alice.key })).body).toEqual({ data: { me: res.body.data.updateUser.user } })
  })

  it('refuses a request without a key with Unauthorized', async () => {
    const res = await t.graphql(UPDATE_USER, { input: { name: 'X' } })
    expect(res.body).toEqual(fieldError('Unauthorized', 401, ['updateUser']))
  })
})

describe('deleteUser', () => {
  it('returns the user id; the key then opens nothing', async () => {
    const alice = await t.user('alice')
    const res = await t.graphql(DELETE_USER, {}, { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ data: { deleteUser: 'alice' } })
    expect((await t.graphql(ME, {}, { key: alice.key })).body).toEqual(fieldError('Unauthorized', 401, ['me']))
    expect(count("select count(*) as n from users where id = 'alice'")).toBe(0)
  })

  it('deletes the conversations the user owns and its messages elsewhere', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'owned', ['bob'])
    await t.conversation(bob.key, 'theirs', ['alice'])
    await createMessage(alice.key, 'theirs')
    const kept = await createMessage(bob.key, 'theirs')
    await t.graphql(DELETE_USER, {}, { key: alice.key })
    expect((await t.graphql(CONVERSATION, { id: 'owned' }, { key: bob.key })).body).toEqual(
      fieldError('ResourceNotFound', 404, ['conversation']),
    )
    const messages = await t.graphql(MESSAGES, { id: 'theirs' }, { key: bob.key })
    expect(messages.body.data.conversation.messages.edges.map((e: { node: { messageId: string } }) => e.node.messageId)).toEqual([
      kept.messageId,
    ])
    expect(await participantIds(bob.key, 'theirs')).toEqual(['bob'])
  })

  it('refuses a request without a key with Unauthorized', async () => {
    const res = await t.graphql(DELETE_USER)
    expect(res.body).toEqual(fieldError('Unauthorized', 401, ['deleteUser']))
  })
})

describe('getOrCreateConversation', () => {
  it('creates a missing conversation owned by the caller', async () => {
    const alice = await t.user('alice')
    const res = await t.graphql(GET_OR_CREATE_CONVERSATION, { input: { id: 'c1' } }, { key: alice.key })
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

  it('returns an existing conversation to a participant, unchanged', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
    const first = await t.graphql(GET_OR_CREATE_CONVERSATION, { input: { id: 'c1' } }, { key: alice.key })
    const res = await t.graphql(GET_OR_CREATE_CONVERSATION, { input: { id: 'c1' } }, { key: bob.key })
    expect(res.body).toEqual(first.body)
    expect(res.body.data.getOrCreateConversation.conversation.owner).toEqual({ userId: 'alice' })
    expect(count('select count(*) as n from conversations')).toBe(1)
  })

  it('refuses an existing conversation to a non-participant with Forbidden', async () => {
    const alice = await t.user('alice')
    const mallory = await t.user('mallory')
    await t.conversation(alice.key, 'c1')
    const res = await t.graphql(GET_OR_CREATE_CONVERSATION, { input: { id: 'c1' } }, { key: mallory.key })
    expect(res.body).toEqual(fieldError('Forbidden', 403, ['getOrCreateConversation']))
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice'])
  })

  it('refuses a bad id with InvalidPayload', async () => {
    const alice = await t.user('alice')
    const res = await t.graphql(GET_OR_CREATE_CONVERSATION, { input: { id: 'a b' } }, { key: alice.key })
    expect(res.body).toEqual(fieldError('InvalidPayload', 400, ['getOrCreateConversation']))
  })
})

describe('conversations', () => {
  it("lists the caller's conversations, owned or joined, newest first", async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'a1')
    await t.conversation(bob.key, 'b1', ['alice'])
    await t.conversation(bob.key, 'b2')
    await t.conversation(alice.key, 'a2')
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
    const first = await t.graphql(CONVERSATIONS, { first: 2 }, { key: alice.key })
    expect(first.body.data.conversations.edges.map((e: { node: { conversationId: string } }) => e.node.conversationId)).toEqual([
      'c5',
      'c4',
    ])
    expect(first.body.data.conversations.pageInfo.hasNextPage).toBe(true)
    const rest = await t.graphql(
      CONVERSATIONS,
      { first: 10, after: first.body.data.conversations.pageInfo.endCursor },
      { key: alice.key },
    )
    expect(rest.body.data.conversations.edges.map((e: { node: { conversationId: string } }) => e.node.conversationId)).toEqual([
      'c3',
      'c2',
      'c1',
    ])
    expect(rest.body.data.conversations.pageInfo.hasNextPage).toBe(false)
  })

  it('refuses a request without a key with Unauthorized', async () => {
    const res = await t.graphql(CONVERSATIONS)
    expect(res.body).toEqual(fieldError('Unauthorized', 401, ['conversations']))
  })
})

describe('conversation.participant', () => {
  it('returns a participant', async () => {
    const alice = await t.user('alice')
    await t.user('bob', { name: 'Bob' })
    await t.conversation(alice.key, 'c1', ['bob'])
    const res = await t.graphql(PARTICIPANT, { id: 'c1', userId: 'bob' }, { key: alice.key })
    expect(res.body).toEqual({
      data: {
        conversation: {
          participant: {
            userId: 'bob',
            name: 'Bob',
            pictureUrl: null,
            profile: null,
            isBot: false,
            createdAt: iso,
            updatedAt: iso,
          },
        },
      },
    })
  })

  it.each([['carol'], ['nobody']])('answers ResourceNotFound for %s, who does not participate', async (userId) => {
    const alice = await t.user('alice')
    await t.user('carol')
    await t.conversation(alice.key, 'c1')
    const res = await t.graphql(PARTICIPANT, { id: 'c1', userId }, { key: alice.key })
    expect(res.body).toEqual(fieldError('ResourceNotFound', 404, ['conversation', 'participant']))
  })

  it('refuses a caller who is not a participant with Forbidden', async () => {
    const alice = await t.user('alice')
    const mallory = await t.user('mallory')
    await t.conversation(alice.key, 'c1')
    const res = await t.graphql(PARTICIPANT, { id: 'c1', userId: 'alice' }, { key: mallory.key })
    expect(res.body).toEqual(fieldError('Forbidden', 403, ['conversation']))
  })
})

describe('conversation.messages', () => {
  it('lists the messages newest first, and pages with first and after', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
    const ids: string[] = []
    for (let i = 0; i < 5; i++) ids.push((await createMessage(i % 2 ? bob.key : alice.key, 'c1', { type: 'text', text: `m${i}` })).messageId)
    const all = await t.graphql(MESSAGES, { id: 'c1' }, { key: bob.key })
    expect(all.body.data.conversation.messages).toEqual({
      edges: [4, 3, 2, 1, 0].map((i) => ({
        cursor: expect.any(String),
        node: {
          messageId: ids[i],
          userId: i % 2 ? 'bob' : 'alice',
          conversationId: 'c1',
          createdAt: iso,
          rawPayload: { type: 'text', text: `m${i}` },
          metadata: null,
        },
      })),
      pageInfo: { hasNextPage: false, endCursor: expect.any(String) },
    })
    const first = await t.graphql(MESSAGES, { id: 'c1', first: 3 }, { key: bob.key })
    const page = first.body.data.conversation.messages
    expect(page.pageInfo.hasNextPage).toBe(true)
    const rest = await t.graphql(MESSAGES, { id: 'c1', first: 3, after: page.pageInfo.endCursor }, { key: bob.key })
    const messageIds = (p: { edges: { node: { messageId: string } }[] }) => p.edges.map((e) => e.node.messageId)
    expect([...messageIds(page), ...messageIds(rest.body.data.conversation.messages)]).toEqual([...ids].reverse())
    expect(rest.body.data.conversation.messages.pageInfo.hasNextPage).toBe(false)
  })

  it('refuses a caller who is not a participant with Forbidden', async () => {
    const alice = await t.user('alice')
    const mallory = await t.user('mallory')
    await t.conversation(alice.key, 'c1')
    const res = await t.graphql(MESSAGES, { id: 'c1' }, { key: mallory.key })
    expect(res.body).toEqual(fieldError('Forbidden', 403, ['conversation']))
  })
})

describe('deleteConversation', () => {
  it('lets the owner delete it and returns its id', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
    await createMessage(bob.key, 'c1')
    const res = await t.graphql(DELETE_CONVERSATION, { input: { id: 'c1' } }, { key: alice.key })
    expect(res.body).toEqual({ data: { deleteConversation: { conversationId: 'c1' } } })
    expect((await t.graphql(CONVERSATION, { id: 'c1' }, { key: bob.key })).body).toEqual(
      fieldError('ResourceNotFound', 404, ['conversation']),
    )
    expect(count("select count(*) as n from messages where conversation_id = 'c1'")).toBe(0)
    expect(count("select count(*) as n from participants where conversation_id = 'c1'")).toBe(0)
  })

  it('refuses a participant who is not the owner with Forbidden, a non-participant too', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    const mallory = await t.user('mallory')
    await t.conversation(alice.key, 'c1', ['bob'])
    for (const key of [bob.key, mallory.key]) {
      const res = await t.graphql(DELETE_CONVERSATION, { input: { id: 'c1' } }, { key })
      expect(res.body).toEqual(fieldError('Forbidden', 403, ['deleteConversation']))
    }
    expect(count("select count(*) as n from conversations where id = 'c1'")).toBe(1)
  })

  it('answers ResourceNotFound for a conversation that does not exist', async () => {
    const alice = await t.user('alice')
    const res = await t.graphql(DELETE_CONVERSATION, { input: { id: 'nope' } }, { key: alice.key })
    expect(res.body).toEqual(fieldError('ResourceNotFound', 404, ['deleteConversation']))
  })
})

describe('removeParticipant', () => {
  let alice: Actor
  let bob: Actor
  beforeEach(async () => {
    alice = await t.user('alice')
    bob = await t.user('bob')
    await t.user('carol')
    await t.conversation(alice.key, 'c1', ['bob', 'carol'])
  })

  it('lets a participant remove itself', async () => {
    const res = await t.graphql(REMOVE_PARTICIPANT, { input: { conversationId: 'c1', userId: 'bob' } }, { key: bob.key })
    expect(res.body).toEqual({ data: { removeParticipant: { conversationId: 'c1', userId: 'bob' } } })
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'carol'])
    expect((await t.graphql(CONVERSATION, { id: 'c1' }, { key: bob.key })).body).toEqual(
      fieldError('Forbidden', 403, ['conversation']),
    )
  })

  it('lets the owner remove another participant', async () => {
    const res = await t.graphql(REMOVE_PARTICIPANT, { input: { conversationId: 'c1', userId: 'carol' } }, { key: alice.key })
    expect(res.body).toEqual({ data: { removeParticipant: { conversationId: 'c1', userId: 'carol' } } })
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'bob'])
  })

  it('refuses the removal of the owner with InvalidPayload', async () => {
    for (const key of [alice.key, bob.key]) {
      const res = await t.graphql(REMOVE_PARTICIPANT, { input: { conversationId: 'c1', userId: 'alice' } }, { key })
      expect(res.body).toEqual(fieldError('InvalidPayload', 400, ['removeParticipant']))
    }
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'bob', 'carol'])
  })

  it('refuses a non-owner removing someone else with Forbidden', async () => {
    const res = await t.graphql(REMOVE_PARTICIPANT, { input: { conversationId: 'c1', userId: 'carol' } }, { key: bob.key })
    expect(res.body).toEqual(fieldError('Forbidden', 403, ['removeParticipant']))
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'bob', 'carol'])
  })

  it('answers ResourceNotFound for a user who does not participate', async () => {
    await t.user('dave')
    const res = await t.graphql(REMOVE_PARTICIPANT, { input: { conversationId: 'c1', userId: 'dave' } }, { key: alice.key })
    expect(res.body).toEqual(fieldError('ResourceNotFound', 404, ['removeParticipant']))
  })
})

describe('deleteMessage', () => {
  let alice: Actor
  let bob: Actor
  beforeEach(async () => {
    alice = await t.user('alice')
    bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
  })

  it('lets the author delete it and returns its id', async () => {
    const { messageId } = await createMessage(bob.key, 'c1')
    const res = await t.graphql(DELETE_MESSAGE, { input: { id: messageId } }, { key: bob.key })
    expect(res.body).toEqual({ data: { deleteMessage: { messageId } } })
    expect((await t.graphql(MESSAGE, { id: messageId }, { key: alice.key })).body).toEqual(
      fieldError('ResourceNotFound', 404, ['message']),
    )
    const list = await t.graphql(MESSAGES, { id: 'c1' }, { key: alice.key })
    expect(list.body.data.conversation.messages.edges).toEqual([])
  })

  it('refuses another participant, the owner included, with Forbidden', async () => {
    const { messageId } = await createMessage(bob.key, 'c1')
    const res = await t.graphql(DELETE_MESSAGE, { input: { id: messageId } }, { key: alice.key })
    expect(res.body).toEqual(fieldError('Forbidden', 403, ['deleteMessage']))
    expect((await t.graphql(MESSAGE, { id: messageId }, { key: alice.key })).body).toEqual({ data: { message: { messageId } } })
  })

  it('answers ResourceNotFound for a message that does not exist', async () => {
    const res = await t.graphql(DELETE_MESSAGE, { input: { id: 'nope' } }, { key: bob.key })
    expect(res.body).toEqual(fieldError('ResourceNotFound', 404, ['deleteMessage']))
  })
})

// ---------------------------------------------------------------------------------------------
// conversationSignals over SSE

const SIGNALS = /* GraphQL */ `
  subscription ($id: String!) {
    conversationSignals(conversationId: $id) {
      __typename
      ... on MessageCreatedSignal { type isBot message { messageId userId conversationId createdAt rawPayload metadata } }
      ... on MessageDeletedSignal { type messageId conversationId userId }
      ... on EventCreatedSignal { type isBot event { eventId userId conversationId payload } }
      ... on ParticipantAddedSignal { type conversationId participantId }
      ... on ParticipantRemovedSignal { type conversationId participantId }
    }
  }
`

interface SseEvent {
  event?: string
  data: string
}

/**
 * Reads graphql-yoga's SSE answer event by event (`event:` and `data:` lines up to a blank line).
 * It reads from the start, in the background: yoga only starts the subscription once its body is
 * pulled, as a client that keeps reading does.
 */
class SseReader {
  private buffer = ''
  private ended = false
  private wake: () => void = () => {}
  private readonly decoder = new TextDecoder()

  constructor(readonly reader: ReadableStreamDefaultReader<Uint8Array>) {
    void this.pump()
  }

  private async pump() {
    try {
      for (;;) {
        const { done, value } = await this.reader.read()
        if (done) break
        this.buffer += this.decoder.decode(value, { stream: true })
        this.wake()
      }
    } catch {
      // Cancelled.
    }
    this.ended = true
    this.wake()
  }

  /** The next event that is not a keep-alive comment, or undefined once the stream has ended. */
  async next(): Promise<SseEvent | undefined> {
    const deadline = Date.now() + 5_000
    for (;;) {
      const end = this.buffer.indexOf('\n\n')
      if (end >= 0) {
        const block = this.buffer.slice(0, end)
        this.buffer = this.buffer.slice(end + 2)
        const lines = block.split('\n').filter((line) => !line.startsWith(':'))
        if (lines.length === 0) continue
        const event = lines.find((line) => line.startsWith('event:'))?.slice('event:'.length).trim()
        const data = lines
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice('data:'.length).trimStart())
          .join('\n')
        return { event, data }
      }
      if (this.ended) return undefined
      if (Date.now() > deadline) throw new Error('no SSE event within 5 s')
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100)
        this.wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    }
  }

  /** The payload of the next `event: next`. */
  async nextResult(): Promise<any> {
    const event = await this.next()
    expect(event?.event).toBe('next')
    return JSON.parse(event?.data ?? 'null')
  }
}

const subscribe = (key: string | undefined, conversationId: string) =>
  t.app.fetch(
    new Request(`${BASE}/${WEBHOOK_ID}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(key === undefined ? {} : { 'x-user-key': key }),
      },
      body: JSON.stringify({ query: SIGNALS, variables: { id: conversationId } }),
    }),
  )

/** Subscribes and waits until the subscription is live, so that nothing published afterwards is missed. */
async function listen(key: string, conversationId: string) {
  const baseline = t.app.signals.activeSubscriptions()
  const response = await subscribe(key, conversationId)
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')?.split(';')[0]).toBe('text/event-stream')
  const sse = new SseReader(response.body!.getReader())
  await vi.waitFor(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline + 1))
  return { sse, baseline }
}

describe('conversationSignals', () => {
  let alice: Actor
  let bob: Actor
  beforeEach(async () => {
    alice = await t.user('alice')
    bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
  })

  it('receives message_created over SSE, and cancelling the reader unsubscribes', async () => {
    const { sse, baseline } = await listen(alice.key, 'c1')
    const posted = await t.graphql(
      CREATE_MESSAGE,
      { input: { conversationId: 'c1', payload: { text: { text: 'live' } }, metadata: { m: 1 } } },
      { key: bob.key },
    )
    const message = posted.body.data.createMessage.message
    expect(await sse.nextResult()).toEqual({
      data: {
        conversationSignals: {
          __typename: 'MessageCreatedSignal',
          type: 'message_created',
          isBot: false,
          message: {
            messageId: message.messageId,
            userId: 'bob',
            conversationId: 'c1',
            createdAt: iso,
            rawPayload: { type: 'text', text: 'live' },
            metadata: { m: 1 },
          },
        },
      },
    })
    await sse.reader.cancel()
    await vi.waitFor(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline))
  })

  it('receives the other four signals', async () => {
    const { sse, baseline } = await listen(alice.key, 'c1')
    const { messageId } = await createMessage(bob.key, 'c1')
    await sse.nextResult()
    await t.graphql(DELETE_MESSAGE, { input: { id: messageId } }, { key: bob.key })
    expect(await sse.nextResult()).toEqual({
      data: {
        conversationSignals: {
          __typename: 'MessageDeletedSignal',
          type: 'message_deleted',
          messageId,
          conversationId: 'c1',
          userId: 'bob',
        },
      },
    })
    const event = await t.chat('POST', '/events', { key: bob.key, body: { conversationId: 'c1', payload: { type: 'typing' } } })
    expect(await sse.nextResult()).toEqual({
      data: {
        conversationSignals: {
          __typename: 'EventCreatedSignal',
          type: 'event_created',
          isBot: false,
          event: { eventId: event.body.event.id, userId: 'bob', conversationId: 'c1', payload: { type: 'typing' } },
        },
      },
    })
    await t.user('carol')
    await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'carol' } })
    expect(await sse.nextResult()).toEqual({
      data: {
        conversationSignals: {
          __typename: 'ParticipantAddedSignal',
          type: 'participant_added',
          conversationId: 'c1',
          participantId: 'carol',
        },
      },
    })
    await t.graphql(REMOVE_PARTICIPANT, { input: { conversationId: 'c1', userId: 'carol' } }, { key: alice.key })
    expect(await sse.nextResult()).toEqual({
      data: {
        conversationSignals: {
          __typename: 'ParticipantRemovedSignal',
          type: 'participant_removed',
          conversationId: 'c1',
          participantId: 'carol',
        },
      },
    })
    await sse.reader.cancel()
    await vi.waitFor(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline))
  })

  it('completes after the subscriber is removed, with its own participant_removed last', async () => {
    const { sse, baseline } = await listen(bob.key, 'c1')
    await t.graphql(REMOVE_PARTICIPANT, { input: { conversationId: 'c1', userId: 'bob' } }, { key: alice.key })
    expect(await sse.nextResult()).toEqual({
      data: {
        conversationSignals: {
          __typename: 'ParticipantRemovedSignal',
          type: 'participant_removed',
          conversationId: 'c1',
          participantId: 'bob',
        },
      },
    })
    expect(await sse.next()).toEqual({ event: 'complete', data: '' })
    await vi.waitFor(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline))
  })

  it('completes when the conversation is deleted', async () => {
    const { sse, baseline } = await listen(bob.key, 'c1')
    await t.graphql(DELETE_CONVERSATION, { input: { id: 'c1' } }, { key: alice.key })
    expect(await sse.next()).toEqual({ event: 'complete', data: '' })
    await vi.waitFor(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline))
  })

  it('refuses a user who is not a participant with Forbidden, and subscribes nothing', async () => {
    const mallory = await t.user('mallory')
    const baseline = t.app.signals.activeSubscriptions()
    const res = await subscribe(mallory.key, 'c1')
    // A refused subscription is the caller's fault, not a server failure.
    expect([200, 403]).toContain(res.status)
    const sse = new SseReader(res.body!.getReader())
    const refusal = await sse.nextResult()
    expect(refusal).toEqual({
      errors: [expect.objectContaining({ path: ['conversationSignals'], extensions: { type: 'Forbidden', status: 403, requestId: expect.any(String) } })],
    })
    expect(await sse.next()).toEqual({ event: 'complete', data: '' })
    expect(t.app.signals.activeSubscriptions()).toBe(baseline)
  })

  it('refuses a request without a key with Unauthorized', async () => {
    const res = await subscribe(undefined, 'c1')
    expect([200, 401]).toContain(res.status)
    const sse = new SseReader(res.body!.getReader())
    expect(await sse.nextResult()).toEqual({
      errors: [expect.objectContaining({ path: ['conversationSignals'], extensions: { type: 'Unauthorized', status: 401, requestId: expect.any(String) } })],
    })
    expect(await sse.next()).toEqual({ event: 'complete', data: '' })
  })

  it('refuses a conversation that does not exist with ResourceNotFound', async () => {
    const res = await subscribe(alice.key, 'nope')
    expect([200, 404]).toContain(res.status)
    const sse = new SseReader(res.body!.getReader())
    expect(await sse.nextResult()).toEqual({
      errors: [
        expect.objectContaining({ path: ['conversationSignals'], extensions: { type: 'ResourceNotFound', status: 404, requestId: expect.any(String) } }),
      ],
    })
  })
})
