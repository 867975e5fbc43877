import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.ts'
import { BASE, createTestApp, type TestApp, WEBHOOK_ID } from '../helpers/app.ts'

// CORS for REST and GraphQL alike (CORS_ORIGINS): an allowed origin gets the CORS headers and its
// preflight a 204 that allows the API's methods and headers; any other origin gets none.

const ALLOWED = 'https://app.example'
const OTHER = 'https://evil.example'

let t: TestApp | undefined
afterEach(async () => {
  await t?.close()
  t = undefined
})

const corsHeaders = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary'))

const preflight = (app: TestApp, path: string, origin: string, method = 'POST') =>
  app.app.fetch(
    new Request(`${BASE}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'content-type, x-user-key',
      },
    }),
  )

const paths: [string, string, string][] = [
  ['a REST path', `/${WEBHOOK_ID}/conversations`, 'POST'],
  ['a REST path with an id', `/${WEBHOOK_ID}/conversations/c1`, 'DELETE'],
  ['the chat GraphQL endpoint', `/${WEBHOOK_ID}/graphql`, 'POST'],
  ['the graphql-sse endpoint', `/${WEBHOOK_ID}/graphql/stream`, 'PUT'],
  ['the admin REST API', '/v1/admin/bots', 'GET'],
  ['the admin GraphQL endpoint', '/v1/admin/graphql', 'POST'],
]

describe('preflight from an allowed origin (CORS_ORIGINS lists it)', () => {
  it.each(paths)('answers 204 on %s, allowing the methods and headers the API uses', async (_name, path, method) => {
    t = createTestApp({ corsOrigins: [ALLOWED] })
    const response = await preflight(t, path, ALLOWED, method)
    expect(response.status).toBe(204)
    expect(await response.text()).toBe('')
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED)
    expect(response.headers.get('vary')).toBe('Origin')
    const methods = (response.headers.get('access-control-allow-methods') ?? '').split(/,\s*/)
    expect(methods).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'DELETE']))
    const headers = (response.headers.get('access-control-allow-headers') ?? '').split(/,\s*/).map((h) => h.toLowerCase())
    expect(headers).toEqual(
      expect.arrayContaining(['content-type', 'x-user-key', 'authorization', 'x-workspace-id']),
    )
  })

  it('does not need the user key or a known webhook id: a preflight carries no credentials', async () => {
    t = createTestApp({ corsOrigins: [ALLOWED] })
    const response = await preflight(t, '/no-such-webhook/graphql', ALLOWED)
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED)
  })
})

describe('actual requests from an allowed origin', () => {
  it('a REST call carries access-control-allow-origin and exposes x-request-id', async () => {
    t = createTestApp({ corsOrigins: [ALLOWED] })
    const alice = await t.user('alice')
    const response = await t.chat('POST', '/conversations', { key: alice.key, body: { id: 'c1' }, headers: { origin: ALLOWED } })
    expect(response.status).toBe(200)
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED)
    expect(response.headers.get('access-control-expose-headers')).toBe('x-request-id')
    expect(response.headers.get('vary')).toBe('Origin')
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('a REST error carries them too, so that the page can read the error body', async () => {
    t = createTestApp({ corsOrigins: [ALLOWED] })
    const response = await t.chat('GET', '/conversations/c1', { headers: { origin: ALLOWED } })
    expect(response.status).toBe(401)
    expect(response.body).toEqual({
      id: response.headers.get('x-request-id'),
      code: 401,
      type: 'Unauthorized',
      message: expect.any(String),
    })
    expect(corsHeaders(await t.send('GET', `${BASE}/${WEBHOOK_ID}/conversations/c1`, { headers: { origin: ALLOWED } }))).toEqual({
      'access-control-allow-origin': ALLOWED,
      'access-control-expose-headers': 'x-request-id',
      vary: 'Origin',
    })
  })

  it('a GraphQL call carries them', async () => {
    t = createTestApp({ corsOrigins: [ALLOWED] })
    const alice = await t.user('alice')
    const response = await t.graphql('query { me { userId } }', {}, { key: alice.key, headers: { origin: ALLOWED } })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ data: { me: { userId: 'alice' } } })
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED)
    expect(response.headers.get('access-control-expose-headers')).toBe('x-request-id')
  })

  it('a GraphQL refusal (invalid key, 401) carries them', async () => {
    t = createTestApp({ corsOrigins: [ALLOWED] })
    const response = await t.graphql('query { me { userId } }', {}, { key: 'not-a-jwt', headers: { origin: ALLOWED } })
    expect(response.status).toBe(401)
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED)
    expect(response.headers.get('access-control-expose-headers')).toBe('x-request-id')
  })

  it('a GraphQL subscription over SSE carries them', async () => {
    t = createTestApp({ corsOrigins: [ALLOWED] })
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const response = await t.app.fetch(
      new Request(`${BASE}/${WEBHOOK_ID}/graphql`, {
        method: 'POST',
        headers: { origin: ALLOWED, 'content-type': 'application/json', accept: 'text/event-stream', 'x-user-key': alice.key },
        // A subscription that is refused at once, so that the stream ends by itself.
        body: JSON.stringify({ query: 'subscription { conversationSignals(conversationId: "nope") { __typename } }' }),
      }),
    )
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED)
    expect(await response.text()).toContain('"type":"ResourceNotFound"')
  })

  it('a browser origin is matched exactly: scheme, host and port', async () => {
    t = createTestApp({ corsOrigins: [ALLOWED] })
    for (const near of ['http://app.example', 'https://app.example:8443', 'https://sub.app.example', 'https://app.example.evil']) {
      const response = await t.send('GET', `${BASE}/${WEBHOOK_ID}/hello`, { headers: { origin: near } })
      expect(response.status).toBe(200)
      expect(corsHeaders(response)).toEqual({})
    }
  })
})

describe('requests from an origin that is not allowed', () => {
  it('get no CORS headers on REST or GraphQL', async () => {
    t = createTestApp({ corsOrigins: [ALLOWED] })
    const alice = await t.user('alice')
    const rest = await t.send('POST', `${BASE}/${WEBHOOK_ID}/conversations`, { key: alice.key, body: {}, headers: { origin: OTHER } })
    expect(rest.status).toBe(200)
    expect(corsHeaders(rest)).toEqual({})
    const graphql = await t.send('POST', `${BASE}/${WEBHOOK_ID}/graphql`, {
      key: alice.key,
      body: { query: 'query { me { userId } }' },
      headers: { origin: OTHER },
    })
    expect(graphql.status).toBe(200)
    expect(corsHeaders(graphql)).toEqual({})
  })

  it.each(paths)('get a preflight on %s without access-control-allow-origin', async (_name, path, method) => {
    t = createTestApp({ corsOrigins: [ALLOWED] })
    const response = await preflight(t, path, OTHER, method)
    expect(response.status).toBe(204)
    expect(corsHeaders(response)).toEqual({})
  })
})

describe('CORS_ORIGINS = *', () => {
  it('lets any origin in with access-control-allow-origin: *', async () => {
    t = createTestApp({ corsOrigins: '*' })
    const alice = await t.user('alice')
    for (const origin of [ALLOWED, OTHER, 'http://localhost:5173']) {
      const pre = await preflight(t, `/${WEBHOOK_ID}/graphql`, origin)
      expect(pre.status).toBe(204)
      expect(pre.headers.get('access-control-allow-origin')).toBe('*')
      expect(pre.headers.get('access-control-allow-headers')).toMatch(/x-user-key/)
      const response = await t.graphql('query { me { userId } }', {}, { key: alice.key, headers: { origin } })
      expect(response.status).toBe(200)
      expect(response.headers.get('access-control-allow-origin')).toBe('*')
      expect(response.headers.get('access-control-expose-headers')).toBe('x-request-id')
    }
  })
})

describe('CORS by default (no CORS_ORIGINS)', () => {
  it('sends no CORS headers at all, whatever the origin', async () => {
    t = createTestApp()
    const alice = await t.user('alice')
    for (const origin of [ALLOWED, OTHER]) {
      const pre = await preflight(t, `/${WEBHOOK_ID}/conversations`, origin)
      expect(pre.status).toBe(204)
      expect(corsHeaders(pre)).toEqual({})
      const gqlPre = await preflight(t, `/${WEBHOOK_ID}/graphql`, origin)
      expect(corsHeaders(gqlPre)).toEqual({})
      const rest = await t.send('POST', `${BASE}/${WEBHOOK_ID}/conversations`, { key: alice.key, body: {}, headers: { origin } })
      expect(rest.status).toBe(200)
      expect(corsHeaders(rest)).toEqual({})
      const graphql = await t.send('POST', `${BASE}/${WEBHOOK_ID}/graphql`, {
        key: alice.key,
        body: { query: 'query { me { userId } }' },
        headers: { origin },
      })
      expect(graphql.status).toBe(200)
      expect(corsHeaders(graphql)).toEqual({})
    }
  })

  it('answers an OPTIONS that is not a preflight as any other unsupported method: 405', async () => {
    t = createTestApp()
    const response = await t.chat('OPTIONS', '/conversations')
    expect(response.status).toBe(405)
    expect(response.body).toEqual({
      id: response.headers.get('x-request-id'),
      code: 405,
      type: 'MethodNotFound',
      message: expect.any(String),
    })
    expect(corsHeaders(await t.send('OPTIONS', `${BASE}/${WEBHOOK_ID}/conversations`))).toEqual({})
  })
})

describe('CORS_ORIGINS parsing (loadConfig)', () => {
  it('splits a comma-separated list, trimming spaces and trailing slashes', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example, https://b.example/' }).corsOrigins).toEqual([
      'https://a.example',
      'https://b.example',
    ])
  })

  it('reads * as any origin', () => {
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*')
    expect(loadConfig({ CORS_ORIGINS: ' * ' }).corsOrigins).toBe('*')
  })

  it('allows no origin when unset or empty', () => {
    expect(loadConfig({}).corsOrigins).toEqual([])
    expect(loadConfig({ CORS_ORIGINS: '' }).corsOrigins).toEqual([])
    expect(loadConfig({ CORS_ORIGINS: ' , ' }).corsOrigins).toEqual([])
  })
})
