import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTestApp, errorBody, type TestApp } from '../helpers/app.ts'

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

let t: TestApp
let alice: Awaited<ReturnType<TestApp['user']>>
beforeEach(async () => {
  t = createTestApp()
  alice = await t.user('alice', { name: 'Alice' })
  await t.conversation(alice.key, 'c1')
})
afterEach(() => t.close())

const post = (body: unknown, key = alice.key) => t.chat('POST', '/messages', { key, body })

// Messages users posted; the echo bot's replies are its own and are not counted here.
const messageCount = () =>
  (t.db.$client.prepare('select count(*) as n from messages where user_id not in (select id from users where is_bot)').get() as { n: number }).n

const readBack = async (id: string, key = alice.key) => {
  const res = await t.graphql(
    'query ($id: String!) { message(id: $id) { messageId userId conversationId createdAt rawPayload metadata } }',
    { id },
    { key },
  )
  expect(res.body.errors).toBeUndefined()
  return res.body.data.message
}

const extra = { extra: { nullable: null, list: [1, 'two', { three: 3 }], flag: true }, note: 'kept' }

const card = (title: string) => ({
  type: 'card',
  title,
  subtitle: `${title} subtitle`,
  imageUrl: `https://media.test/${title}.png`,
  actions: [
    { action: 'postback', label: 'Yes', value: 'yes', tracking: 'a1' },
    { action: 'url', label: 'Docs', value: 'https://docs.test' },
    { action: 'say', label: 'Hi', value: 'hi there' },
  ],
  ...extra,
})

const payloads: Record<string, Record<string, unknown>> = {
  audio: { type: 'audio', audioUrl: 'https://media.test/clip.mp3', ...extra },
  card: card('first'),
  carousel: { type: 'carousel', items: [card('one'), card('two')], ...extra },
  choice: {
    type: 'choice',
    text: 'Pick one',
    options: [
      { label: 'Red', value: 'red', color: '#f00' },
      { label: 'Blue', value: 'blue' },
    ],
    ...extra,
  },
  dropdown: {
    type: 'dropdown',
    text: 'Pick a city',
    options: [
      { label: 'Montréal', value: 'yul' },
      { label: 'Québec', value: 'yqb' },
    ],
    ...extra,
  },
  file: { type: 'file', fileUrl: 'https://media.test/report.pdf', title: 'Report', ...extra },
  image: { type: 'image', imageUrl: 'https://media.test/cat.png', ...extra },
  location: {
    type: 'location',
    latitude: 45.5017,
    longitude: -73.5673,
    address: '1 Rue Sainte-Catherine',
    title: 'Office',
    ...extra,
  },
  markdown: { type: 'markdown', markdown: '# Title\n\n**bold** _it_ — ünïcødé 🎉', ...extra },
  text: { type: 'text', text: 'Hello 👋, "quoted" \\ back\nslash', ...extra },
  video: { type: 'video', videoUrl: 'https://media.test/movie.mp4', ...extra },
  bloc: {
    type: 'bloc',
    items: [
      { type: 'text', text: 'one', itemExtra: 1 },
      { type: 'markdown', markdown: '*two*' },
      { type: 'image', imageUrl: 'https://media.test/3.png' },
      { type: 'audio', audioUrl: 'https://media.test/4.mp3' },
      { type: 'video', videoUrl: 'https://media.test/5.mp4' },
      { type: 'file', fileUrl: 'https://media.test/6.pdf', title: 'six' },
      { type: 'location', latitude: 0, longitude: 0, address: 'Null Island' },
    ],
    ...extra,
  },
}

describe('createMessage — POST /messages', () => {
  it('creates the message and returns every field of it', async () => {
    const res = await post({ conversationId: 'c1', payload: { type: 'text', text: 'hello' } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      message: {
        id: expect.any(String),
        createdAt: expect.stringMatching(ISO),
        payload: { type: 'text', text: 'hello' },
        userId: 'alice',
        conversationId: 'c1',
      },
    })
    expect(res.body.message.id).not.toBe('')
    expect(messageCount()).toBe(1)
    expect(await readBack(res.body.message.id)).toEqual({
      messageId: res.body.message.id,
      userId: 'alice',
      conversationId: 'c1',
      createdAt: res.body.message.createdAt,
      rawPayload: { type: 'text', text: 'hello' },
      metadata: null,
    })
  })

  it('gives every message its own id and the author of its key', async () => {
    const bob = await t.user('bob')
    await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })
    const first = await post({ conversationId: 'c1', payload: { type: 'text', text: 'one' } })
    const second = await post({ conversationId: 'c1', payload: { type: 'text', text: 'two' } }, bob.key)
    expect(second.status).toBe(200)
    expect(second.body.message).toEqual({
      id: expect.any(String),
      createdAt: expect.stringMatching(ISO),
      payload: { type: 'text', text: 'two' },
      userId: 'bob',
      conversationId: 'c1',
    })
    expect(second.body.message.id).not.toBe(first.body.message.id)
    expect(messageCount()).toBe(2)
  })

  it.each(Object.entries(payloads))('round-trips a %s payload exactly, extra properties included', async (_kind, payload) => {
    const res = await post({ conversationId: 'c1', payload })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      message: {
        id: expect.any(String),
        createdAt: expect.stringMatching(ISO),
        payload,
        userId: 'alice',
        conversationId: 'c1',
      },
    })
    const stored = await readBack(res.body.message.id)
    expect(stored.rawPayload).toEqual(payload)
  })

  it.each([
    ['card without subtitle and imageUrl', { type: 'card', title: 'T', actions: [{ action: 'say', label: 'L', value: 'V' }] }],
    ['file without title', { type: 'file', fileUrl: 'https://media.test/f.bin' }],
    ['location without address and title', { type: 'location', latitude: -12.5, longitude: 130 }],
    ['location with integer coordinates', { type: 'location', latitude: 0, longitude: 180 }],
  ])('accepts a %s', async (_what, payload) => {
    const res = await post({ conversationId: 'c1', payload })
    expect(res.status).toBe(200)
    expect(res.body.message.payload).toEqual(payload)
  })

  const validCard = { type: 'card', title: 'T', actions: [{ action: 'url', label: 'L', value: 'https://x.test' }] }
  const invalid: [string, string, Record<string, unknown>][] = [
    ['audio', 'audioUrl', { type: 'audio' }],
    ['audio', 'audioUrl', { type: 'audio', audioUrl: 5 }],
    ['card', 'title', { type: 'card', actions: [] }],
    ['card', 'title', { ...validCard, title: 7 }],
    ['card', 'actions', { type: 'card', title: 'T' }],
    ['card', 'actions', { ...validCard, actions: 'none' }],
    ['card', 'action', { ...validCard, actions: [{ action: 'jump', label: 'L', value: 'V' }] }],
    ['card', 'label', { ...validCard, actions: [{ action: 'say', value: 'V' }] }],
    ['card', 'value', { ...validCard, actions: [{ action: 'say', label: 'L', value: 1 }] }],
    ['card', 'subtitle', { ...validCard, subtitle: 3 }],
    ['carousel', 'items', { type: 'carousel' }],
    ['carousel', 'items', { type: 'carousel', items: 'cards' }],
    ['carousel', 'title', { type: 'carousel', items: [{ ...validCard, title: undefined }] }],
    ['choice', 'text', { type: 'choice', options: [{ label: 'A', value: 'a' }] }],
    ['choice', 'options', { type: 'choice', text: 'Pick' }],
    ['choice', 'label', { type: 'choice', text: 'Pick', options: [{ label: 1, value: 'a' }] }],
    ['dropdown', 'options', { type: 'dropdown', text: 'Pick' }],
    ['dropdown', 'text', { type: 'dropdown', text: 5, options: [] }],
    ['dropdown', 'value', { type: 'dropdown', text: 'Pick', options: [{ label: 'A' }] }],
    ['file', 'fileUrl', { type: 'file', title: 'Report' }],
    ['file', 'title', { type: 'file', fileUrl: 'https://media.test/f.pdf', title: 9 }],
    ['image', 'imageUrl', { type: 'image' }],
    ['image', 'imageUrl', { type: 'image', imageUrl: null }],
    ['location', 'latitude', { type: 'location', longitude: 1 }],
    ['location', 'latitude', { type: 'location', latitude: '45.5', longitude: 1 }],
    ['location', 'longitude', { type: 'location', latitude: 1 }],
    ['location', 'address', { type: 'location', latitude: 1, longitude: 1, address: 12 }],
    ['markdown', 'markdown', { type: 'markdown' }],
    ['markdown', 'markdown', { type: 'markdown', markdown: ['#'] }],
    ['text', 'text', { type: 'text' }],
    ['text', 'text', { type: 'text', text: 5 }],
    ['video', 'videoUrl', { type: 'video' }],
    ['video', 'videoUrl', { type: 'video', videoUrl: {} }],
    ['bloc', 'items', { type: 'bloc' }],
    ['bloc', 'items', { type: 'bloc', items: { type: 'text', text: 'x' } }],
    ['bloc', 'text', { type: 'bloc', items: [{ type: 'text' }] }],
    ['bloc', 'items', { type: 'bloc', items: [validCard] }],
  ]

  it.each(invalid)('refuses a %s payload with a bad %s with 400 InvalidPayload naming it, writing nothing', async (_kind, field, payload) => {
    const res = await post({ conversationId: 'c1', payload })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    expect(res.body.message).toContain(field)
    expect(messageCount()).toBe(0)
  })

  it.each([
    ['an unknown type', { type: 'sticker', stickerId: 'x' }],
    ['no type', { text: 'hello' }],
    ['a type that is not a string', { type: 5, text: 'hello' }],
  ])('refuses a payload with %s with 400 InvalidPayload', async (_what, payload) => {
    const res = await post({ conversationId: 'c1', payload })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    expect(messageCount()).toBe(0)
  })

  it.each([
    ['without conversationId', { payload: { type: 'text', text: 'hi' } }],
    ['without payload', { conversationId: 'c1' }],
    ['with a conversationId that is a number', { conversationId: 1, payload: { type: 'text', text: 'hi' } }],
    ['with a payload that is a string', { conversationId: 'c1', payload: 'hi' }],
    ['with a payload that is an array', { conversationId: 'c1', payload: [{ type: 'text', text: 'hi' }] }],
    ['with a payload that is null', { conversationId: 'c1', payload: null }],
    ['with metadata that is a string', { conversationId: 'c1', payload: { type: 'text', text: 'hi' }, metadata: 'm' }],
    ['with metadata that is an array', { conversationId: 'c1', payload: { type: 'text', text: 'hi' }, metadata: [1] }],
  ])('refuses a body %s with 400 InvalidPayload, writing nothing', async (_what, body) => {
    const res = await post(body)
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    expect(messageCount()).toBe(0)
  })

  it('refuses a caller who is not a participant with 403 Forbidden, writing nothing', async () => {
    const bob = await t.user('bob')
    const res = await post({ conversationId: 'c1', payload: { type: 'text', text: 'let me in' } }, bob.key)
    expect(res.status).toBe(403)
    expect(res.body).toEqual(errorBody(403, 'Forbidden'))
    expect(messageCount()).toBe(0)
  })

  it('refuses a conversation that does not exist with 404 ResourceNotFound', async () => {
    const res = await post({ conversationId: 'nope', payload: { type: 'text', text: 'hello?' } })
    expect(res.status).toBe(404)
    expect(res.body).toEqual(errorBody(404, 'ResourceNotFound'))
    expect(messageCount()).toBe(0)
  })

  it('refuses a request without x-user-key with 401 Unauthorized', async () => {
    const res = await t.chat('POST', '/messages', { body: { conversationId: 'c1', payload: { type: 'text', text: 'x' } } })
    expect(res.status).toBe(401)
    expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
    expect(messageCount()).toBe(0)
  })

  it('refuses a valid key whose user was never created with 401 Unauthorized', async () => {
    const res = await post({ conversationId: 'c1', payload: { type: 'text', text: 'x' } }, await t.keyFor('ghost'))
    expect(res.status).toBe(401)
    expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
    expect(messageCount()).toBe(0)
  })
})

describe('createMessage metadata', () => {
  it('round-trips metadata exactly', async () => {
    const metadata = { source: 'web', nested: { list: [1, 'two', null], on: false }, count: 3.5, 'odd key': 'é' }
    const res = await post({ conversationId: 'c1', payload: { type: 'text', text: 'hi' }, metadata })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      message: {
        id: expect.any(String),
        createdAt: expect.stringMatching(ISO),
        payload: { type: 'text', text: 'hi' },
        userId: 'alice',
        conversationId: 'c1',
        metadata,
      },
    })
    expect((await readBack(res.body.message.id)).metadata).toEqual(metadata)
  })

  it('round-trips empty metadata as an empty object', async () => {
    const res = await post({ conversationId: 'c1', payload: { type: 'text', text: 'hi' }, metadata: {} })
    expect(res.status).toBe(200)
    expect(res.body.message.metadata).toEqual({})
  })

  it('leaves metadata out of the message when none is given, never null', async () => {
    const res = await post({ conversationId: 'c1', payload: { type: 'text', text: 'hi' } })
    expect(res.status).toBe(200)
    expect(Object.keys(res.body.message).sort()).toEqual(['conversationId', 'createdAt', 'id', 'payload', 'userId'])
  })

  it('treats null metadata as none and leaves it out of the message', async () => {
    const res = await post({ conversationId: 'c1', payload: { type: 'text', text: 'hi' }, metadata: null })
    expect(res.status).toBe(200)
    expect(res.body.message).toEqual({
      id: expect.any(String),
      createdAt: expect.stringMatching(ISO),
      payload: { type: 'text', text: 'hi' },
      userId: 'alice',
      conversationId: 'c1',
    })
  })
})
