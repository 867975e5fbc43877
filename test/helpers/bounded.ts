import { pino } from 'pino'
import { afterEach, beforeEach } from 'vitest'
import { defaultLimits, type ResourceLimits } from '../../src/config.ts'
import { httpServer } from '../../src/server.ts'
import { createTestApp, type TestAppOptions, WEBHOOK_ID } from './app.ts'
import { serve } from './listening.ts'

/**
 * A test app behind the HTTP server src/server.ts makes (its timeouts, connection cap and stream
 * caps), on a free port of 127.0.0.1, with `limits` over the defaults.
 */
export async function startBounded(limits: Partial<ResourceLimits> = {}, options: TestAppOptions = {}) {
  const all = { ...defaultLimits, ...limits }
  const t = createTestApp({ handlers: {}, ...options, caps: all })
  await t.ready
  const served = await serve(t, httpServer(t.app, { log: pino({ level: 'silent' }), caps: all }))
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    await served.close()
    await t.close()
  }
  return { ...served, t, wsUrl: `${served.wsUrl}/${WEBHOOK_ID}/graphql`, close }
}

export type Bounded = Awaited<ReturnType<typeof startBounded>>

/** A bounded server per test, closed after it. */
export function useBounded(limits: Partial<ResourceLimits> = {}, options: TestAppOptions = {}): { current: Bounded } {
  const holder = {} as { current: Bounded }
  beforeEach(async () => {
    holder.current = await startBounded(limits, options)
  })
  afterEach(async () => {
    await holder.current?.close()
  })
  return holder
}
