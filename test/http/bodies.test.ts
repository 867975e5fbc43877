import { SignJWT } from 'jose'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BASE, createTestApp, ENCRYPTION_KEY, errorBody, type TestApp, WEBHOOK_ID } from '../helpers/app.ts'

const MiB = 1024 * 1024

let t: TestApp
let alice: Awaited<ReturnType<TestApp['user']>>
beforeEach(async () => {
  t = createTestApp()
  alice = await t.user('alice', { name: 'Alice' })
  await t.conversation(alice.key, 'c1')
})
afterEach(() => t.close())

/** Row counts of every chat table: a refused request must leave them as they were. */
// What users wrote; the bot's own user and the echo bot's answers are not counted here.
const userWritten: Record<string, string> = {
  users: 'select count(*) as n from users where not is_bot',
  conversations: 'select count(*) as n from conversations',
  participants: 'select count(*) as n from participants where user_id not in (select id from users where is_bot)',
  messages: 'select count(*) as n from messages where user_id not in (select id from users where is_bot)',
  events: 'select count(*) as n from events where user_id not in (select id from users where is_bot)',
}
const counts = () =>
  Object.fromEntries(
    Object.entries(userWritten).map(([table, sql]) => [table, (t.db.$client.prepare(sql).get() as { n: number }).n]),
  )

const endpoints: [operation: string, method: string, path: string, body: unknown][] = [
  ['getOrCreateUser', 'POST', '/users/get-or-create', { name: 'Someone' }],
  ['createConversation', 'POST', '/conversations', { id: 'c2' }],
  ['addParticipant', 'POST', '/conversations/c1/participants', { userId: 'alice' }],
  ['listParticipants', 'GET', '/conversations/c1/participants', undefined],
  ['createMessage', 'POST', '/messages', { conversationId: 'c1', payload: { type: 'text', text: 'hi' } }],
  ['createEvent', 'POST', '/events', { conversationId: 'c1', payload: { a: 1 } }],
]
const exceptGetOrCreateUser = endpoints.filter(([operation]) => operation !== 'getOrCreateUser')

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const secret = new TextEncoder().encode(ENCRYPTION_KEY)

const badKeys: [string, () => Promise<string>][] = [
  ['signed with another secret', () => new SignJWT({ id: 'alice' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('wrong-key'))],
  ['signed with HS512', () => new SignJWT({ id: 'alice' }).setProtectedHeader({ alg: 'HS512' }).sign(secret)],
  ['signed with HS384', () => new SignJWT({ id: 'alice' }).setProtectedHeader({ alg: 'HS384' }).sign(secret)],
  ['unsigned (alg none)', async () => `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ id: 'alice' })}.`],
  ['without an id claim', () => new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg: 'HS256' }).sign(secret)],
  ['with an id claim that is a number', () => new SignJWT({ id: 42 }).setProtectedHeader({ alg: 'HS256' }).sign(secret)],
  ['with a tampered payload', async () => {
    const [header, , signature] = alice.key.split('.')
    return `${header}.${b64url({ id: 'mallory' })}.${signature}`
  }],
  ['that is not a JWT', async () => 'not-a-jwt'],
]

describe('authentication — x-user-key', () => {
  it.each(endpoints)('%s refuses a request without x-user-key with 401 Unauthorized', async (_op, method, path, body) => {
    const before = counts()
    const res = await t.chat(method, path, { body })
    expect(res.status).toBe(401)
    expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
    expect(counts()).toEqual(before)
  })

  for (const [what, makeKey] of badKeys) {
    it.each(endpoints)(`%s refuses a key ${what} with 401 Unauthorized`, async (_op, method, path, body) => {
      const before = counts()
      const res = await t.chat(method, path, { key: await makeKey(), body })
      expect(res.status).toBe(401)
      expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
      expect(counts()).toEqual(before)
    })
  }

  it.each(exceptGetOrCreateUser)(
    '%s refuses a valid key whose user was never created with 401 Unauthorized',
    async (_op, method, path, body) => {
      const before = counts()
      const res = await t.chat(method, path, { key: await t.keyFor('ghost'), body })
      expect(res.status).toBe(401)
      expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
      expect(counts()).toEqual(before)
    },
  )

  it('getOrCreateUser accepts a valid key whose user was never created, and creates it', async () => {
    const res = await t.chat('POST', '/users/get-or-create', { key: await t.keyFor('ghost'), body: {} })
    expect(res.status).toBe(200)
    expect(res.body.user.id).toBe('ghost')
    const now = await t.chat('POST', '/conversations', { key: await t.keyFor('ghost'), body: { id: 'g1' } })
    expect(now.status).toBe(200)
  })
})

describe('unknown webhook id', () => {
  it.each(endpoints)('%s answers 404 ResourceNotFound under a webhook id that names no chat integration', async (_op, method, path, body) => {
    const before = counts()
    const res = await t.send(method, `${BASE}/no-such-webhook${path}`, { key: alice.key, body })
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual(errorBody(404, 'ResourceNotFound'))
    expect(counts()).toEqual(before)
  })
})

describe('routing — unknown paths and methods', () => {
  it.each([
    ['/nope'],
    ['/user'],
    ['/users/get-or-create/extra'],
    ['/conversations/c1/participants/alice/extra'],
    ['/conversations/c1/nope'],
    ['/messages/m1/nope'],
  ])('answers 404 ResourceNotFound for the unknown path %s', async (path) => {
    const res = await t.chat('POST', path, { key: alice.key, body: {} })
    expect(res.status).toBe(404)
    expect(res.body).toEqual(errorBody(404, 'ResourceNotFound'))
  })

  it.each([['/'], ['/test-webhook'], ['//users/get-or-create']])('answers 404 ResourceNotFound for the bare path %s', async (path) => {
    const res = await t.send('GET', `${BASE}${path}`, { key: alice.key })
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual(errorBody(404, 'ResourceNotFound'))
  })

  it.each([
    ['GET', '/users/get-or-create'],
    ['PUT', '/users/get-or-create'],
    ['DELETE', '/conversations/c1/participants'],
    ['PATCH', '/conversations/c1/participants'],
    ['GET', '/messages'],
    ['PUT', '/messages'],
    ['GET', '/events'],
    ['DELETE', '/events'],
  ])('answers 405 MethodNotFound to %s %s, writing nothing', async (method, path) => {
    const before = counts()
    const body = method === 'GET' ? undefined : { conversationId: 'c1', payload: { type: 'text', text: 'x' } }
    const res = await t.chat(method, path, { key: alice.key, body })
    expect(res.status).toBe(405)
    expect(res.body).toEqual(errorBody(405, 'MethodNotFound'))
    expect(counts()).toEqual(before)
  })

  it.each([
    ['the conversation id', `/${WEBHOOK_ID}/conversations/%E0%A4%A/participants`],
    ['the webhook id', '/%E0%A4%A/conversations/c1/participants'],
  ])('answers 404 ResourceNotFound, not 500, to a malformed percent-escape in %s', async (_what, path) => {
    const res = await t.send('GET', `${BASE}${path}`, { key: alice.key })
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual(errorBody(404, 'ResourceNotFound'))
  })
})

describe('error body', () => {
  it('carries the request id in its id and in the x-request-id header', async () => {
    const res = await t.chat('POST', '/conversations', { body: {} })
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ id: expect.any(String), code: 401, type: 'Unauthorized', message: expect.any(String) })
    expect(Object.keys(res.body).sort()).toEqual(['code', 'id', 'message', 'type'])
    expect(res.body.id).not.toBe('')
    expect(res.headers.get('x-request-id')).toBe(res.body.id)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  })

  it('gives every request its own id', async () => {
    const first = await t.chat('GET', '/nope', { key: alice.key })
    const second = await t.chat('GET', '/nope', { key: alice.key })
    expect(first.body.id).not.toBe(second.body.id)
    expect(first.headers.get('x-request-id')).toBe(first.body.id)
    expect(second.headers.get('x-request-id')).toBe(second.body.id)
  })

  it.each([
    [403, 'Forbidden', () => t.user('bob').then((bob) => t.chat('GET', '/conversations/c1/participants', { key: bob.key }))],
    [404, 'ResourceNotFound', () => t.chat('GET', '/conversations/nope/participants', { key: alice.key })],
    [405, 'MethodNotFound', () => t.chat('GET', '/messages', { key: alice.key })],
    [409, 'AlreadyExists', () => t.chat('POST', '/conversations', { key: alice.key, body: { id: 'c1' } })],
  ] as const)('has the same shape and header on a %i %s', async (status, type, call) => {
    const res = await call()
    expect(res.status).toBe(status)
    expect(res.body).toEqual({ id: expect.any(String), code: status, type, message: expect.any(String) })
    expect(res.headers.get('x-request-id')).toBe(res.body.id)
  })
})

describe('request bodies — JSON only', () => {
  it.each([
    ['a truncated object', '{"userId": "alice"'],
    ['a trailing comma', '{"userId": "alice",}'],
    ['single quotes', "{'userId': 'alice'}"],
    ['plain text', 'userId=alice'],
  ])('answers 400 InvalidPayload to malformed JSON (%s), writing nothing', async (_what, rawBody) => {
    const before = counts()
    const res = await t.chat('POST', '/conversations/c1/participants', {
      key: alice.key,
      rawBody,
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    expect(counts()).toEqual(before)
  })

  it('answers 400 InvalidPayload to a body that is not UTF-8', async () => {
    const res = await t.chat('POST', '/events', {
      key: alice.key,
      rawBody: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
  })

  it.each([
    ['text/plain', 'text/plain'],
    ['form data', 'application/x-www-form-urlencoded'],
    ['XML', 'application/xml'],
  ])('answers 415 UnsupportedMediaType to a body sent as %s, writing nothing', async (_what, contentType) => {
    const before = counts()
    const res = await t.chat('POST', '/conversations', {
      key: alice.key,
      rawBody: JSON.stringify({ id: 'c2' }),
      headers: { 'content-type': contentType },
    })
    expect(res.status).toBe(415)
    expect(res.body).toEqual(errorBody(415, 'UnsupportedMediaType'))
    expect(counts()).toEqual(before)
  })

  it('accepts application/json with a charset parameter', async () => {
    const res = await t.chat('POST', '/conversations', {
      key: alice.key,
      rawBody: JSON.stringify({ id: 'c2' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    })
    expect(res.status).toBe(200)
    expect(res.body.conversation.id).toBe('c2')
  })

  it.each([
    ['an array', [{ userId: 'alice' }]],
    ['a string', 'alice'],
    ['a number', 5],
    ['true', true],
    ['null', null],
  ])('answers 400 InvalidPayload to a body that is %s', async (_what, body) => {
    const before = counts()
    const res = await t.chat('POST', '/conversations/c1/participants', {
      key: alice.key,
      rawBody: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    expect(counts()).toEqual(before)
  })

  it.each([
    ['getOrCreateUser name', '/users/get-or-create', { name: 5 }],
    ['createConversation id', '/conversations', { id: { value: 'c2' } }],
    ['addParticipant userId', '/conversations/c1/participants', { userId: 5 }],
    ['createMessage conversationId', '/messages', { conversationId: true, payload: { type: 'text', text: 'x' } }],
    ['createMessage payload', '/messages', { conversationId: 'c1', payload: 'x' }],
    ['createEvent conversationId', '/events', { conversationId: ['c1'], payload: {} }],
    ['createEvent payload', '/events', { conversationId: 'c1', payload: [1] }],
  ])('answers 400 InvalidPayload to a %s of the wrong type, writing nothing', async (_field, path, body) => {
    const key = path === '/users/get-or-create' ? await t.keyFor('newcomer') : alice.key
    const before = counts()
    const res = await t.chat('POST', path, { key, body })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    expect(counts()).toEqual(before)
  })

})

describe('payload limits — 413 PayloadTooLarge over 1 MiB', () => {
  const prefix = '{"conversationId":"c1","payload":{"type":"text","text":"'
  const suffix = '"}}'
  /** A createMessage body of exactly `size` bytes: a valid text message padded with "a". */
  const messageBody = (size: number) => {
    const text = 'a'.repeat(size - prefix.length - suffix.length)
    const bytes = new TextEncoder().encode(`${prefix}${text}${suffix}`)
    expect(bytes.byteLength).toBe(size)
    return { bytes, text }
  }

  const withLength = (bytes: Uint8Array<ArrayBuffer>) =>
    new Request(`${BASE}/${WEBHOOK_ID}/messages`, {
      method: 'POST',
      headers: { 'x-user-key': alice.key, 'content-type': 'application/json', 'content-length': String(bytes.byteLength) },
      body: bytes,
    })

  const chunked = (bytes: Uint8Array, chunkSize = 64 * 1024) => {
    let offset = 0
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.byteLength) return controller.close()
        controller.enqueue(bytes.slice(offset, offset + chunkSize))
        offset += chunkSize
      },
    })
  }

  const streamed = (body: ReadableStream<Uint8Array>) =>
    new Request(`${BASE}/${WEBHOOK_ID}/messages`, {
      method: 'POST',
      headers: { 'x-user-key': alice.key, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit)

  it('accepts a body of exactly 1,048,576 bytes sent with Content-Length', async () => {
    const { bytes, text } = messageBody(MiB)
    const request = withLength(bytes)
    expect(request.headers.get('content-length')).toBe(String(MiB))
    const res = await t.app.fetch(request)
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.message.payload).toEqual({ type: 'text', text })
    expect(counts().messages).toBe(1)
  })

  it('refuses a body of 1,048,577 bytes sent with Content-Length, writing nothing', async () => {
    const { bytes } = messageBody(MiB + 1)
    const res = await t.app.fetch(withLength(bytes))
    expect(res.status).toBe(413)
    expect(await res.json()).toEqual(errorBody(413, 'PayloadTooLarge'))
    expect(counts().messages).toBe(0)
  })

  it('refuses a body whose Content-Length is over the limit before reading it', async () => {
    let pulled = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x61))
      },
    })
    const request = new Request(`${BASE}/${WEBHOOK_ID}/messages`, {
      method: 'POST',
      headers: { 'x-user-key': alice.key, 'content-type': 'application/json', 'content-length': String(10 * MiB) },
      body,
      duplex: 'half',
    } as RequestInit)
    const res = await t.app.fetch(request)
    expect(res.status).toBe(413)
    expect(await res.json()).toEqual(errorBody(413, 'PayloadTooLarge'))
    expect(pulled * 64 * 1024).toBeLessThan(MiB)
    expect(counts().messages).toBe(0)
  })

  it('accepts a streamed body of exactly 1,048,576 bytes without Content-Length', async () => {
    const { bytes, text } = messageBody(MiB)
    const request = streamed(chunked(bytes))
    expect(request.headers.get('content-length')).toBeNull()
    const res = await t.app.fetch(request)
    expect(res.status).toBe(200)
    expect((await res.json()).message.payload).toEqual({ type: 'text', text })
    expect(counts().messages).toBe(1)
  })

  it('refuses a streamed body of 1,048,577 bytes without Content-Length, writing nothing', async () => {
    const { bytes } = messageBody(MiB + 1)
    const request = streamed(chunked(bytes))
    expect(request.headers.get('content-length')).toBeNull()
    const res = await t.app.fetch(request)
    expect(res.status).toBe(413)
    expect(await res.json()).toEqual(errorBody(413, 'PayloadTooLarge'))
    expect(counts().messages).toBe(0)
  })

  it('stops reading an endless streamed body soon after it passes the limit', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x61)
    let sent = 0
    let cancelled = false
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(prefix))
      },
      pull(controller) {
        sent += chunk.byteLength
        if (sent > 64 * MiB) return controller.error(new Error('the server kept reading'))
        controller.enqueue(chunk)
      },
      cancel() {
        cancelled = true
      },
    })
    const res = await t.app.fetch(streamed(body))
    expect(res.status).toBe(413)
    expect(await res.json()).toEqual(errorBody(413, 'PayloadTooLarge'))
    expect(sent).toBeLessThanOrEqual(MiB + 3 * chunk.byteLength)
    expect(cancelled).toBe(true)
    expect(counts().messages).toBe(0)
  })

  it('refuses an oversized body on every chat endpoint', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(MiB) })
    for (const [, method, path] of endpoints.filter(([, method]) => method === 'POST')) {
      const res = await t.chat(method, path, { key: alice.key, rawBody: big, headers: { 'content-type': 'application/json' } })
      expect(res.status, `${method} ${path}`).toBe(413)
      expect(res.body).toEqual(errorBody(413, 'PayloadTooLarge'))
    }
  })
})

describe('never 500 — deeply nested JSON', () => {
  const nested = (depth: number) => `${'{"d":'.repeat(depth)}1${'}'.repeat(depth)}`

  it.each([
    ['an event payload', '/events', (inner: string) => `{"conversationId":"c1","payload":${inner}}`],
    [
      'message metadata',
      '/messages',
      (inner: string) => `{"conversationId":"c1","payload":{"type":"text","text":"x"},"metadata":${inner}}`,
    ],
  ])('answers %s nested 5,000 levels deep with 200 or 400, never 500', async (_what, path, wrap) => {
    const rawBody = wrap(nested(5000))
    expect(rawBody.length).toBeLessThan(MiB)
    const res = await t.chat('POST', path, { key: alice.key, rawBody, headers: { 'content-type': 'application/json' } })
    expect(res.body.type).not.toBe('Internal')
    expect([200, 400]).toContain(res.status)
  })
})
