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
