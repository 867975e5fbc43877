import { DomainError } from '../domain/errors.ts'
import type { Transport } from './mounts.ts'
import { json } from './responses.ts'
import { restRefusal } from './rest.ts'
import { version } from '../version.ts'

/** GET /healthz: the process is up and serving, and which version of Confab it runs (a rolling upgrade shows its progress). */
export const healthTransport: Transport = {
  async serve(request) {
    if (request.method !== 'GET') throw new DomainError('MethodNotFound', 'the health check answers GET', { allow: 'GET' })
    return json(200, { status: 'ok', version })
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
 * GET /readyz: 200 `{"status":"ready"}` when the database answers with its migrations applied; 503
 * `{"status":"unavailable","failing":["database"]}` otherwise, and from the moment the instance
 * starts stopping, so that a load balancer sends requests elsewhere. Redis (the signal bus) not
 * answering leaves the instance ready, saying so (`"degraded":["redis"]`): writes go on without it
 * and this instance's listeners hear them, and since every instance shares that Redis, a 503 would
 * take them all out of the balancer at once for the loss of live signals across instances.
 */
export const readinessTransport = (checks: {
  store: { check(): Promise<void> }
  signalBus?: { ping?(): Promise<void> }
  draining: () => boolean
}): Transport => ({
  async serve(request) {
    if (request.method !== 'GET') throw new DomainError('MethodNotFound', 'the readiness check answers GET', { allow: 'GET' })
    if (checks.draining()) return json(503, { status: 'unavailable', reason: 'stopping' })
    const [database, redis] = await Promise.all([
      withinTime(checks.store.check()).then(
        () => true,
        () => false,
      ),
      checks.signalBus?.ping
        ? withinTime(checks.signalBus.ping()).then(
            () => true,
            () => false,
          )
        : true,
    ])
    if (!database) return json(503, { status: 'unavailable', failing: ['database'] })
    return json(200, redis ? { status: 'ready' } : { status: 'ready', degraded: ['redis'] })
  },
  refuse: restRefusal,
})
