import { DomainError } from '../domain/errors.ts'
import type { Transport } from './mounts.ts'
import { json } from './responses.ts'
import { restRefusal } from './rest.ts'

/** GET /healthz: the process is up and serving. */
export const healthTransport: Transport = {
  async serve(request) {
    if (request.method !== 'GET') throw new DomainError('MethodNotFound', 'the health check answers GET', { allow: 'GET' })
    return json(200, { status: 'ok' })
  },
  refuse: restRefusal,
}

/** A check that does not answer within 2 s has failed (a client waiting to reconnect counts as not ready). */
const withinTime = <T>(check: Promise<T>, ms = 2000): Promise<T> => {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  return Promise.race([check, late]).finally(() => clearTimeout(timer))
}

/**
 * GET /readyz: 200 `{"status":"ready"}` when the database answers with its migrations applied (and
 * the signal bus, Redis, answers when there is one); 503 `{"status":"unavailable",…}` otherwise, and
 * from the moment the instance starts stopping, so that a load balancer sends requests elsewhere.
 */
export const readinessTransport = (checks: {
  store: { check(): Promise<void> }
  signalBus?: { ping?(): Promise<void> }
  draining: () => boolean
}): Transport => ({
  async serve(request) {
    if (request.method !== 'GET') throw new DomainError('MethodNotFound', 'the readiness check answers GET', { allow: 'GET' })
    if (checks.draining()) return json(503, { status: 'unavailable', reason: 'stopping' })
    const failed: string[] = []
    await Promise.all([
      withinTime(checks.store.check()).catch(() => failed.push('database')),
      checks.signalBus?.ping && withinTime(checks.signalBus.ping()).catch(() => failed.push('redis')),
    ])
    return failed.length === 0 ? json(200, { status: 'ready' }) : json(503, { status: 'unavailable', failing: failed.sort() })
  },
  refuse: restRefusal,
})
