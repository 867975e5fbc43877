import { describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.ts'

describe('hello', () => {
  const t = useTestApp({ handlers: {} })

  it.each([['/hello'], ['/hello/']])('GET %s answers 200 {"status":"ok"} without a user key', async (path) => {
    const res = await t.chat('GET', path)
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok' } })
  })
})
