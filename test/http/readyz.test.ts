import { describe, expect, it } from 'vitest'
import { BASE, useTestApp } from '../helpers/app.ts'

describe('GET /readyz', () => {
  const t = useTestApp()
  const readyz = async (method = 'GET') => {
    const res = await t.app.fetch(new Request(`${BASE}/readyz`, { method }))
    return { status: res.status, body: await res.json() }
  }

  it('is 200 ready while the database answers with its migrations applied', async () => {
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ready' } })
  })

  it('is 503 once the instance stops (a load balancer then sends requests elsewhere), while /healthz stays 200', async () => {
    await t.app.endLiveConnections()
    expect(await readyz()).toEqual({ status: 503, body: { status: 'unavailable', reason: 'stopping' } })
    expect((await t.app.fetch(new Request(`${BASE}/healthz`))).status).toBe(200)
  })

  it('is 503 naming the database when it does not answer', async () => {
    await t.store.close()
    expect(await readyz()).toEqual({ status: 503, body: { status: 'unavailable', failing: ['database'] } })
  })

  it('answers only GET', async () => {
    const res = await readyz('POST')
    expect(res.status).toBe(405)
    expect(res.body).toMatchObject({ code: 405, type: 'MethodNotFound' })
  })
})

describe('GET /readyz with a signal bus (Redis)', () => {
  const t = useTestApp({
    signalBus: {
      publish: () => {},
      receive: () => () => {},
      ping: () => Promise.reject(new Error('Redis is away')),
    },
  })

  it('stays 200 when the bus does not answer, naming redis as degraded: writes go on without it', async () => {
    const res = await t.app.fetch(new Request(`${BASE}/readyz`))
    expect([res.status, await res.json()]).toEqual([200, { status: 'ready', degraded: ['redis'] }])
  })
})
