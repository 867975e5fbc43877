import { createHash } from 'node:crypto'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rateLimitDefaults } from '../../src/config.ts'
import { type ConfabServer, createServer } from '../../src/index.ts'
import { errorBody } from '../helpers/app.ts'

// The agent console's two files as the server answers them (what Chromium does with them:
// test/browser/agent-console.test.ts): the page under its policy, whose one style it names by hash,
// and the script, bundled.

let confab: ConfabServer
beforeAll(async () => {
  confab = await createServer({ databaseUrl: ':memory:', log: pino({ level: 'silent' }) })
})
afterAll(() => confab?.close())

describe('GET /v1/agent/console', () => {
  it('is the page, its one <style> named by its hash in the policy, and no inline script', async () => {
    const response = await fetch(`${confab.url}/v1/agent/console`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const page = await response.text()
    const styles = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map(([, css]) => css ?? '')
    expect(styles).toHaveLength(1)
    const hash = createHash('sha256')
      .update(styles[0] ?? '')
      .digest('base64')
    expect(response.headers.get('content-security-policy')).toBe(
      `default-src 'none'; script-src 'self'; style-src 'sha256-${hash}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'`,
    )
    expect([...page.matchAll(/<script\b[^>]*>/g)].map(([tag]) => tag)).toEqual(['<script type="module" src="console.js">'])
    expect(page).not.toMatch(/\sstyle=|\son[a-z]+=/)
  })

  it('sends …/console/ to the page itself, where its script is found', async () => {
    const response = await fetch(`${confab.url}/v1/agent/console/`, { redirect: 'manual' })
    expect(response.status).toBe(308)
    expect(response.headers.get('location')).toBe('../console')
  })

  it('answers GET only', async () => {
    const response = await fetch(`${confab.url}/v1/agent/console`, { method: 'POST' })
    expect(response.status).toBe(405)
    expect(await response.json()).toEqual(errorBody(405, 'MethodNotFound'))
  })
})

describe('GET /v1/agent/console.js', () => {
  it('is the bundled script: one module, importing nothing', async () => {
    const response = await fetch(`${confab.url}/v1/agent/console.js`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    const script = await response.text()
    expect(script.length).toBeGreaterThan(1000)
    expect(script).not.toMatch(/\bimport\s*[("'{*]|\beval\(|new Function\(/)
  })
})

describe('the console is counted per client address (RATE_LIMIT_ANONYMOUS)', () => {
  it('refuses with 429 past the limit', async () => {
    const limited = await createServer({
      databaseUrl: ':memory:',
      log: pino({ level: 'silent' }),
      rateLimits: { ...rateLimitDefaults, anonymous: { points: 2, seconds: 60 } },
    })
    try {
      const statuses = []
      for (const path of ['/v1/agent/console', '/v1/agent/console.js', '/v1/agent/console']) statuses.push((await fetch(`${limited.url}${path}`)).status)
      expect(statuses).toEqual([200, 200, 429])
    } finally {
      await limited.close()
    }
  })
})
