import { connect } from 'node:net'
import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BASE, type JsonResponse, toJson, useC1, useTestApp, WEBHOOK_ID } from '../helpers/app.ts'
import { type Served, serve } from '../helpers/listening.ts'
import { eventually } from '../helpers/wait.ts'

// The REST error body: {id, code, type, message}, its id err_ and the request id that x-request-id carries.

const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe('REST error body', () => {
  const t = useTestApp({ handlers: {} })
  const users = useC1(t)

  const cases: [string, () => Promise<JsonResponse>, number, string][] = [
    ['a missing key', () => t.chat('GET', '/conversations/c1'), 401, 'Unauthorized'],
    ['an invalid key', () => t.chat('GET', '/conversations/c1', { key: 'not-a-jwt' }), 401, 'Unauthorized'],
    ['a non-participant', async () => t.chat('GET', '/conversations/c1', { key: (await t.user('bob')).key }), 404, 'ResourceNotFound'],
    ['a missing conversation', () => t.chat('GET', '/conversations/nope', { key: users.alice.key }), 404, 'ResourceNotFound'],
    ['an unknown path', () => t.chat('GET', '/nowhere', { key: users.alice.key }), 404, 'ResourceNotFound'],
    ['a wrong method', () => t.chat('PATCH', '/messages', { key: users.alice.key }), 405, 'MethodNotFound'],
    ['an id that exists', () => t.chat('POST', '/conversations', { key: users.alice.key, body: { id: 'c1' } }), 409, 'AlreadyExists'],
    [
      'malformed JSON',
      () => t.chat('POST', '/conversations', { key: users.alice.key, rawBody: '{', headers: { 'content-type': 'application/json' } }),
      400,
      'InvalidPayload',
    ],
    [
      'an invalid payload',
      () => t.chat('POST', '/messages', { key: users.alice.key, body: { conversationId: 'c1', payload: { type: 'text' } } }),
      400,
      'InvalidPayload',
    ],
    [
      'a body that is not JSON',
      () => t.chat('POST', '/conversations', { key: users.alice.key, rawBody: 'x', headers: { 'content-type': 'text/plain' } }),
      415,
      'UnsupportedMediaType',
    ],
    [
      'an unknown webhook id',
      async () => toJson(await t.send('GET', `${BASE}/no-such-webhook/conversations/c1`, { key: users.alice.key })),
      404,
      'ResourceNotFound',
    ],
    ['an admin request without a token', () => t.admin('GET', '/bots', { headers: { authorization: '' } }), 401, 'Unauthorized'],
    ['an unknown admin path', () => t.admin('GET', '/no-such-thing'), 404, 'ResourceNotFound'],
    ['an unknown top-level path', async () => toJson(await t.send('GET', `${BASE}/no-such-webhook`)), 404, 'ResourceNotFound'],
  ]

  it.each(cases)('answers %s with exactly {id, code, type, message}, its id err_ and the x-request-id of the response', async (_what, request, code, type) => {
    const res = await request()
    const requestId = res.headers.get('x-request-id')
    expect(requestId).toMatch(REQUEST_ID)
    expect({ status: res.status, contentType: res.headers.get('content-type'), body: res.body }).toStrictEqual({
      status: code,
      contentType: 'application/json',
      body: { id: `err_${requestId}`, code, type, message: expect.any(String) },
    })
  })

  it('gives every request its own id', async () => {
    const [first, second] = [await t.chat('GET', '/nope', { key: users.alice.key }), await t.chat('GET', '/nope', { key: users.alice.key })]
    expect(first.body.id).not.toBe(second.body.id)
  })

  it('answers 500 Internal without a word of SQL when the database fails', async () => {
    await t.query('ALTER TABLE messages RENAME COLUMN payload TO payload_gone')
    const response = await t.send('GET', `${BASE}/${WEBHOOK_ID}/conversations/c1/messages`, { key: users.alice.key })
    const text = await response.text()
    expect(response.status).toBe(500)
    expect(JSON.parse(text)).toEqual({ id: `err_${response.headers.get('x-request-id')}`, code: 500, type: 'Internal', message: expect.any(String) })
    expect(text).not.toMatch(/payload_gone|no such column|SqliteError|SQLITE|select |\bat .+\.(ts|js):\d+/i)
  })
})

describe('a client that goes away before its answer', () => {
  // What the app logs, as pino's JSON lines.
  const lines: { level: number; msg: string }[] = []
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
  const t = useTestApp({ handlers: {}, log })
  let served: Served
  beforeEach(async () => {
    lines.length = 0
    served = await serve(t)
  })
  afterEach(() => served.close())

  /** A request whose body stops halfway, then the connection closed. */
  const cutShort = (path: string) =>
    new Promise<void>((resolve, reject) => {
      const url = new URL(`${served.baseUrl}/${WEBHOOK_ID}${path}`)
      const socket = connect(Number(url.port), url.hostname, () => {
        // Closed once the kernel has what was written, so that the server sees the head and half a body.
        socket.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`, () => {
          socket.destroy()
          resolve()
        })
      })
      socket.once('error', reject)
    })

  it.each(['/messages', '/graphql'])('is logged at debug level, not as an unexpected error (POST %s)', async (path) => {
    await cutShort(path)
    await eventually(() => expect(lines.map((line) => line.msg)).toContain('the client went away before its answer'))
    expect(lines.filter((line) => line.level >= 50)).toStrictEqual([])
  })
})
