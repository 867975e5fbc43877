import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pino } from 'pino'
import { rateLimitDefaults } from '../../src/config.ts'
import { type ConfabServer, createServer } from '../../src/index.ts'
import { errorBody } from '../helpers/app.ts'

const webhookId = 'front-door-webhook'
let confab: ConfabServer
beforeAll(async () => {
  confab = await createServer({ databaseUrl: ':memory:', log: pino({ level: 'silent' }), bootstrap: { webhookId } })
})
afterAll(() => confab?.close())

describe('GET /', () => {
  it('is a short page saying where the doors are, listing no webhook id', async () => {
    const response = await fetch(`${confab.url}/`, { headers: { accept: 'text/html' } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const page = await response.text()
    for (const door of [
      '/{webhookId}/',
      '/{webhookId}/graphql',
      'href="v1/admin/graphql"',
      'href="v1/agent/console"',
      'href="healthz"',
      'href="readyz"',
      'npm run confab -- credentials',
    ]) {
      expect(page).toContain(door)
    }
    expect(page).not.toContain(webhookId)
  })

  it('is JSON for a client that asks for JSON', async () => {
    const response = await fetch(`${confab.url}/`, { headers: { accept: 'application/json' } })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      name: 'confab',
      addresses: {
        health: 'healthz',
        readiness: 'readyz',
        chatApi: '{webhookId}',
        webChat: '{webhookId}/',
        chatGraphql: '{webhookId}/graphql',
        adminApi: 'v1/admin',
        adminGraphql: 'v1/admin/graphql',
        agentConsole: 'v1/agent/console',
        openApi: 'openapi.json',
        apiReference: 'docs/api',
      },
    })
  })

  it('answers GET only', async () => {
    const response = await fetch(`${confab.url}/`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
    expect(response.status).toBe(405)
    expect(await response.json()).toEqual(errorBody(405, 'MethodNotFound'))
  })
})

describe('the front doors are counted per client address (RATE_LIMIT_ANONYMOUS)', () => {
  it('refuses with 429 and Retry-After past the limit', async () => {
    const limited = await createServer({
      databaseUrl: ':memory:',
      log: pino({ level: 'silent' }),
      bootstrap: { webhookId },
      rateLimits: { ...rateLimitDefaults, anonymous: { points: 2, seconds: 60 } },
    })
    try {
      const statuses = []
      for (const path of ['/', `/${webhookId}`, `/${webhookId}/`]) statuses.push((await fetch(`${limited.url}${path}`, { redirect: 'manual' })).status)
      expect(statuses).toEqual([200, 308, 429])
      const refused = await fetch(`${limited.url}/`)
      expect(refused.status).toBe(429)
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(await refused.json()).toEqual(errorBody(429, 'RateLimited'))
    } finally {
      await limited.close()
    }
  })
})

describe('GET /{webhookId}', () => {
  it('sends a browser to the web chat at /{webhookId}/, keeping the query, by a relative URL', async () => {
    const response = await fetch(`${confab.url}/${webhookId}?lang=fr`, { redirect: 'manual' })
    expect(response.status).toBe(308)
    expect(response.headers.get('location')).toBe(`${webhookId}/?lang=fr`)
    const followed = await fetch(`${confab.url}/${webhookId}`)
    expect(followed.status).toBe(200)
    expect(followed.url).toBe(`${confab.url}/${webhookId}/`)
    expect(followed.headers.get('content-type')).toContain('text/html')
  })

  it('is no route for a webhook id that does not exist', async () => {
    const response = await fetch(`${confab.url}/no-such-webhook`, { redirect: 'manual' })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual(errorBody(404, 'ResourceNotFound'))
  })

  it('is no route for any other method, as before', async () => {
    const response = await fetch(`${confab.url}/${webhookId}`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual(errorBody(404, 'ResourceNotFound'))
  })
})
