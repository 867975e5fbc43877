import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signUserKey } from '../../src/auth/user-key.ts'
import { loadConfig, rateLimitDefaults } from '../../src/config.ts'
import { type ConfabServer, createServer } from '../../src/index.ts'
import { SseReader } from '../helpers/sse.ts'
import { sample } from '../helpers/prometheus.ts'
import { eventually } from '../helpers/wait.ts'

const webhookId = 'metrics-webhook'
const sharedKey = 'metrics-shared-key'
const adminToken = 'bp_pat_metrics_admin_token'
const workspaceId = 'wkspace_metrics'

let confab: ConfabServer
beforeAll(async () => {
  confab = await createServer({
    databaseUrl: ':memory:',
    log: pino({ level: 'silent' }),
    bootstrap: { webhookId, adminToken, workspaceId, encryptionKey: sharedKey },
    metricsPort: 0,
    // One createUser a minute per address: the second is refused, and counted.
    rateLimits: { ...rateLimitDefaults, createUser: { points: 1, seconds: 60 } },
  })
})
afterAll(() => confab?.close())

const scrape = async () => {
  const response = await fetch(confab.metricsUrl as string)
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toContain('text/plain')
  return response.text()
}

const chat = (path: string, init: RequestInit & { key?: string } = {}) =>
  fetch(`${confab.url}/${webhookId}${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...(init.key ? { 'x-user-key': init.key } : {}) },
  })

describe('GET /metrics on METRICS_PORT', () => {
  it('is served on a listener of its own, never on the public one', async () => {
    expect(confab.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
    expect(new URL(confab.metricsUrl as string).port).not.toBe(new URL(confab.url).port)
    expect((await fetch(`${confab.url}/metrics`)).status).toBe(404)
    expect(await fetch(new URL('/other', confab.metricsUrl)).then((r) => r.status)).toBe(404)
    const text = await scrape()
    expect(text).toContain('# TYPE confab_http_requests_total counter')
    expect(text).toContain('process_cpu_user_seconds_total')
  })

  it('counts requests by transport, operation and status, and 429s apart, with bounded labels', async () => {
    const created = await chat('/users', { method: 'POST', body: '{}' })
    expect(created.status).toBe(200)
    const { key } = (await created.json()) as { key: string }
    expect((await chat('/users', { method: 'POST', body: '{}' })).status).toBe(429)
    expect((await chat('/conversations/a-conversation-id-of-its-own', { key })).status).toBe(404)
    const graphql = await chat('/graphql', { method: 'POST', key, body: JSON.stringify({ query: '{ me { userId } }' }) })
    expect(graphql.status).toBe(200)

    const text = await eventually(async () => {
      const scraped = await scrape()
      expect(sample(scraped, 'confab_http_requests_total', { transport: 'rest', operation: 'createUser', status: '200' })).toBe(1)
      return scraped
    })
    expect(sample(text, 'confab_http_requests_total', { transport: 'rest', operation: 'createUser', status: '429' })).toBe(1)
    expect(sample(text, 'confab_rate_limited_total', { transport: 'rest', operation: 'createUser' })).toBe(1)
    expect(sample(text, 'confab_http_requests_total', { transport: 'rest', operation: 'getConversation', status: '404' })).toBe(1)
    expect(sample(text, 'confab_http_requests_total', { transport: 'graphql', operation: 'query me', status: '200' })).toBe(1)
    expect(sample(text, 'confab_http_request_duration_seconds_count', { transport: 'rest', operation: 'createUser' })).toBe(2)
    // No label value is a path, an id or a key.
    expect(text).not.toContain('a-conversation-id-of-its-own')
    expect(text).not.toContain(webhookId)
    expect(text).not.toContain(key)
  })

  it('tells the live streams, the bot deliveries and the group commits', async () => {
    const userKeyInUse = await userKey()
    expect((await chat('/users/get-or-create', { method: 'POST', body: '{}', key: userKeyInUse })).status).toBe(200)
    expect((await chat('/conversations', { method: 'POST', key: userKeyInUse, body: JSON.stringify({ id: 'metrics-c1' }) })).status).toBe(200)
    const listening = new AbortController()
    const stream = await chat('/conversations/metrics-c1/listen', { key: userKeyInUse, signal: listening.signal })
    expect(stream.status).toBe(200)
    const reader = new SseReader(stream.body as ReadableStream<Uint8Array>)
    await eventually(async () => expect(sample(await scrape(), 'confab_live_streams')).toBe(1))

    const before = sample(await scrape(), 'confab_bot_delivery_attempts_total', { protocol: 'in-process', outcome: 'delivered' }) ?? 0
    const posted = await chat('/messages', {
      method: 'POST',
      key: userKeyInUse,
      body: JSON.stringify({ conversationId: 'metrics-c1', payload: { type: 'text', text: 'hi' } }),
    })
    expect(posted.status).toBe(200)
    const text = await eventually(async () => {
      const scraped = await scrape()
      expect(sample(scraped, 'confab_bot_delivery_attempts_total', { protocol: 'in-process', outcome: 'delivered' })).toBe(before + 1)
      return scraped
    })
    expect(sample(text, 'confab_bot_deliveries_pending')).toBe(0)
    expect(sample(text, 'confab_bot_delivery_oldest_pending_seconds')).toBe(0)
    expect(sample(text, 'confab_group_commit_units_count')).toBeGreaterThan(0)
    expect(sample(text, 'confab_group_commit_duration_seconds_count')).toBeGreaterThan(0)

    listening.abort()
    await reader.done.catch(() => {})
    await eventually(async () => expect(sample(await scrape(), 'confab_live_streams')).toBe(0))
  })
})

/** A key the test signs itself, with the bootstrap's shared key (as tools that hold it may). */
const userKey = () => signUserKey('metrics-user', sharedKey)

describe('the metrics listener binds loopback unless METRICS_HOST says otherwise (issue 49 row 16)', () => {
  /** Whether an HTTP GET to `url` gets an answer (false: the connection is refused). */
  const answers = (url: string) =>
    fetch(url).then(
      () => true,
      () => false,
    )
  const at = (url: string, address: string) => {
    const moved = new URL(url)
    moved.hostname = address
    return moved.href
  }

  it('with HOST=0.0.0.0 the API answers on every address, the metrics on 127.0.0.1 only', async () => {
    expect(loadConfig({}).metricsHost).toBe('127.0.0.1')
    const open = await createServer({ databaseUrl: ':memory:', log: pino({ level: 'silent' }), host: '0.0.0.0', metricsPort: 0 })
    try {
      expect(open.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
      expect(await answers(at(`${open.url}/healthz`, '127.0.0.2'))).toBe(true)
      expect(await answers(open.metricsUrl as string)).toBe(true)
      expect(await answers(at(open.metricsUrl as string, '127.0.0.2'))).toBe(false)
    } finally {
      await open.close()
    }
  })

  it('METRICS_HOST=0.0.0.0 publishes them on every address', async () => {
    const { metricsHost } = loadConfig({ METRICS_HOST: '0.0.0.0' })
    const open = await createServer({ databaseUrl: ':memory:', log: pino({ level: 'silent' }), metricsPort: 0, metricsHost })
    try {
      expect(await answers(at(open.metricsUrl as string, '127.0.0.2'))).toBe(true)
      expect(await answers(at(open.url, '127.0.0.2'))).toBe(false)
    } finally {
      await open.close()
    }
  })
})
