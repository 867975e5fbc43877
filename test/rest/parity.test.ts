import { decodeProtectedHeader, jwtVerify } from 'jose'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BASE, createTestApp, ENCRYPTION_KEY, errorBody, type TestApp } from '../helpers/app.ts'

// The REST operations of Chat API parity and who may call them. The bot is given no handler here:
// it never answers, so listings hold exactly what the test wrote (the runtime has its own tests).

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const iso = expect.stringMatching(ISO)

let t: TestApp
beforeEach(async () => {
  t = createTestApp({ handlers: {} })
  await t.ready
})
afterEach(async () => {
  vi.useRealTimers()
  await t.close()
})

type Actor = Awaited<ReturnType<TestApp['user']>>

const count = (sql: string, ...params: unknown[]) =>
  (t.db.$client.prepare(sql).get(...params) as { n: number }).n

const text = (value: string) => ({ type: 'text', text: value })

const postMessage = async (key: string, conversationId: string, payload: object = text('hi'), metadata?: object) => {
  const res = await t.chat('POST', '/messages', {
    key,
    body: metadata === undefined ? { conversationId, payload } : { conversationId, payload, metadata },
  })
  expect(res.status).toBe(200)
  return res.body.message as { id: string; createdAt: string }
}

const postEvent = async (key: string, conversationId: string, payload: object = { kind: 'typing' }) => {
  const res = await t.chat('POST', '/events', { key, body: { conversationId, payload } })
  expect(res.status).toBe(200)
  return res.body.event as { id: string }
}

const participantIds = async (key: string, conversationId: string) => {
  const res = await t.chat('GET', `/conversations/${conversationId}/participants`, { key })
  expect(res.status).toBe(200)
  return (res.body.participants as { id: string }[]).map((p) => p.id)
}

const withToken = (path: string, nextToken?: string) =>
  nextToken === undefined ? path : `${path}?nextToken=${encodeURIComponent(nextToken)}`

/** Every page of a list operation, following meta.nextToken until it is absent. */
async function allPages(key: string, path: string, field: string) {
  const pages: { id: string }[][] = []
  let nextToken: string | undefined
  do {
    const res = await t.chat('GET', withToken(path, nextToken), { key })
    expect(res.status).toBe(200)
    pages.push(res.body[field])
    nextToken = res.body.meta.nextToken
    if (nextToken !== undefined) expect(nextToken).toEqual(expect.any(String))
    if (pages.length > 10) throw new Error(`${path} never ends`)
  } while (nextToken !== undefined)
  return pages
}

describe('hello — GET /hello', () => {
  it.each([['/hello'], ['/hello/']])('answers 200 {"status":"ok"} on %s without a user key', async (path) => {
    const res = await t.chat('GET', path)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: 'ok' })
  })

  it('answers 404 ResourceNotFound for an unknown webhook id', async () => {
    const res = await t.send('GET', `${BASE}/no-such-webhook/hello`)
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual(errorBody(404, 'ResourceNotFound'))
  })
})

describe('createUser — POST /users', () => {
  it('creates the user with the chosen id and profile, without a key, and returns a key that opens it', async () => {
    const res = await t.chat('POST', '/users', {
      body: { id: 'dave', name: 'Dave', pictureUrl: 'https://pics.test/dave.png', profile: '{"plan":"pro"}' },
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      user: {
        id: 'dave',
        name: 'Dave',
        pictureUrl: 'https://pics.test/dave.png',
        profile: '{"plan":"pro"}',
        createdAt: iso,
        updatedAt: iso,
      },
      key: expect.any(String),
    })
    expect(res.body.user.updatedAt).toBe(res.body.user.createdAt)
    const me = await t.chat('GET', '/users/me', { key: res.body.key })
    expect(me.status).toBe(200)
    expect(me.body).toEqual({ user: res.body.user })
  })

  it('signs the key as an HS256 JWT whose id claim is the user id, with the integration encryption key', async () => {
    const res = await t.chat('POST', '/users', { body: { id: 'dave' } })
    expect(decodeProtectedHeader(res.body.key).alg).toBe('HS256')
    const { payload } = await jwtVerify(res.body.key, new TextEncoder().encode(ENCRYPTION_KEY), {
      algorithms: ['HS256'],
    })
    expect(payload.id).toBe('dave')
  })

  it('generates an id when none is given and leaves the absent profile fields out', async () => {
    const res = await t.chat('POST', '/users', { body: {} })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      user: { id: expect.stringMatching(/^[A-Za-z0-9._:-]{1,64}$/), createdAt: iso, updatedAt: iso },
      key: expect.any(String),
    })
    const other = await t.chat('POST', '/users', { body: {} })
    expect(other.body.user.id).not.toBe(res.body.user.id)
    const me = await t.chat('GET', '/users/me', { key: res.body.key })
    expect(me.body).toEqual({ user: res.body.user })
  })

  it('refuses an id that exists with 409 AlreadyExists and leaves the user unchanged', async () => {
    const alice = await t.user('alice', { name: 'Alice' })
    const res = await t.chat('POST', '/users', { body: { id: 'alice', name: 'Impostor' } })
    expect(res.status).toBe(409)
    expect(res.body).toEqual(errorBody(409, 'AlreadyExists'))
    const me = await t.chat('GET', '/users/me', { key: alice.key })
    expect(me.body).toEqual({ user: alice.user })
    const again = await t.chat('POST', '/users', { body: { id: 'dave' } })
    expect(again.status).toBe(200)
    const twice = await t.chat('POST', '/users', { body: { id: 'dave' } })
    expect(twice.status).toBe(409)
    expect(twice.body).toEqual(errorBody(409, 'AlreadyExists'))
  })

  it.each([
    ['empty', ''],
    ['with a space', 'a b'],
    ['with a slash', 'a/b'],
    ['65 characters long', 'x'.repeat(65)],
  ])('refuses an id that is %s with 400 InvalidPayload and creates nobody', async (_what, id) => {
    const before = count('select count(*) as n from users')
    const res = await t.chat('POST', '/users', { body: { id } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    expect(count('select count(*) as n from users')).toBe(before)
  })

  it('accepts an id of exactly 64 characters', async () => {
    const id = 'A.b_c:d-9'.padEnd(64, 'z')
    const res = await t.chat('POST', '/users', { body: { id } })
    expect(res.status).toBe(200)
    expect(res.body.user.id).toBe(id)
  })

  it.each([
    ['a property the operation does not take', { id: 'dave', isBot: true }],
    ['a name that is not a string', { id: 'dave', name: 5 }],
  ])('refuses a body with %s with 400 InvalidPayload', async (_what, body) => {
    const res = await t.chat('POST', '/users', { body })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    expect(count("select count(*) as n from users where id = 'dave'")).toBe(0)
  })
})

describe('getUser — GET /users/me', () => {
  it('returns the user the key names', async () => {
    const alice = await t.user('alice', { name: 'Alice', profile: 'p' })
    const res = await t.chat('GET', '/users/me', { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      user: { id: 'alice', name: 'Alice', profile: 'p', createdAt: iso, updatedAt: iso },
    })
  })

  it('answers 401 Unauthorized without a key, and for a key whose user does not exist', async () => {
    const none = await t.chat('GET', '/users/me')
    expect(none.status).toBe(401)
    expect(none.body).toEqual(errorBody(401, 'Unauthorized'))
    const ghost = await t.chat('GET', '/users/me', { key: await t.keyFor('ghost') })
    expect(ghost.status).toBe(401)
    expect(ghost.body).toEqual(errorBody(401, 'Unauthorized'))
  })
})

describe('updateUser — PUT /users/me', () => {
  const T0 = new Date('2030-01-01T00:00:00.000Z')
  const T1 = new Date('2030-01-01T00:05:00.000Z')

  it('sets the given fields, keeps the absent ones and moves updatedAt', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(T0)
    const alice = await t.user('alice', { name: 'Alice', pictureUrl: 'https://pics.test/a.png', profile: 'p0' })
    vi.setSystemTime(T1)
    const res = await t.chat('PUT', '/users/me', { key: alice.key, body: { name: 'Alicia', profile: 'p1' } })
    expect(res.status).toBe(200)
    const user = {
      id: 'alice',
      name: 'Alicia',
      pictureUrl: 'https://pics.test/a.png',
      profile: 'p1',
      createdAt: T0.toISOString(),
      updatedAt: T1.toISOString(),
    }
    expect(res.body).toEqual({ user })
    expect((await t.chat('GET', '/users/me', { key: alice.key })).body).toEqual({ user })
  })

  it('clears a field given as null and leaves it out of the body', async () => {
    const alice = await t.user('alice', { name: 'Alice', pictureUrl: 'https://pics.test/a.png' })
    const res = await t.chat('PUT', '/users/me', { key: alice.key, body: { name: null } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      user: { id: 'alice', pictureUrl: 'https://pics.test/a.png', createdAt: alice.user.createdAt, updatedAt: iso },
    })
    expect(res.body.user).not.toHaveProperty('name')
    expect((await t.chat('GET', '/users/me', { key: alice.key })).body).toEqual(res.body)
  })

  it('changes what the other participants see of the user', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob', { name: 'Bob' })
    await t.conversation(alice.key, 'c1', ['bob'])
    await t.chat('PUT', '/users/me', { key: bob.key, body: { name: 'Robert' } })
    const res = await t.chat('GET', '/conversations/c1/participants/bob', { key: alice.key })
    expect(res.body.participant.name).toBe('Robert')
  })

  it.each([
    ['a property the operation does not take', { id: 'mallory' }],
    ['a name that is not a string', { name: 5 }],
  ])('refuses a body with %s with 400 InvalidPayload and changes nothing', async (_what, body) => {
    const alice = await t.user('alice', { name: 'Alice' })
    const res = await t.chat('PUT', '/users/me', { key: alice.key, body })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    expect((await t.chat('GET', '/users/me', { key: alice.key })).body).toEqual({ user: alice.user })
  })

  it('answers 401 Unauthorized without a key, and for a key whose user does not exist', async () => {
    const none = await t.chat('PUT', '/users/me', { body: { name: 'X' } })
    expect(none.status).toBe(401)
    expect(none.body).toEqual(errorBody(401, 'Unauthorized'))
    const ghost = await t.chat('PUT', '/users/me', { key: await t.keyFor('ghost'), body: { name: 'X' } })
    expect(ghost.status).toBe(401)
    expect(ghost.body).toEqual(errorBody(401, 'Unauthorized'))
    expect(count("select count(*) as n from users where id = 'ghost'")).toBe(0)
  })
})

describe('deleteUser — DELETE /users/me', () => {
  it('answers {} and the key then gets 401 on every operation', async () => {
    const alice = await t.user('alice')
    const res = await t.chat('DELETE', '/users/me', { key: alice.key, body: {} })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({})
    for (const [method, path] of [
      ['GET', '/users/me'],
      ['GET', '/conversations'],
      ['PUT', '/users/me'],
    ] as const) {
      const after = await t.chat(method, path, { key: alice.key, body: method === 'PUT' ? {} : undefined })
      expect(after.status).toBe(401)
      expect(after.body).toEqual(errorBody(401, 'Unauthorized'))
    }
    expect(count("select count(*) as n from users where id = 'alice'")).toBe(0)
  })

  it('accepts a request without a body', async () => {
    const alice = await t.user('alice')
    const res = await t.chat('DELETE', '/users/me', { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({})
  })

  it('deletes the conversations the user owns, with their messages, events and participants', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'owned', ['bob'])
    await postMessage(bob.key, 'owned')
    await postEvent(bob.key, 'owned')
    await t.chat('DELETE', '/users/me', { key: alice.key, body: {} })
    const res = await t.chat('GET', '/conversations/owned', { key: bob.key })
    expect(res.status).toBe(404)
    expect(res.body).toEqual(errorBody(404, 'ResourceNotFound'))
    expect((await t.chat('GET', '/conversations', { key: bob.key })).body).toEqual({ conversations: [], meta: {} })
    for (const table of ['messages', 'events', 'participants']) {
      expect(count(`select count(*) as n from ${table} where conversation_id = 'owned'`)).toBe(0)
    }
  })

  it('deletes its messages in the conversations of others and removes it from their participants', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'theirs', ['bob'])
    const kept = await postMessage(alice.key, 'theirs', text('from alice'))
    await postMessage(bob.key, 'theirs', text('from bob'))
    await t.chat('DELETE', '/users/me', { key: bob.key, body: {} })
    const messages = await t.chat('GET', '/conversations/theirs/messages', { key: alice.key })
    expect(messages.status).toBe(200)
    expect(messages.body.messages.map((m: { id: string }) => m.id)).toEqual([kept.id])
    expect(await participantIds(alice.key, 'theirs')).toEqual(['alice'])
    expect(count("select count(*) as n from messages where user_id = 'bob'")).toBe(0)
  })

  it('answers 401 Unauthorized without a key', async () => {
    const res = await t.chat('DELETE', '/users/me', { body: {} })
    expect(res.status).toBe(401)
    expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
  })
})

describe('getConversation — GET /conversations/{id}', () => {
  it('returns the conversation to a participant', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    const created = await t.chat('POST', '/conversations', { key: alice.key, body: { id: 'c1' } })
    await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })
    for (const key of [alice.key, bob.key]) {
      const res = await t.chat('GET', '/conversations/c1', { key })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ conversation: { id: 'c1', createdAt: iso, updatedAt: iso } })
      expect(res.body).toEqual(created.body)
    }
  })
})

describe('getOrCreateConversation — POST /conversations/get-or-create', () => {
  it('creates a missing conversation owned by the caller, its only participant', async () => {
    const alice = await t.user('alice')
    const res = await t.chat('POST', '/conversations/get-or-create', { key: alice.key, body: { id: 'c1' } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ conversation: { id: 'c1', createdAt: iso, updatedAt: iso } })
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice'])
    expect(count("select count(*) as n from conversations where id = 'c1' and owner_id = 'alice'")).toBe(1)
  })

  it('returns an existing conversation the caller participates in, unchanged, without creating one', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    const created = await t.chat('POST', '/conversations', { key: alice.key, body: { id: 'c1' } })
    await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })
    for (const key of [alice.key, bob.key]) {
      const res = await t.chat('POST', '/conversations/get-or-create', { key, body: { id: 'c1' } })
      expect(res.status).toBe(200)
      expect(res.body).toEqual(created.body)
    }
    expect(count('select count(*) as n from conversations')).toBe(1)
    expect(count("select count(*) as n from conversations where owner_id = 'alice'")).toBe(1)
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'bob'])
  })

  it('refuses an existing conversation the caller does not participate in with 403 Forbidden and adds nobody', async () => {
    const alice = await t.user('alice')
    const mallory = await t.user('mallory')
    await t.conversation(alice.key, 'c1')
    const res = await t.chat('POST', '/conversations/get-or-create', { key: mallory.key, body: { id: 'c1' } })
    expect(res.status).toBe(403)
    expect(res.body).toEqual(errorBody(403, 'Forbidden'))
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice'])
  })

  it.each([
    ['no id', {}],
    ['an id with a space', { id: 'a b' }],
    ['an id that is not a string', { id: 5 }],
    ['a property the operation does not take', { id: 'c1', owner: 'bob' }],
  ])('refuses a body with %s with 400 InvalidPayload and creates nothing', async (_what, body) => {
    const alice = await t.user('alice')
    const res = await t.chat('POST', '/conversations/get-or-create', { key: alice.key, body })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    expect(count('select count(*) as n from conversations')).toBe(0)
  })

  it('answers 401 Unauthorized without a key and creates nothing', async () => {
    const res = await t.chat('POST', '/conversations/get-or-create', { body: { id: 'c1' } })
    expect(res.status).toBe(401)
    expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
    expect(count('select count(*) as n from conversations')).toBe(0)
  })
})

describe('listConversations — GET /conversations', () => {
  it('lists the conversations the caller owns or joined, newest first, and no other', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'a1')
    await t.conversation(bob.key, 'b1', ['alice'])
    await t.conversation(bob.key, 'b2')
    await t.conversation(alice.key, 'a2')
    const res = await t.chat('GET', '/conversations', { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      conversations: ['a2', 'b1', 'a1'].map((id) => ({ id, createdAt: iso, updatedAt: iso })),
      meta: {},
    })
    const get = await t.chat('GET', '/conversations/b1', { key: alice.key })
    expect(res.body.conversations[1]).toEqual(get.body.conversation)
    const asBob = await t.chat('GET', '/conversations', { key: bob.key })
    expect(asBob.body.conversations.map((c: { id: string }) => c.id)).toEqual(['b2', 'b1'])
  })

  it('answers an empty list when the caller has no conversation', async () => {
    const alice = await t.user('alice')
    const res = await t.chat('GET', '/conversations', { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ conversations: [], meta: {} })
  })

  it('pages by 20 with meta.nextToken, which is absent on the last page', async () => {
    const alice = await t.user('alice')
    const ids = Array.from({ length: 25 }, (_, i) => `c${String(i).padStart(2, '0')}`)
    for (const id of ids) await t.conversation(alice.key, id)
    const pages = await allPages(alice.key, '/conversations', 'conversations')
    expect(pages.map((page) => page.length)).toEqual([20, 5])
    expect(pages.flat().map((c) => c.id)).toEqual([...ids].reverse())
    const first = await t.chat('GET', '/conversations', { key: alice.key })
    expect(first.body.meta).toEqual({ nextToken: expect.any(String) })
  })

  it('refuses a tampered nextToken with 400 InvalidPayload', async () => {
    const alice = await t.user('alice')
    for (let i = 0; i < 21; i++) await t.conversation(alice.key, `c${i}`)
    const first = await t.chat('GET', '/conversations', { key: alice.key })
    for (const token of ['garbage', `${first.body.meta.nextToken}x`, Buffer.from('["messages","a","b"]').toString('base64url')]) {
      const res = await t.chat('GET', withToken('/conversations', token), { key: alice.key })
      expect(res.status).toBe(400)
      expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    }
  })

  it('answers 401 Unauthorized without a key', async () => {
    const res = await t.chat('GET', '/conversations')
    expect(res.status).toBe(401)
    expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
  })
})

describe('deleteConversation — DELETE /conversations/{id}', () => {
  it('lets the owner delete it with its participants, messages and events', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
    await t.conversation(alice.key, 'c2')
    const message = await postMessage(bob.key, 'c1')
    const event = await postEvent(alice.key, 'c1')
    const res = await t.chat('DELETE', '/conversations/c1', { key: alice.key, body: {} })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({})
    for (const key of [alice.key, bob.key]) {
      const get = await t.chat('GET', '/conversations/c1', { key })
      expect(get.status).toBe(404)
      expect(get.body).toEqual(errorBody(404, 'ResourceNotFound'))
    }
    expect((await t.chat('GET', `/messages/${message.id}`, { key: bob.key })).status).toBe(404)
    expect((await t.chat('GET', `/events/${event.id}`, { key: alice.key })).status).toBe(404)
    expect((await t.chat('GET', '/conversations', { key: alice.key })).body.conversations).toEqual([
      expect.objectContaining({ id: 'c2' }),
    ])
    expect((await t.chat('GET', '/conversations', { key: bob.key })).body).toEqual({ conversations: [], meta: {} })
    for (const table of ['conversations', 'participants', 'messages', 'events']) {
      const column = table === 'conversations' ? 'id' : 'conversation_id'
      expect(count(`select count(*) as n from ${table} where ${column} = 'c1'`)).toBe(0)
    }
  })

  it('accepts a request without a body, and the id can then be created again', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const res = await t.chat('DELETE', '/conversations/c1', { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({})
    const again = await t.chat('POST', '/conversations', { key: alice.key, body: { id: 'c1' } })
    expect(again.status).toBe(200)
  })

  it('refuses a participant who is not the owner with 403 Forbidden and deletes nothing', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
    await postMessage(alice.key, 'c1')
    const res = await t.chat('DELETE', '/conversations/c1', { key: bob.key, body: {} })
    expect(res.status).toBe(403)
    expect(res.body).toEqual(errorBody(403, 'Forbidden'))
    expect((await t.chat('GET', '/conversations/c1', { key: bob.key })).status).toBe(200)
    expect(count("select count(*) as n from messages where conversation_id = 'c1'")).toBe(1)
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'bob'])
  })
})

describe('getParticipant — GET /conversations/{conversationId}/participants/{userId}', () => {
  it('returns a participant, field by field, to any participant', async () => {
    const alice = await t.user('alice', { name: 'Alice' })
    const bob = await t.user('bob', { name: 'Bob', pictureUrl: 'https://pics.test/bob.png', profile: 'x' })
    await t.conversation(alice.key, 'c1', ['bob'])
    const res = await t.chat('GET', '/conversations/c1/participants/bob', { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ participant: bob.user })
    const owner = await t.chat('GET', '/conversations/c1/participants/alice', { key: bob.key })
    expect(owner.status).toBe(200)
    expect(owner.body).toEqual({ participant: alice.user })
  })

  it('leaves the absent optional fields out', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const res = await t.chat('GET', '/conversations/c1/participants/alice', { key: alice.key })
    expect(res.body).toEqual({ participant: { id: 'alice', createdAt: iso, updatedAt: iso } })
  })

  it.each([
    ['a user who does not participate', 'carol'],
    ['a user who does not exist', 'nobody'],
  ])('answers 404 ResourceNotFound for %s', async (_what, userId) => {
    const alice = await t.user('alice')
    await t.user('carol')
    await t.conversation(alice.key, 'c1')
    const res = await t.chat('GET', `/conversations/c1/participants/${userId}`, { key: alice.key })
    expect(res.status).toBe(404)
    expect(res.body).toEqual(errorBody(404, 'ResourceNotFound'))
  })

  it('answers 404 ResourceNotFound for a participant who has left', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
    await t.chat('DELETE', '/conversations/c1/participants/bob', { key: bob.key, body: {} })
    const res = await t.chat('GET', '/conversations/c1/participants/bob', { key: alice.key })
    expect(res.status).toBe(404)
    expect(res.body).toEqual(errorBody(404, 'ResourceNotFound'))
  })
})

describe('removeParticipant — DELETE /conversations/{conversationId}/participants/{userId}', () => {
  let alice: Actor
  let bob: Actor
  let carol: Actor
  beforeEach(async () => {
    alice = await t.user('alice')
    bob = await t.user('bob')
    carol = await t.user('carol')
    await t.conversation(alice.key, 'c1', ['bob', 'carol'])
  })

  it('lets a participant remove itself, which then loses access', async () => {
    const res = await t.chat('DELETE', '/conversations/c1/participants/bob', { key: bob.key, body: {} })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({})
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'carol'])
    const after = await t.chat('GET', '/conversations/c1', { key: bob.key })
    expect(after.status).toBe(403)
    expect(after.body).toEqual(errorBody(403, 'Forbidden'))
    expect((await t.chat('GET', '/conversations', { key: bob.key })).body).toEqual({ conversations: [], meta: {} })
  })

  it('lets the owner remove another participant, without a body too', async () => {
    const res = await t.chat('DELETE', '/conversations/c1/participants/carol', { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({})
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'bob'])
    expect((await t.chat('POST', '/messages', { key: carol.key, body: { conversationId: 'c1', payload: text('x') } })).status).toBe(403)
  })

  it('keeps the messages of a removed participant', async () => {
    const message = await postMessage(carol.key, 'c1')
    await t.chat('DELETE', '/conversations/c1/participants/carol', { key: alice.key, body: {} })
    const res = await t.chat('GET', `/messages/${message.id}`, { key: alice.key })
    expect(res.status).toBe(200)
  })

  it.each([
    ['the owner itself', () => alice.key],
    ['another participant', () => bob.key],
  ])('refuses the removal of the owner by %s with 400 InvalidPayload', async (_who, key) => {
    const res = await t.chat('DELETE', '/conversations/c1/participants/alice', { key: key(), body: {} })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'bob', 'carol'])
  })

  it('refuses a participant who is not the owner removing someone else with 403 Forbidden', async () => {
    const res = await t.chat('DELETE', '/conversations/c1/participants/carol', { key: bob.key, body: {} })
    expect(res.status).toBe(403)
    expect(res.body).toEqual(errorBody(403, 'Forbidden'))
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'bob', 'carol'])
  })

  it.each([
    ['a user who does not participate', 'dave'],
    ['a user who does not exist', 'nobody'],
  ])('answers 404 ResourceNotFound when the owner removes %s', async (_what, userId) => {
    await t.user('dave')
    const res = await t.chat('DELETE', `/conversations/c1/participants/${userId}`, { key: alice.key, body: {} })
    expect(res.status).toBe(404)
    expect(res.body).toEqual(errorBody(404, 'ResourceNotFound'))
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'bob', 'carol'])
  })
})

describe('getMessage — GET /messages/{id}', () => {
  it('returns the message exactly as created to any participant', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
    const created = await t.chat('POST', '/messages', {
      key: alice.key,
      body: { conversationId: 'c1', payload: { type: 'text', text: 'hi', extra: [1] }, metadata: { a: { b: 1 } } },
    })
    for (const key of [alice.key, bob.key]) {
      const res = await t.chat('GET', `/messages/${created.body.message.id}`, { key })
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

  it('leaves metadata out when the message has none', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const message = await postMessage(alice.key, 'c1')
    const res = await t.chat('GET', `/messages/${message.id}`, { key: alice.key })
    expect(res.body.message).not.toHaveProperty('metadata')
    expect(res.body).toEqual({
      message: { id: message.id, createdAt: iso, payload: text('hi'), userId: 'alice', conversationId: 'c1' },
    })
  })
})

describe('deleteMessage — DELETE /messages/{id}', () => {
  let alice: Actor
  let bob: Actor
  beforeEach(async () => {
    alice = await t.user('alice')
    bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
  })

  it('lets the author delete it: {} and it is gone from reads and listings', async () => {
    const kept = await postMessage(bob.key, 'c1', text('kept'))
    const gone = await postMessage(bob.key, 'c1', text('gone'))
    const res = await t.chat('DELETE', `/messages/${gone.id}`, { key: bob.key, body: {} })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({})
    const get = await t.chat('GET', `/messages/${gone.id}`, { key: bob.key })
    expect(get.status).toBe(404)
    expect(get.body).toEqual(errorBody(404, 'ResourceNotFound'))
    const list = await t.chat('GET', '/conversations/c1/messages', { key: alice.key })
    expect(list.body.messages.map((m: { id: string }) => m.id)).toEqual([kept.id])
    const again = await t.chat('DELETE', `/messages/${gone.id}`, { key: bob.key, body: {} })
    expect(again.status).toBe(404)
    expect(again.body).toEqual(errorBody(404, 'ResourceNotFound'))
  })

  it('accepts a request without a body', async () => {
    const message = await postMessage(bob.key, 'c1')
    const res = await t.chat('DELETE', `/messages/${message.id}`, { key: bob.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({})
    expect(count('select count(*) as n from messages where id = ?', message.id)).toBe(0)
  })

  it('refuses a participant who is not the author, the owner included, with 403 Forbidden', async () => {
    const message = await postMessage(bob.key, 'c1')
    const res = await t.chat('DELETE', `/messages/${message.id}`, { key: alice.key, body: {} })
    expect(res.status).toBe(403)
    expect(res.body).toEqual(errorBody(403, 'Forbidden'))
    expect((await t.chat('GET', `/messages/${message.id}`, { key: alice.key })).status).toBe(200)
  })

  it('refuses an author who has left the conversation with 403 Forbidden', async () => {
    const message = await postMessage(bob.key, 'c1')
    await t.chat('DELETE', '/conversations/c1/participants/bob', { key: bob.key, body: {} })
    const res = await t.chat('DELETE', `/messages/${message.id}`, { key: bob.key, body: {} })
    expect(res.status).toBe(403)
    expect(res.body).toEqual(errorBody(403, 'Forbidden'))
    expect((await t.chat('GET', `/messages/${message.id}`, { key: alice.key })).status).toBe(200)
  })
})

describe('listMessages — GET /conversations/{conversationId}/messages', () => {
  it('lists the messages newest first, with the bodies getMessage returns', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
    await t.conversation(alice.key, 'other')
    const first = await postMessage(alice.key, 'c1', text('one'), { n: 1 })
    await postMessage(alice.key, 'other', text('elsewhere'))
    const second = await postMessage(bob.key, 'c1', { type: 'image', imageUrl: 'https://pics.test/2.png' })
    const res = await t.chat('GET', '/conversations/c1/messages', { key: bob.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      messages: [
        {
          id: second.id,
          createdAt: iso,
          payload: { type: 'image', imageUrl: 'https://pics.test/2.png' },
          userId: 'bob',
          conversationId: 'c1',
        },
        { id: first.id, createdAt: iso, payload: text('one'), userId: 'alice', conversationId: 'c1', metadata: { n: 1 } },
      ],
      meta: {},
    })
    expect(res.body.messages[0]).not.toHaveProperty('metadata')
  })

  it('answers an empty list for a conversation without messages', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const res = await t.chat('GET', '/conversations/c1/messages', { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ messages: [], meta: {} })
  })

  it('pages by 20 with meta.nextToken, newest first across pages', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const ids: string[] = []
    for (let i = 0; i < 25; i++) ids.push((await postMessage(alice.key, 'c1', text(`m${i}`))).id)
    const pages = await allPages(alice.key, '/conversations/c1/messages', 'messages')
    expect(pages.map((page) => page.length)).toEqual([20, 5])
    expect(pages.flat().map((m) => m.id)).toEqual([...ids].reverse())
  })

  it('refuses a tampered nextToken with 400 InvalidPayload', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    for (let i = 0; i < 21; i++) await postMessage(alice.key, 'c1')
    const first = await t.chat('GET', '/conversations/c1/messages', { key: alice.key })
    expect(first.body.meta).toEqual({ nextToken: expect.any(String) })
    for (const token of ['garbage', Buffer.from('["conversations","a","b"]').toString('base64url')]) {
      const res = await t.chat('GET', withToken('/conversations/c1/messages', token), { key: alice.key })
      expect(res.status).toBe(400)
      expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    }
  })
})

describe('getEvent — GET /events/{id}', () => {
  it('returns the event exactly as created to any participant', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
    const created = await t.chat('POST', '/events', {
      key: alice.key,
      body: { conversationId: 'c1', payload: { type: 'typing', on: true } },
    })
    for (const key of [alice.key, bob.key]) {
      const res = await t.chat('GET', `/events/${created.body.event.id}`, { key })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({
        event: {
          id: created.body.event.id,
          createdAt: iso,
          payload: { type: 'typing', on: true },
          conversationId: 'c1',
          userId: 'alice',
        },
      })
      expect(res.body).toEqual(created.body)
    }
  })
})

describe('authorization — only participants read or write a conversation', () => {
  let alice: Actor
  let bob: Actor
  let mallory: Actor
  let messageId: string
  let eventId: string
  beforeEach(async () => {
    alice = await t.user('alice')
    bob = await t.user('bob')
    mallory = await t.user('mallory')
    await t.conversation(alice.key, 'c1', ['bob'])
    await t.conversation(mallory.key, 'm1')
    messageId = (await postMessage(bob.key, 'c1')).id
    eventId = (await postEvent(bob.key, 'c1')).id
  })

  /** What a refused request must not have changed. */
  const state = async () => ({
    participants: await participantIds(alice.key, 'c1'),
    messages: (await t.chat('GET', '/conversations/c1/messages', { key: alice.key })).body,
    rows: ['conversations', 'participants', 'messages', 'events'].map((table) => count(`select count(*) as n from ${table}`)),
  })

  const operations = (conversationId: string, message: () => string, event: () => string) =>
    [
      ['getConversation', 'GET', () => `/conversations/${conversationId}`, undefined],
      ['getOrCreateConversation', 'POST', () => '/conversations/get-or-create', { id: conversationId }],
      ['deleteConversation', 'DELETE', () => `/conversations/${conversationId}`, {}],
      ['listParticipants', 'GET', () => `/conversations/${conversationId}/participants`, undefined],
      ['addParticipant', 'POST', () => `/conversations/${conversationId}/participants`, { userId: 'mallory' }],
      ['getParticipant', 'GET', () => `/conversations/${conversationId}/participants/alice`, undefined],
      ['removeParticipant (someone else)', 'DELETE', () => `/conversations/${conversationId}/participants/bob`, {}],
      ['removeParticipant (itself)', 'DELETE', () => `/conversations/${conversationId}/participants/mallory`, {}],
      ['listMessages', 'GET', () => `/conversations/${conversationId}/messages`, undefined],
      ['createMessage', 'POST', () => '/messages', { conversationId, payload: text('intrusion') }],
      ['getMessage', 'GET', () => `/messages/${message()}`, undefined],
      ['deleteMessage', 'DELETE', () => `/messages/${message()}`, {}],
      ['createEvent', 'POST', () => '/events', { conversationId, payload: { kind: 'intrusion' } }],
      ['getEvent', 'GET', () => `/events/${event()}`, undefined],
      ['listenConversation', 'GET', () => `/conversations/${conversationId}/listen`, undefined],
    ] as const

  it.each(operations('c1', () => messageId, () => eventId))(
    '%s refuses a user who is not a participant with 403 Forbidden and changes nothing',
    async (_operation, method, path, body) => {
      const before = await state()
      const res = await t.chat(method, path(), { key: mallory.key, body })
      expect(res.status).toBe(403)
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(res.body).toEqual(errorBody(403, 'Forbidden'))
      expect(await state()).toEqual(before)
    },
  )

  it.each(operations('nope', () => 'no-such-message', () => 'no-such-event').filter(([op]) => op !== 'getOrCreateConversation'))(
    '%s answers 404 ResourceNotFound for what does not exist',
    async (_operation, method, path, body) => {
      const before = await state()
      const res = await t.chat(method, path(), { key: mallory.key, body })
      expect(res.status).toBe(404)
      expect(res.body).toEqual(errorBody(404, 'ResourceNotFound'))
      expect(await state()).toEqual(before)
    },
  )

  it.each(operations('c1', () => messageId, () => eventId))(
    '%s answers 401 Unauthorized without a key and changes nothing',
    async (_operation, method, path, body) => {
      const before = await state()
      const res = await t.chat(method, path(), { body })
      expect(res.status).toBe(401)
      expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
      expect(await state()).toEqual(before)
    },
  )

  it('lets every participant, not only the owner, read and write', async () => {
    expect((await t.chat('GET', '/conversations/c1', { key: bob.key })).status).toBe(200)
    expect((await t.chat('GET', '/conversations/c1/participants', { key: bob.key })).status).toBe(200)
    expect((await t.chat('GET', '/conversations/c1/participants/alice', { key: bob.key })).status).toBe(200)
    expect((await t.chat('GET', '/conversations/c1/messages', { key: bob.key })).status).toBe(200)
    expect((await t.chat('GET', `/events/${eventId}`, { key: alice.key })).status).toBe(200)
    expect((await t.chat('GET', `/messages/${messageId}`, { key: alice.key })).status).toBe(200)
    expect((await t.chat('POST', '/conversations/c1/participants', { key: bob.key, body: { userId: 'mallory' } })).status).toBe(200)
    expect((await t.chat('GET', '/conversations/c1', { key: mallory.key })).status).toBe(200)
  })
})
