import type { Transport } from './mounts.ts'
import { json } from './responses.ts'
import { restRefusal } from './rest.ts'

/** GET /healthz: the process is up and serving. */
export const healthTransport: Transport = {
  serve: async () => json(200, { status: 'ok' }),
  refuse: restRefusal,
}
