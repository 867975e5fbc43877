import type { AddressInfo } from 'node:net'
import { pino } from 'pino'
import { afterEach, beforeEach } from 'vitest'
import { defaultLimits, type ResourceLimits } from '../../src/config.ts'
import { httpServer } from '../../src/server.ts'
import { createTestApp, type TestAppOptions, WEBHOOK_ID } from './app.ts'

/**
 * A test app behind the HTTP server src/server.ts makes (its timeouts, connection cap and stream
 * caps), on a free port of 127.0.0.1, with `limits` over the defaults.
 */
export async function startBounded(limits: Partial<ResourceLimits> = {}, options: TestAppOptions = {}) {
  const all = { ...defaultLimits, ...limits }
  const t = createTestApp({ handlers: {}, ...options, caps: all })
  await t.ready
  const server = httpServer(t.app, { log: pino({ level: 'silent' }), caps: all })
  t.app.attach(server)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  const baseUrl = `http://127.0.0.1:${port}`
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    await t.app.close()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await t.close()
  }
  return { t, server, port, baseUrl, apiUrl: `${baseUrl}/${WEBHOOK_ID}`, wsUrl: `ws://127.0.0.1:${port}/${WEBHOOK_ID}/graphql`, close }
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
