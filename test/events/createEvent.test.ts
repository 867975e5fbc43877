import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTestApp, errorBody, type TestApp } from '../helpers/app.ts'

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

let t: TestApp
let alice: Awaited<ReturnType<TestApp['user']>>
beforeEach(async () => {
  t = createTestApp()
  alice = await t.user('alice')
  await t.conversation(alice.key, 'c1')
})
afterEach(() => t.close())

const post = (body: unknown, key = alice.key) => t.chat('POST', '/events', { key, body })

// Events users created; the echo bot's answers are its own and are not counted here.
const eventCount = () =>
  (t.db.$client.prepare('select count(*) as n from events where user_id not in (select id from users where is_bot)').get() as { n: number }).n

const readBack = async (id: string) => {
  const res = await t.graphql(
    'query ($id: String!) { event(id: $id) { eventId userId conversationId createdAt payload } }',
    { id },
    { key: alice.key },
  )
  expect(res.body.errors).toBeUndefined()
  return res.body.data.event
}

describe('createEvent — POST /events', () => {
  it('creates the event and returns every field of it', async () => {
    const res = await post({ conversationId: 'c1', payload: { kind: 'typing', on: true } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      event: {
        id: expect.any(String),
        createdAt: expect.stringMatching(ISO),
        payload: { kind: 'typing', on: true },
        conversationId: 'c1',
        userId: 'alice',
      },
    })
    expect(res.body.event.id).not.toBe('')
    expect(eventCount()).toBe(1)
    expect(await readBack(res.body.event.id)).toEqual({
      eventId: res.body.event.id,
      userId: 'alice',
      conversationId: 'c1',
      createdAt: res.body.event.createdAt,
      payload: { kind: 'typing', on: true },
    })
  })

  it('keeps a free-form payload exactly as written', async () => {
    const payload = {
      type: 'not-a-message-kind',
      nested: { deep: { deeper: [1, 2.5, 'three', null, { four: false }] } },
      empty: {},
      list: [],
      text: 'ünïcødé 🎉 "quoted"\n',
    }
    const res = await post({ conversationId: 'c1', payload })
    expect(res.status).toBe(200)
    expect(res.body.event.payload).toEqual(payload)
    expect((await readBack(res.body.event.id)).payload).toEqual(payload)
  })

  it('accepts an empty payload object', async () => {
    const res = await post({ conversationId: 'c1', payload: {} })
    expect(res.status).toBe(200)
    expect(res.body.event.payload).toEqual({})
  })

  it('gives every event its own id and the user of its key', async () => {
    const bob = await t.user('bob')
    await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })
    const first = await post({ conversationId: 'c1', payload: { n: 1 } })
    const second = await post({ conversationId: 'c1', payload: { n: 2 } }, bob.key)
    expect(second.status).toBe(200)
    expect(second.body).toEqual({
      event: {
        id: expect.any(String),
        createdAt: expect.stringMatching(ISO),
        payload: { n: 2 },
        conversationId: 'c1',
        userId: 'bob',
      },
    })
    expect(second.body.event.id).not.toBe(first.body.event.id)
    expect(eventCount()).toBe(2)
  })

  it.each([
    ['without conversationId', { payload: { a: 1 } }],
    ['without payload', { conversationId: 'c1' }],
    ['with a conversationId that is a number', { conversationId: 1, payload: { a: 1 } }],
    ['with a payload that is a string', { conversationId: 'c1', payload: 'ping' }],
    ['with a payload that is a number', { conversationId: 'c1', payload: 42 }],
    ['with a payload that is an array', { conversationId: 'c1', payload: [{ a: 1 }] }],
    ['with a payload that is null', { conversationId: 'c1', payload: null }],
  ])('refuses a body %s with 400 InvalidPayload, writing nothing', async (_what, body) => {
    const res = await post(body)
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    expect(eventCount()).toBe(0)
  })

  it('refuses a caller who is not a participant with 403 Forbidden, writing nothing', async () => {
    const bob = await t.user('bob')
    const res = await post({ conversationId: 'c1', payload: { a: 1 } }, bob.key)
    expect(res.status).toBe(403)
    expect(res.body).toEqual(errorBody(403, 'Forbidden'))
    expect(eventCount()).toBe(0)
  })

  it('refuses a conversation that does not exist with 404 ResourceNotFound', async () => {
    const res = await post({ conversationId: 'nope', payload: { a: 1 } })
    expect(res.status).toBe(404)
    expect(res.body).toEqual(errorBody(404, 'ResourceNotFound'))
    expect(eventCount()).toBe(0)
  })

  it('refuses a request without x-user-key with 401 Unauthorized', async () => {
    const res = await t.chat('POST', '/events', { body: { conversationId: 'c1', payload: { a: 1 } } })
    expect(res.status).toBe(401)
    expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
    expect(eventCount()).toBe(0)
  })

  it('refuses a valid key whose user was never created with 401 Unauthorized', async () => {
    const res = await post({ conversationId: 'c1', payload: { a: 1 } }, await t.keyFor('ghost'))
    expect(res.status).toBe(401)
    expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
    expect(eventCount()).toBe(0)
  })
})
