import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.ts'
import { createCors } from '../../src/http/cors.ts'
import { BASE, type TestApp, useTestApp, WEBHOOK_ID } from '../helpers/app.ts'

// CORS for REST and GraphQL alike (CORS_ORIGINS): an allowed origin gets the CORS headers and its
// preflight a 204 that allows the API's methods and headers; any other origin gets none.

const ALLOWED = 'https://app.example'
const OTHER = 'https://evil.example'

const corsHeaders = ({ headers }: { headers: Headers }) =>
  Object.fromEntries([...headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary'))

const preflight = (t: TestApp, path: string, origin: string, method = 'POST') =>
  t.app.fetch(
    new Request(`${BASE}${path}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'content-type, x-user-key' },
    }),
  )

/** A REST call and a GraphQL call from `origin`, as a user. */
async function restAndGraphql(t: TestApp, origin: string) {
  const alice = await t.user('alice')
  const rest = await t.send('POST', `${BASE}/${WEBHOOK_ID}/conversations`, { key: alice.key, body: {}, headers: { origin } })
  const graphql = await t.send('POST', `${BASE}/${WEBHOOK_ID}/graphql`, { key: alice.key, body: { query: 'query { me { userId } }' }, headers: { origin } })
  expect([rest.status, graphql.status]).toEqual([200, 200])
  expect(await graphql.clone().json()).toEqual({ data: { me: { userId: 'alice' } } })
  return [rest, graphql]
}

const paths: [string, string, string][] = [
  ['a REST path', `/${WEBHOOK_ID}/conversations`, 'POST'],
  ['a REST path with an id', `/${WEBHOOK_ID}/conversations/c1`, 'DELETE'],
  ['the chat GraphQL endpoint', `/${WEBHOOK_ID}/graphql`, 'POST'],
  ['the graphql-sse endpoint', `/${WEBHOOK_ID}/graphql/stream`, 'PUT'],
  ['the admin REST API', '/v1/admin/bots', 'GET'],
  ['the admin GraphQL endpoint', '/v1/admin/graphql', 'POST'],
]

describe('CORS_ORIGINS lists the origin', () => {
  const t = useTestApp({ corsOrigins: [ALLOWED] })
  const allowedHeaders = { 'access-control-allow-origin': ALLOWED, 'access-control-expose-headers': 'x-request-id', vary: 'Origin' }

  it.each(paths)('answers a preflight on %s with 204, allowing the methods and headers the API uses', async (_name, path, method) => {
    const response = await preflight(t, path, ALLOWED, method)
    expect(response.status).toBe(204)
    expect(await response.text()).toBe('')
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED)
    expect(response.headers.get('vary')).toBe('Origin')
    expect((response.headers.get('access-control-allow-methods') ?? '').split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'DELETE']))
    const headers = (response.headers.get('access-control-allow-headers') ?? '').split(/,\s*/).map((h) => h.toLowerCase())
    expect(headers).toEqual(
      expect.arrayContaining(['content-type', 'x-user-key', 'authorization', 'x-workspace-id', 'x-admin-secret', 'timeout', 'x-amz-tagging']),
    )
  })

  it('answers a preflight without the user key or a known webhook id: a preflight carries no credentials', async () => {
    const response = await preflight(t, '/no-such-webhook/graphql', ALLOWED)
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED)
  })

  it('gives REST and GraphQL answers the CORS headers, exposing x-request-id', async () => {
    for (const response of await restAndGraphql(t, ALLOWED)) {
      expect(corsHeaders(response)).toEqual(allowedHeaders)
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    }
  })

  it('gives REST and GraphQL refusals the CORS headers too, so that the page can read the error', async () => {
    const rest = await t.chat('GET', '/conversations/c1', { headers: { origin: ALLOWED } })
    expect({ status: rest.status, body: rest.body }).toEqual({
      status: 401,
      body: { id: `err_${rest.headers.get('x-request-id')}`, code: 401, type: 'Unauthorized', message: expect.any(String) },
    })
    const graphql = await t.graphql('query { me { userId } }', {}, { key: 'not-a-jwt', headers: { origin: ALLOWED } })
    expect(graphql.status).toBe(401)
    for (const response of [rest, graphql]) expect(corsHeaders(response)).toEqual(allowedHeaders)
  })

  it('gives a GraphQL subscription over SSE the CORS headers', async () => {
    const alice = await t.user('alice')
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

  it('matches a browser origin exactly: scheme, host and port', async () => {
    for (const near of ['http://app.example', 'https://app.example:8443', 'https://sub.app.example', 'https://app.example.evil']) {
      const response = await t.send('GET', `${BASE}/${WEBHOOK_ID}/hello`, { headers: { origin: near } })
      expect(response.status).toBe(200)
      expect(corsHeaders(response)).toEqual({})
    }
  })

  it('gives another origin no CORS header on REST or GraphQL', async () => {
    for (const response of await restAndGraphql(t, OTHER)) expect(corsHeaders(response)).toEqual({})
  })

  it.each(paths)("answers another origin's preflight on %s without access-control-allow-origin", async (_name, path, method) => {
    const response = await preflight(t, path, OTHER, method)
    expect(response.status).toBe(204)
    expect(corsHeaders(response)).toEqual({})
  })
})

describe('CORS_ORIGINS = *', () => {
  const t = useTestApp({ corsOrigins: '*' })

  it('lets any origin in with access-control-allow-origin: *', async () => {
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
  const t = useTestApp()

  it('sends no CORS headers at all, whatever the origin', async () => {
    for (const origin of [ALLOWED, OTHER]) {
      for (const path of [`/${WEBHOOK_ID}/conversations`, `/${WEBHOOK_ID}/graphql`]) {
        const pre = await preflight(t, path, origin)
        expect(pre.status).toBe(204)
        expect(corsHeaders(pre)).toEqual({})
      }
    }
    for (const response of await restAndGraphql(t, ALLOWED)) expect(corsHeaders(response)).toEqual({})
  })

  it('answers an OPTIONS that is not a preflight as any other unsupported method: 405', async () => {
    const response = await t.chat('OPTIONS', '/conversations')
    expect(response.status).toBe(405)
    expect(response.body).toEqual({ id: `err_${response.headers.get('x-request-id')}`, code: 405, type: 'MethodNotFound', message: expect.any(String) })
    expect(corsHeaders(await t.send('OPTIONS', `${BASE}/${WEBHOOK_ID}/conversations`))).toEqual({})
  })
})

describe('a refused origin in the server log', () => {
  const logged: Record<string, unknown>[] = []
  const t = useTestApp({ log: pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) }) })
  const refusals = () => logged.filter((line) => String(line.msg).startsWith('CORS: refused'))

  it("is logged at info with the origin and the path, once for the preflight and the page's requests after it", async () => {
    await preflight(t, `/${WEBHOOK_ID}/hello`, ALLOWED, 'GET')
    await t.send('GET', `${BASE}/${WEBHOOK_ID}/hello`, { headers: { origin: ALLOWED } })
    await t.send('GET', `${BASE}/${WEBHOOK_ID}/hello`, { headers: { origin: ALLOWED } })
    expect(refusals()).toEqual([expect.objectContaining({ level: 30, origin: ALLOWED, path: `/${WEBHOOK_ID}/hello` })])
  })

  it("is not logged for the server's own origin (a same-origin POST carries an Origin too) or a request without one", async () => {
    logged.length = 0
    await t.send('GET', `${BASE}/${WEBHOOK_ID}/hello`, { headers: { origin: BASE } })
    await t.send('GET', `${BASE}/${WEBHOOK_ID}/hello`)
    expect(refusals()).toEqual([])
  })
})

describe('the refusal log is bounded (createCors with a clock)', () => {
  const request = (origin: string) => new Request('http://confab.test/w/hello', { headers: { origin } })
  const setUp = () => {
    const lines: Record<string, unknown>[] = []
    let now = 0
    const cors = createCors([], pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }), () => now)
    return { lines, cors, at: (ms: number) => (now = ms) }
  }

  it('logs one origin again only after 10 minutes', () => {
    const { lines, cors, at } = setUp()
    for (const ms of [0, 1000, 599_999]) {
      at(ms)
      cors.responseHeaders(request(OTHER))
    }
    expect(lines).toHaveLength(1)
    at(600_000)
    cors.responseHeaders(request(OTHER))
    expect(lines.map((line) => line.origin)).toEqual([OTHER, OTHER])
  })

  it('logs at most 20 origins in 10 minutes, and the next line says how many were left out', () => {
    const { lines, cors, at } = setUp()
    for (let i = 0; i < 500; i++) cors.responseHeaders(request(`https://o${i}.example`))
    expect(lines).toHaveLength(20)
    at(600_000)
    cors.responseHeaders(request('https://late.example'))
    expect(lines).toHaveLength(21)
    expect(lines[20]).toMatchObject({ origin: 'https://late.example', otherRefusalsNotLogged: 480 })
  })
})

describe('CORS_ORIGINS parsing (loadConfig)', () => {
  it('splits a comma-separated list, trimming spaces and trailing slashes', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example, https://b.example/' }).corsOrigins).toEqual(['https://a.example', 'https://b.example'])
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
