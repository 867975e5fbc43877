import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { version } from '../../src/version.ts'
import { BASE, errorBody, toJson, useTestApp, WEBHOOK_ID } from '../helpers/app.ts'
import { type ExitStatus, type RunningServer, START_TIMEOUT, startServer } from '../helpers/server.ts'
import { eventually } from '../helpers/wait.ts'

// SHUTDOWN_DELAY_SECONDS (contract: SIGTERM/SIGINT is graceful): /readyz fails first, everything else is
// served for the delay, then the listener closes and what still reaches the app is refused with 503.

describe('a stopping app (refuseRequests, once the listener closes)', () => {
  const t = useTestApp({ handlers: {} })

  it('answers every request but the health checks 503 Unavailable, with Retry-After, and closes the connection', async () => {
    t.app.refuseRequests()
    const response = await t.app.fetch(
      new Request(`${BASE}/${WEBHOOK_ID}/users`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
    )
    expect(response.status).toBe(503)
    expect(response.headers.get('retry-after')).toBe('1')
    expect(response.headers.get('connection')).toBe('close')
    expect(await response.json()).toEqual(errorBody(503, 'Unavailable'))
    expect((await toJson(await t.app.fetch(new Request(`${BASE}/healthz`)))).status).toBe(200)
    expect(await toJson(await t.app.fetch(new Request(`${BASE}/readyz`)))).toMatchObject({ status: 503, body: { status: 'unavailable', reason: 'stopping' } })
  })
})

describe('SIGTERM with SHUTDOWN_DELAY_SECONDS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'confab-shutdown-'))
  let server: RunningServer
  const get = async (path: string) => {
    const response = await fetch(`${server.baseUrl}${path}`)
    return { status: response.status, body: await response.json() }
  }
  const createUser = async () => {
    const response = await fetch(`${server.baseUrl}/shutdown-webhook/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ada' }),
    })
    return response.status
  }

  beforeAll(async () => {
    server = await startServer({
      databaseUrl: join(dir, 'confab.db'),
      env: { SHUTDOWN_DELAY_SECONDS: '600', CONFAB_WEBHOOK_ID: 'shutdown-webhook' },
    })
  }, START_TIMEOUT + 30_000)

  afterAll(async () => {
    await server.kill()
    rmSync(dir, { recursive: true, force: true })
  })

  it('turns /readyz 503 at once and keeps serving everything else for the delay; a second SIGTERM ends the delay and the process exits 0', async () => {
    expect(await get('/readyz')).toEqual({ status: 200, body: { status: 'ready' } })
    server.signal('SIGTERM')
    await eventually(async () => expect(await get('/readyz')).toEqual({ status: 503, body: { status: 'unavailable', reason: 'stopping' } }))
    expect(await get('/healthz')).toEqual({ status: 200, body: { status: 'ok', version } })
    expect(await createUser()).toBe(200)

    server.signal('SIGTERM')
    const exit: ExitStatus = await server.exited()
    expect(exit).toEqual({ code: 0, signal: null })
    expect(server.stdout() + server.stderr()).not.toContain('Error')
  })
})
