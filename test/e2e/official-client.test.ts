import {
  AlreadyExistsError,
  type AuthenticatedClient,
  ChatClientError,
  Client,
  ForbiddenError,
  InvalidPayloadError,
  ResourceNotFoundError,
  type SignalListener,
  UnauthorizedError,
} from '@botpress/chat'
import { jwtVerify, SignJWT } from 'jose'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ENCRYPTION_KEY, WEBHOOK_ID } from '../helpers/app.ts'
import { ISO, type Listening, recordSignals, startListening } from '../helpers/listening.ts'

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,64}$/

let s: Listening
let listeners: SignalListener[]

beforeEach(async () => {
  s = await startListening()
  listeners = []
})

afterEach(async () => {
  for (const listener of listeners) await listener.disconnect()
  await s.close()
})

/** A user of the official client, on a key it signs itself with the integration's encryption key. */
const connect = (userId: string) => Client.connect({ apiUrl: s.apiUrl, userId, encryptionKey: ENCRYPTION_KEY })

/** The client without a user, for the operations that take no key or an explicit one. */
const bare = () => new Client({ apiUrl: s.apiUrl })

const withoutKey = ({ key: _, ...user }: AuthenticatedClient['user']) => user

const sign = (claims: Record<string, unknown>, secret = ENCRYPTION_KEY) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret))

async function verifiedClaims(key: string) {
  const { payload, protectedHeader } = await jwtVerify(key, new TextEncoder().encode(ENCRYPTION_KEY))
  return { alg: protectedHeader.alg, id: payload.id }
}

type ErrorClass = abstract new (...args: never[]) => Error

/** The call fails with this typed error of the client, carrying the API's code, type and request id. */
async function expectApiError(call: Promise<unknown>, ErrorClass: ErrorClass, code: number, type: string) {
  const error: unknown = await call.then(
    (value) => {
      throw new Error(`expected ${type}, got ${JSON.stringify(value)}`)
    },
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(ErrorClass)
  expect(error).toMatchObject({ code, type, isApiError: true, id: expect.stringMatching(/.+/) })
}

/** A conversation of `owner` with the given participants added. */
async function conversationOf(owner: AuthenticatedClient, id: string, ...others: AuthenticatedClient[]) {
  const { conversation } = await owner.createConversation({ id })
  for (const other of others) await owner.addParticipant({ conversationId: id, userId: other.user.id })
  return conversation
}

/** Waits until the echo bot's answer is the newest message of the conversation, and returns it. */
async function botAnswer(client: AuthenticatedClient, conversationId: string) {
  return vi.waitFor(async () => {
    const { messages } = await client.listMessages({ conversationId })
    const newest = messages[0]
    expect(newest?.userId).toBe(s.botId)
    return newest!
  })
}

async function listen(client: AuthenticatedClient, conversationId: string) {
  const listener = await client.listenConversation({ id: conversationId })
  listeners.push(listener)
  return recordSignals(listener)
}

describe('Client.connect', () => {
  it('without a user, has the server create one (createUser) and holds the key it returned', async () => {
    const client = await Client.connect({ apiUrl: s.apiUrl })
    expect(client.user).toEqual({
      id: expect.stringMatching(CLIENT_ID),
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
      key: expect.any(String),
    })
    expect(await verifiedClaims(client.user.key)).toEqual({ alg: 'HS256', id: client.user.id })
    expect(await client.getUser({})).toEqual({ user: withoutKey(client.user) })
  })

  it('with a userId, has the server create the user under that id', async () => {
    const client = await Client.connect({ apiUrl: s.apiUrl, userId: 'alice' })
    expect(client.user).toEqual({
      id: 'alice',
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
      key: expect.any(String),
    })
    expect(await verifiedClaims(client.user.key)).toEqual({ alg: 'HS256', id: 'alice' })
    expect(await client.getUser({})).toEqual({ user: withoutKey(client.user) })
  })

  it('with a userId that is taken, fails with AlreadyExists', async () => {
    await Client.connect({ apiUrl: s.apiUrl, userId: 'alice' })
    await expectApiError(
      Client.connect({ apiUrl: s.apiUrl, userId: 'alice' }),
      AlreadyExistsError,
      409,
      'AlreadyExists',
    )
  })

  it('with a userId and the encryption key, signs its own key and gets or creates that user', async () => {
    const first = await connect('carol')
    expect(first.user).toEqual({
      id: 'carol',
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
      key: expect.any(String),
    })
    expect(await verifiedClaims(first.user.key)).toEqual({ alg: 'HS256', id: 'carol' })
    const again = await connect('carol')
    expect(withoutKey(again.user)).toEqual(withoutKey(first.user))
    expect(await again.getUser({})).toEqual({ user: withoutKey(first.user) })
  })

  it('with another encryption key, fails with Unauthorized', async () => {
    await expectApiError(
      Client.connect({ apiUrl: s.apiUrl, userId: 'carol', encryptionKey: 'not-the-integration-key' }),
      UnauthorizedError,
      401,
      'Unauthorized',
    )
  })

  it('with a userKey, resumes the user of that key', async () => {
    const first = await Client.connect({ apiUrl: s.apiUrl })
    const resumed = await Client.connect({ apiUrl: s.apiUrl, userKey: first.user.key })
    expect(resumed.user).toEqual(first.user)
    const { conversation } = await first.createConversation({})
    expect(await resumed.getConversation({ id: conversation.id })).toEqual({ conversation })
  })

  it('with a userKey that is not a valid key, fails with Unauthorized', async () => {
    await expectApiError(
      Client.connect({ apiUrl: s.apiUrl, userKey: 'not-a-jwt' }),
      UnauthorizedError,
      401,
      'Unauthorized',
    )
    await expectApiError(
      Client.connect({ apiUrl: s.apiUrl, userKey: await sign({ id: 'dave' }, 'another-secret') }),
      UnauthorizedError,
      401,
      'Unauthorized',
    )
  })

  it('accepts a webhookId with a baseApiUrl in place of the apiUrl', async () => {
    const client = await Client.connect({ webhookId: WEBHOOK_ID, baseApiUrl: s.baseUrl, userId: 'erin' })
    expect(client.user.id).toBe('erin')
    expect(await client.getUser({})).toEqual({ user: withoutKey(client.user) })
  })

  it('fails to connect to a webhook id the server does not know', async () => {
    const connecting = Client.connect({ apiUrl: `${s.baseUrl}/no-such-webhook` })
    await expect(connecting).rejects.toBeInstanceOf(ChatClientError)
  })
})

describe('createUser', () => {
  it('creates the user with the given id and profile, with a key signed for it', async () => {
    const created = await bare().createUser({
      id: 'alice',
      name: 'Alice',
      pictureUrl: 'https://pics.test/alice.png',
      profile: 'likes:cats',
    })
    expect(created).toEqual({
      user: {
        id: 'alice',
        name: 'Alice',
        pictureUrl: 'https://pics.test/alice.png',
        profile: 'likes:cats',
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
      key: expect.any(String),
    })
    expect(await verifiedClaims(created.key)).toEqual({ alg: 'HS256', id: 'alice' })
    const client = await Client.connect({ apiUrl: s.apiUrl, userKey: created.key })
    expect(await client.getUser({})).toEqual({ user: created.user })
  })

  it('generates an id when none is given and leaves absent optional fields out', async () => {
    const first = await bare().createUser({})
    const second = await bare().createUser({})
    expect(first).toEqual({
      user: {
        id: expect.stringMatching(CLIENT_ID),
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
      key: expect.any(String),
    })
    expect(second.user.id).not.toBe(first.user.id)
  })

  it('refuses an id that exists with AlreadyExists', async () => {
    await bare().createUser({ id: 'alice' })
    await expectApiError(bare().createUser({ id: 'alice', name: 'Other' }), AlreadyExistsError, 409, 'AlreadyExists')
  })

  it('refuses an id outside 1-64 characters of [A-Za-z0-9._:-] with InvalidPayload', async () => {
    await expectApiError(bare().createUser({ id: 'not valid!' }), InvalidPayloadError, 400, 'InvalidPayload')
    await expectApiError(bare().createUser({ id: 'x'.repeat(65) }), InvalidPayloadError, 400, 'InvalidPayload')
  })
})

describe('getUser', () => {
  it('returns the caller exactly as it was created', async () => {
    const { user, key } = await bare().createUser({ id: 'alice', name: 'Alice', profile: 'p' })
    const client = await Client.connect({ apiUrl: s.apiUrl, userKey: key })
    expect(await client.getUser({})).toEqual({ user })
  })

  it('refuses a key whose user does not exist with Unauthorized', async () => {
    const key = await sign({ id: 'ghost' })
    await expectApiError(bare().getUser({ 'x-user-key': key }), UnauthorizedError, 401, 'Unauthorized')
  })
})

describe('updateUser', () => {
  it('sets the given fields, keeps the absent ones and moves updatedAt', async () => {
    const { user, key } = await bare().createUser({ id: 'alice', name: 'Alice', profile: 'p1' })
    const alice = await Client.connect({ apiUrl: s.apiUrl, userKey: key })
    // Let the clock pass the creation millisecond, so that the update can only move updatedAt forward.
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(Date.parse(user.updatedAt)))

    const first = await alice.updateUser({ pictureUrl: 'https://pics.test/a.png' })
    expect(first).toEqual({
      user: {
        id: 'alice',
        name: 'Alice',
        pictureUrl: 'https://pics.test/a.png',
        profile: 'p1',
        createdAt: user.createdAt,
        updatedAt: expect.stringMatching(ISO),
      },
    })
    expect(first.user.updatedAt > user.updatedAt).toBe(true)

    const second = await alice.updateUser({ name: 'Alicia', profile: 'p2' })
    expect(second).toEqual({
      user: {
        id: 'alice',
        name: 'Alicia',
        pictureUrl: 'https://pics.test/a.png',
        profile: 'p2',
        createdAt: user.createdAt,
        updatedAt: expect.stringMatching(ISO),
      },
    })
    expect(await alice.getUser({})).toEqual(second)
  })

  it('shows the new profile to the other participants', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    const { user } = await bob.updateUser({ name: 'Bob' })
    expect(await alice.getParticipant({ conversationId: 'c1', userId: 'bob' })).toEqual({ participant: user })
  })
})

describe('deleteUser', () => {
  it('answers {} and the key is refused afterwards with Unauthorized', async () => {
    const alice = await connect('alice')
    expect(await alice.deleteUser({})).toEqual({})
    await expectApiError(alice.getUser({}), UnauthorizedError, 401, 'Unauthorized')
    await expectApiError(alice.createConversation({}), UnauthorizedError, 401, 'Unauthorized')
  })

  it('deletes the conversations the user owns and its messages elsewhere', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'owned-by-alice', bob)
    const bobs = await conversationOf(bob, 'owned-by-bob', alice)
    const { message } = await alice.createMessage({
      conversationId: 'owned-by-bob',
      payload: { type: 'text', text: 'hi' },
    })
    await botAnswer(bob, 'owned-by-bob')

    expect(await alice.deleteUser({})).toEqual({})

    await expectApiError(bob.getConversation({ id: 'owned-by-alice' }), ResourceNotFoundError, 404, 'ResourceNotFound')
    await expectApiError(bob.getMessage({ id: message.id }), ResourceNotFoundError, 404, 'ResourceNotFound')
    expect(await bob.getConversation({ id: 'owned-by-bob' })).toEqual({ conversation: bobs })
    await expectApiError(
      bob.getParticipant({ conversationId: 'owned-by-bob', userId: 'alice' }),
      ResourceNotFoundError,
      404,
      'ResourceNotFound',
    )
  })
})

describe('getOrCreateUser', () => {
  it('creates the user the key names with the given profile, then returns it unchanged', async () => {
    const key = await sign({ id: 'dave' })
    const created = await bare().getOrCreateUser({
      'x-user-key': key,
      name: 'Dave',
      pictureUrl: 'https://pics.test/d.png',
    })
    expect(created).toEqual({
      user: {
        id: 'dave',
        name: 'Dave',
        pictureUrl: 'https://pics.test/d.png',
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
    })
    expect(await bare().getOrCreateUser({ 'x-user-key': key, name: 'Somebody else' })).toEqual(created)
  })

  it('refuses a key signed with another secret with Unauthorized', async () => {
    const key = await sign({ id: 'dave' }, 'another-secret')
    await expectApiError(bare().getOrCreateUser({ 'x-user-key': key }), UnauthorizedError, 401, 'Unauthorized')
  })
})

describe('createConversation', () => {
  it('creates the conversation under the given id, with the caller as its first participant', async () => {
    const alice = await connect('alice')
    expect(await alice.createConversation({ id: 'support-1' })).toEqual({
      conversation: { id: 'support-1', createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO) },
    })
    expect(await alice.listParticipants({ conversationId: 'support-1' })).toEqual({
      participants: [withoutKey(alice.user)],
      meta: {},
    })
  })

  it('generates an id when none is given', async () => {
    const alice = await connect('alice')
    const first = await alice.createConversation({})
    const second = await alice.createConversation({})
    expect(first).toEqual({
      conversation: {
        id: expect.stringMatching(CLIENT_ID),
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
    })
    expect(second.conversation.id).not.toBe(first.conversation.id)
  })

  it('refuses an id that exists, even one another user created, with AlreadyExists', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await alice.createConversation({ id: 'c1' })
    await expectApiError(alice.createConversation({ id: 'c1' }), AlreadyExistsError, 409, 'AlreadyExists')
    await expectApiError(bob.createConversation({ id: 'c1' }), AlreadyExistsError, 409, 'AlreadyExists')
  })

  it('refuses an invalid id with InvalidPayload', async () => {
    const alice = await connect('alice')
    await expectApiError(alice.createConversation({ id: 'has spaces' }), InvalidPayloadError, 400, 'InvalidPayload')
  })
})

describe('getConversation', () => {
  it('returns the conversation to any participant', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    const conversation = await conversationOf(alice, 'c1', bob)
    expect(await alice.getConversation({ id: 'c1' })).toEqual({ conversation })
    expect(await bob.getConversation({ id: 'c1' })).toEqual({ conversation })
  })

  it('refuses a user who does not participate with Forbidden', async () => {
    const alice = await connect('alice')
    const mallory = await connect('mallory')
    await alice.createConversation({ id: 'c1' })
    await expectApiError(mallory.getConversation({ id: 'c1' }), ForbiddenError, 403, 'Forbidden')
  })

  it('answers ResourceNotFound for a conversation that does not exist', async () => {
    const alice = await connect('alice')
    await expectApiError(alice.getConversation({ id: 'nope' }), ResourceNotFoundError, 404, 'ResourceNotFound')
  })
})

describe('getOrCreateConversation', () => {
  it('creates a missing conversation, owned by the caller', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    const { conversation } = await alice.getOrCreateConversation({ id: 'c1' })
    expect(conversation).toEqual({
      id: 'c1',
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    })
    expect(await alice.getConversation({ id: 'c1' })).toEqual({ conversation })
    await alice.addParticipant({ conversationId: 'c1', userId: 'bob' })
    await expectApiError(bob.deleteConversation({ id: 'c1' }), ForbiddenError, 403, 'Forbidden')
    expect(await alice.deleteConversation({ id: 'c1' })).toEqual({})
  })

  it('returns an existing conversation to a participant, unchanged', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    const conversation = await conversationOf(alice, 'c1', bob)
    expect(await bob.getOrCreateConversation({ id: 'c1' })).toEqual({ conversation })
    expect(await alice.getOrCreateConversation({ id: 'c1' })).toEqual({ conversation })
  })

  it('refuses an existing conversation to a user who does not participate with Forbidden', async () => {
    const alice = await connect('alice')
    const mallory = await connect('mallory')
    await alice.createConversation({ id: 'c1' })
    await expectApiError(mallory.getOrCreateConversation({ id: 'c1' }), ForbiddenError, 403, 'Forbidden')
  })

  it('refuses an invalid id with InvalidPayload', async () => {
    const alice = await connect('alice')
    await expectApiError(alice.getOrCreateConversation({ id: '' }), InvalidPayloadError, 400, 'InvalidPayload')
  })
})

describe('listConversations', () => {
  it("lists the caller's conversations, newest first, and no one else's", async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    const c0 = await conversationOf(alice, 'conv-0')
    const c1 = await conversationOf(alice, 'conv-1')
    const c2 = await conversationOf(bob, 'conv-2', alice)
    await conversationOf(bob, 'conv-3')
    expect(await alice.listConversations({})).toEqual({ conversations: [c2, c1, c0], meta: {} })
    expect((await bob.listConversations({})).conversations.map((c) => c.id)).toEqual(['conv-3', 'conv-2'])
  })

  it('pages by 20 with meta.nextToken, and list.conversations collects every page', async () => {
    const alice = await connect('alice')
    const created = []
    for (let i = 0; i < 25; i++) created.push(await conversationOf(alice, `conv-${String(i).padStart(2, '0')}`))
    const newestFirst = created.reverse()

    const first = await alice.listConversations({})
    expect(first).toEqual({ conversations: newestFirst.slice(0, 20), meta: { nextToken: expect.any(String) } })
    const second = await alice.listConversations({ nextToken: first.meta.nextToken })
    expect(second).toEqual({ conversations: newestFirst.slice(20), meta: {} })

    expect(await alice.list.conversations({}).collect()).toEqual(newestFirst)
  })
})

describe('deleteConversation', () => {
  it('lets the owner delete it, with its messages, for every participant', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    const { message } = await bob.createMessage({ conversationId: 'c1', payload: { type: 'text', text: 'bye' } })
    await botAnswer(alice, 'c1')

    expect(await alice.deleteConversation({ id: 'c1' })).toEqual({})

    await expectApiError(alice.getConversation({ id: 'c1' }), ResourceNotFoundError, 404, 'ResourceNotFound')
    await expectApiError(bob.getConversation({ id: 'c1' }), ResourceNotFoundError, 404, 'ResourceNotFound')
    await expectApiError(bob.getMessage({ id: message.id }), ResourceNotFoundError, 404, 'ResourceNotFound')
    expect(await bob.listConversations({})).toEqual({ conversations: [], meta: {} })
  })

  it('refuses a participant who is not the owner with Forbidden, and keeps the conversation', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    const conversation = await conversationOf(alice, 'c1', bob)
    await expectApiError(bob.deleteConversation({ id: 'c1' }), ForbiddenError, 403, 'Forbidden')
    expect(await bob.getConversation({ id: 'c1' })).toEqual({ conversation })
  })

  it('answers ResourceNotFound for a conversation that does not exist', async () => {
    const alice = await connect('alice')
    await expectApiError(alice.deleteConversation({ id: 'nope' }), ResourceNotFoundError, 404, 'ResourceNotFound')
  })
})

describe('addParticipant', () => {
  it('adds the user and returns it as the participant', async () => {
    const alice = await connect('alice')
    const { user } = await bare().createUser({ id: 'bob', name: 'Bob', pictureUrl: 'https://pics.test/b.png' })
    await alice.createConversation({ id: 'c1' })
    expect(await alice.addParticipant({ conversationId: 'c1', userId: 'bob' })).toEqual({ participant: user })
    expect(await alice.listParticipants({ conversationId: 'c1' })).toEqual({
      participants: [withoutKey(alice.user), user],
      meta: {},
    })
  })

  it('adding the same user twice changes nothing', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    expect(await alice.addParticipant({ conversationId: 'c1', userId: 'bob' })).toEqual({
      participant: withoutKey(bob.user),
    })
    expect(await alice.listParticipants({ conversationId: 'c1' })).toEqual({
      participants: [withoutKey(alice.user), withoutKey(bob.user)],
      meta: {},
    })
  })

  it('lets any participant add others', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    const carol = await connect('carol')
    await conversationOf(alice, 'c1', bob)
    expect(await bob.addParticipant({ conversationId: 'c1', userId: 'carol' })).toEqual({
      participant: withoutKey(carol.user),
    })
  })

  it('refuses a caller who does not participate with Forbidden', async () => {
    const alice = await connect('alice')
    const mallory = await connect('mallory')
    await alice.createConversation({ id: 'c1' })
    await expectApiError(
      mallory.addParticipant({ conversationId: 'c1', userId: 'mallory' }),
      ForbiddenError,
      403,
      'Forbidden',
    )
  })

  it('answers ResourceNotFound for a user or a conversation that does not exist', async () => {
    const alice = await connect('alice')
    await connect('bob')
    await alice.createConversation({ id: 'c1' })
    await expectApiError(
      alice.addParticipant({ conversationId: 'c1', userId: 'nobody' }),
      ResourceNotFoundError,
      404,
      'ResourceNotFound',
    )
    await expectApiError(
      alice.addParticipant({ conversationId: 'nope', userId: 'bob' }),
      ResourceNotFoundError,
      404,
      'ResourceNotFound',
    )
  })
})

describe('getParticipant', () => {
  it('returns a participant, the owner included', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    expect(await bob.getParticipant({ conversationId: 'c1', userId: 'alice' })).toEqual({
      participant: withoutKey(alice.user),
    })
    expect(await alice.getParticipant({ conversationId: 'c1', userId: 'bob' })).toEqual({
      participant: withoutKey(bob.user),
    })
  })

  it('answers ResourceNotFound for a user who is not a participant', async () => {
    const alice = await connect('alice')
    await connect('bob')
    await alice.createConversation({ id: 'c1' })
    await expectApiError(
      alice.getParticipant({ conversationId: 'c1', userId: 'bob' }),
      ResourceNotFoundError,
      404,
      'ResourceNotFound',
    )
    await expectApiError(
      alice.getParticipant({ conversationId: 'c1', userId: 'nobody' }),
      ResourceNotFoundError,
      404,
      'ResourceNotFound',
    )
  })

  it('refuses a caller who does not participate with Forbidden', async () => {
    const alice = await connect('alice')
    const mallory = await connect('mallory')
    await alice.createConversation({ id: 'c1' })
    await expectApiError(
      mallory.getParticipant({ conversationId: 'c1', userId: 'alice' }),
      ForbiddenError,
      403,
      'Forbidden',
    )
  })
})

describe('listParticipants', () => {
  it('lists the participants in join order', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    const carol = await connect('carol')
    await alice.createConversation({ id: 'c1' })
    await alice.addParticipant({ conversationId: 'c1', userId: 'carol' })
    await carol.addParticipant({ conversationId: 'c1', userId: 'bob' })
    expect(await bob.listParticipants({ conversationId: 'c1' })).toEqual({
      participants: [withoutKey(alice.user), withoutKey(carol.user), withoutKey(bob.user)],
      meta: {},
    })
  })

  it('pages by 20, and list.participants collects every page', async () => {
    const alice = await connect('alice')
    await alice.createConversation({ id: 'c1' })
    const joined = [withoutKey(alice.user)]
    for (let i = 0; i < 24; i++) {
      const { participant } = await alice.addParticipant({
        conversationId: 'c1',
        userId: (await bare().createUser({ id: `user-${i}` })).user.id,
      })
      joined.push(participant)
    }
    const first = await alice.listParticipants({ conversationId: 'c1' })
    expect(first).toEqual({ participants: joined.slice(0, 20), meta: { nextToken: expect.any(String) } })
    expect(await alice.list.participants({ conversationId: 'c1' }).collect()).toEqual(joined)
  })

  it('refuses a caller who does not participate with Forbidden', async () => {
    const alice = await connect('alice')
    const mallory = await connect('mallory')
    await alice.createConversation({ id: 'c1' })
    await expectApiError(mallory.listParticipants({ conversationId: 'c1' }), ForbiddenError, 403, 'Forbidden')
  })
})

describe('removeParticipant', () => {
  it('lets a participant leave, after which the conversation is closed to it', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    expect(await bob.removeParticipant({ conversationId: 'c1', userId: 'bob' })).toEqual({})
    await expectApiError(bob.getConversation({ id: 'c1' }), ForbiddenError, 403, 'Forbidden')
    await expectApiError(
      alice.getParticipant({ conversationId: 'c1', userId: 'bob' }),
      ResourceNotFoundError,
      404,
      'ResourceNotFound',
    )
  })

  it('lets the owner remove another participant', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    const carol = await connect('carol')
    await conversationOf(alice, 'c1', bob, carol)
    expect(await alice.removeParticipant({ conversationId: 'c1', userId: 'bob' })).toEqual({})
    expect(await alice.listParticipants({ conversationId: 'c1' })).toEqual({
      participants: [withoutKey(alice.user), withoutKey(carol.user)],
      meta: {},
    })
  })

  it('refuses to remove the owner with InvalidPayload', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    await expectApiError(
      alice.removeParticipant({ conversationId: 'c1', userId: 'alice' }),
      InvalidPayloadError,
      400,
      'InvalidPayload',
    )
    await expectApiError(
      bob.removeParticipant({ conversationId: 'c1', userId: 'alice' }),
      InvalidPayloadError,
      400,
      'InvalidPayload',
    )
  })

  it('refuses a participant who is not the owner removing someone else with Forbidden', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    const carol = await connect('carol')
    await conversationOf(alice, 'c1', bob, carol)
    await expectApiError(
      bob.removeParticipant({ conversationId: 'c1', userId: 'carol' }),
      ForbiddenError,
      403,
      'Forbidden',
    )
    expect(await alice.getParticipant({ conversationId: 'c1', userId: 'carol' })).toEqual({
      participant: withoutKey(carol.user),
    })
  })

  it('answers ResourceNotFound for a user who is not a participant', async () => {
    const alice = await connect('alice')
    await connect('bob')
    await alice.createConversation({ id: 'c1' })
    await expectApiError(
      alice.removeParticipant({ conversationId: 'c1', userId: 'bob' }),
      ResourceNotFoundError,
      404,
      'ResourceNotFound',
    )
  })
})

describe('createMessage', () => {
  it('stores the message with its metadata and returns it', async () => {
    const alice = await connect('alice')
    await alice.createConversation({ id: 'c1' })
    const created = await alice.createMessage({
      conversationId: 'c1',
      payload: { type: 'text', text: 'Hello' },
      metadata: { locale: 'fr', nested: { n: 1, list: [true, null] } },
    })
    expect(created).toEqual({
      message: {
        id: expect.stringMatching(CLIENT_ID),
        createdAt: expect.stringMatching(ISO),
        payload: { type: 'text', text: 'Hello' },
        userId: 'alice',
        conversationId: 'c1',
        metadata: { locale: 'fr', nested: { n: 1, list: [true, null] } },
      },
    })
  })

  it('leaves metadata out when none is given', async () => {
    const alice = await connect('alice')
    await alice.createConversation({ id: 'c1' })
    expect(await alice.createMessage({ conversationId: 'c1', payload: { type: 'text', text: 'Hello' } })).toEqual({
      message: {
        id: expect.any(String),
        createdAt: expect.stringMatching(ISO),
        payload: { type: 'text', text: 'Hello' },
        userId: 'alice',
        conversationId: 'c1',
      },
    })
  })

  it('keeps every kind of payload exactly, extra properties included', async () => {
    const alice = await connect('alice')
    await alice.createConversation({ id: 'c1' })
    const payloads = [
      { type: 'image', imageUrl: 'https://pics.test/i.png' },
      { type: 'markdown', markdown: '**hi**' },
      { type: 'choice', text: 'Pick', options: [{ label: 'A', value: 'a' }] },
      {
        type: 'card',
        title: 'T',
        subtitle: 'S',
        actions: [{ action: 'postback', label: 'Go', value: 'go' }],
        extra: { kept: true },
      },
      { type: 'location', latitude: 45.5, longitude: -73.6, title: 'Montréal' },
      {
        type: 'bloc',
        items: [
          { type: 'text', text: 'a' },
          { type: 'file', fileUrl: 'https://f.test/x.pdf', title: 'x' },
        ],
      },
    ] as const
    for (const payload of payloads) {
      const { message } = await alice.createMessage({
        conversationId: 'c1',
        payload: structuredClone(payload) as never,
      })
      expect(message.payload).toEqual(payload)
      expect(await alice.getMessage({ id: message.id })).toEqual({ message })
    }
  })

  it('refuses a payload that does not fit its kind with InvalidPayload', async () => {
    const alice = await connect('alice')
    await alice.createConversation({ id: 'c1' })
    await expectApiError(
      alice.createMessage({ conversationId: 'c1', payload: { type: 'text' } as never }),
      InvalidPayloadError,
      400,
      'InvalidPayload',
    )
    await expectApiError(
      alice.createMessage({
        conversationId: 'c1',
        payload: { type: 'location', latitude: 'north', longitude: 1 } as never,
      }),
      InvalidPayloadError,
      400,
      'InvalidPayload',
    )
  })

  it('refuses a user who does not participate with Forbidden', async () => {
    const alice = await connect('alice')
    const mallory = await connect('mallory')
    await alice.createConversation({ id: 'c1' })
    await expectApiError(
      mallory.createMessage({ conversationId: 'c1', payload: { type: 'text', text: 'hi' } }),
      ForbiddenError,
      403,
      'Forbidden',
    )
  })

  it('answers ResourceNotFound for a conversation that does not exist', async () => {
    const alice = await connect('alice')
    await expectApiError(
      alice.createMessage({ conversationId: 'nope', payload: { type: 'text', text: 'hi' } }),
      ResourceNotFoundError,
      404,
      'ResourceNotFound',
    )
  })
})

describe('getMessage', () => {
  it('returns the message as it was created, to any participant', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    const { message } = await alice.createMessage({
      conversationId: 'c1',
      payload: { type: 'text', text: 'Hello' },
      metadata: { a: 1 },
    })
    expect(await alice.getMessage({ id: message.id })).toEqual({ message })
    expect(await bob.getMessage({ id: message.id })).toEqual({ message })
  })

  it('refuses a user who does not participate with Forbidden', async () => {
    const alice = await connect('alice')
    const mallory = await connect('mallory')
    await alice.createConversation({ id: 'c1' })
    const { message } = await alice.createMessage({ conversationId: 'c1', payload: { type: 'text', text: 'secret' } })
    await expectApiError(mallory.getMessage({ id: message.id }), ForbiddenError, 403, 'Forbidden')
  })

  it('answers ResourceNotFound for a message that does not exist', async () => {
    const alice = await connect('alice')
    await expectApiError(alice.getMessage({ id: 'nope' }), ResourceNotFoundError, 404, 'ResourceNotFound')
  })
})

describe('listMessages', () => {
  it('lists newest first by pages of 20, and list.messages collects every page', async () => {
    const alice = await connect('alice')
    await alice.createConversation({ id: 'c1' })
    const expected = []
    for (let i = 0; i < 12; i++) {
      const { message } = await alice.createMessage({ conversationId: 'c1', payload: { type: 'text', text: `m${i}` } })
      const answer = await botAnswer(alice, 'c1')
      expect(answer).toEqual({
        ...message,
        id: expect.any(String),
        createdAt: expect.stringMatching(ISO),
        userId: s.botId,
      })
      expected.unshift(message)
      expected.unshift(answer)
    }

    const first = await alice.listMessages({ conversationId: 'c1' })
    expect(first).toEqual({ messages: expected.slice(0, 20), meta: { nextToken: expect.any(String) } })
    const second = await alice.listMessages({ conversationId: 'c1', nextToken: first.meta.nextToken })
    expect(second).toEqual({ messages: expected.slice(20), meta: {} })

    expect(await alice.list.messages({ conversationId: 'c1' }).collect()).toEqual(expected)
  })

  it('answers an empty list for a conversation without messages', async () => {
    const alice = await connect('alice')
    await alice.createConversation({ id: 'c1' })
    expect(await alice.listMessages({ conversationId: 'c1' })).toEqual({ messages: [], meta: {} })
  })

  it('refuses a user who does not participate with Forbidden', async () => {
    const alice = await connect('alice')
    const mallory = await connect('mallory')
    await alice.createConversation({ id: 'c1' })
    await expectApiError(mallory.listMessages({ conversationId: 'c1' }), ForbiddenError, 403, 'Forbidden')
  })
})

describe('deleteMessage', () => {
  it('lets the author delete the message', async () => {
    const alice = await connect('alice')
    await alice.createConversation({ id: 'c1' })
    const { message } = await alice.createMessage({ conversationId: 'c1', payload: { type: 'text', text: 'oops' } })
    const answer = await botAnswer(alice, 'c1')
    expect(await alice.deleteMessage({ id: message.id })).toEqual({})
    await expectApiError(alice.getMessage({ id: message.id }), ResourceNotFoundError, 404, 'ResourceNotFound')
    expect(await alice.listMessages({ conversationId: 'c1' })).toEqual({ messages: [answer], meta: {} })
  })

  it('refuses another participant with Forbidden, and keeps the message', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    const { message } = await bob.createMessage({ conversationId: 'c1', payload: { type: 'text', text: 'mine' } })
    await expectApiError(alice.deleteMessage({ id: message.id }), ForbiddenError, 403, 'Forbidden')
    expect(await alice.getMessage({ id: message.id })).toEqual({ message })
  })

  it('answers ResourceNotFound for a message that does not exist', async () => {
    const alice = await connect('alice')
    await expectApiError(alice.deleteMessage({ id: 'nope' }), ResourceNotFoundError, 404, 'ResourceNotFound')
  })
})

describe('createEvent', () => {
  it('stores the custom event and returns it', async () => {
    const alice = await connect('alice')
    await alice.createConversation({ id: 'c1' })
    const created = await alice.createEvent({ conversationId: 'c1', payload: { type: 'typing', on: true, n: [1, 2] } })
    expect(created).toEqual({
      event: {
        id: expect.stringMatching(CLIENT_ID),
        createdAt: expect.stringMatching(ISO),
        payload: { type: 'typing', on: true, n: [1, 2] },
        conversationId: 'c1',
        userId: 'alice',
      },
    })
  })

  it('refuses a user who does not participate with Forbidden', async () => {
    const alice = await connect('alice')
    const mallory = await connect('mallory')
    await alice.createConversation({ id: 'c1' })
    await expectApiError(
      mallory.createEvent({ conversationId: 'c1', payload: { a: 1 } }),
      ForbiddenError,
      403,
      'Forbidden',
    )
  })

  it('answers ResourceNotFound for a conversation that does not exist', async () => {
    const alice = await connect('alice')
    await expectApiError(
      alice.createEvent({ conversationId: 'nope', payload: { a: 1 } }),
      ResourceNotFoundError,
      404,
      'ResourceNotFound',
    )
  })
})

describe('getEvent', () => {
  it('returns the event as it was created, to any participant', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    const { event } = await alice.createEvent({ conversationId: 'c1', payload: { kind: 'ping' } })
    expect(await alice.getEvent({ id: event.id })).toEqual({ event })
    expect(await bob.getEvent({ id: event.id })).toEqual({ event })
  })

  it('refuses a user who does not participate with Forbidden', async () => {
    const alice = await connect('alice')
    const mallory = await connect('mallory')
    await alice.createConversation({ id: 'c1' })
    const { event } = await alice.createEvent({ conversationId: 'c1', payload: { kind: 'ping' } })
    await expectApiError(mallory.getEvent({ id: event.id }), ForbiddenError, 403, 'Forbidden')
  })

  it('answers ResourceNotFound for an event that does not exist', async () => {
    const alice = await connect('alice')
    await expectApiError(alice.getEvent({ id: 'nope' }), ResourceNotFoundError, 404, 'ResourceNotFound')
  })
})

describe('echo bot', () => {
  it('answers a message with the same payload and metadata, as the bot user who joins the conversation', async () => {
    const alice = await connect('alice')
    await alice.createConversation({ id: 'c1' })
    const { message } = await alice.createMessage({
      conversationId: 'c1',
      payload: { type: 'choice', text: 'Pick one', options: [{ label: 'Yes', value: 'y' }], extra: 'kept' },
      metadata: { origin: 'e2e', depth: { level: 2 } },
    })
    const answer = await botAnswer(alice, 'c1')
    expect(answer).toEqual({
      id: expect.stringMatching(CLIENT_ID),
      createdAt: expect.stringMatching(ISO),
      payload: { type: 'choice', text: 'Pick one', options: [{ label: 'Yes', value: 'y' }], extra: 'kept' },
      userId: s.botId,
      conversationId: 'c1',
      metadata: { origin: 'e2e', depth: { level: 2 } },
    })
    expect(answer.id).not.toBe(message.id)
    expect(await alice.getParticipant({ conversationId: 'c1', userId: s.botId })).toEqual({
      participant: {
        id: s.botId,
        name: 'Echo bot',
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
    })
  })

  it('answers a custom event with an event of the same payload, from the bot user', async () => {
    const alice = await connect('alice')
    await alice.createConversation({ id: 'c1' })
    const signals = await listen(alice, 'c1')
    const { event } = await alice.createEvent({ conversationId: 'c1', payload: { type: 'typing', on: true } })

    const echoed = await vi.waitFor(() => {
      const found = signals.received.find((r) => r.type === 'event_created' && r.data.userId === s.botId)
      expect(found).toBeDefined()
      return found!.data as { id: string }
    })
    expect(await alice.getEvent({ id: echoed.id })).toEqual({
      event: {
        id: expect.stringMatching(CLIENT_ID),
        createdAt: expect.stringMatching(ISO),
        payload: { type: 'typing', on: true },
        conversationId: 'c1',
        userId: s.botId,
      },
    })
    expect(echoed.id).not.toBe(event.id)
  })
})
