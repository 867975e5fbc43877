import { createServer, type Server, type Socket } from 'node:net'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PostgresStore } from '../../src/db/postgres/store.ts'
import { createErrorPath } from '../../src/graphql/errors.ts'

/*
 * A PostgreSQL whose address takes connections and never answers (a failover moving the database, a
 * network dropping its packets): no request waits longer than DATABASE_CONNECT_TIMEOUT_SECONDS for a
 * connection, new or from the pool, and each is told 503 Unavailable. Played by a TCP server of the
 * test's own that accepts and stays silent.
 */

let silent: Server
const held = new Set<Socket>()
let url: string

beforeAll(async () => {
  silent = createServer((socket) => {
    held.add(socket)
    socket.on('close', () => held.delete(socket))
  })
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  url = `postgres://postgres@127.0.0.1:${(silent.address() as { port: number }).port}/confab`
})

afterAll(async () => {
  for (const socket of held) socket.destroy()
  await new Promise((resolve) => silent.close(resolve))
})

const errors = createErrorPath(pino({ level: 'silent' }))

/** How a store call failed, and after how long. */
async function failure(call: () => Promise<unknown>) {
  const started = performance.now()
  const error = await call().then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  return { ms: performance.now() - started, told: errors.describe(error, 'request-1') }
}

const unavailable = { type: 'Unavailable', status: 503, message: 'the database is unavailable; retry in 1 s', headers: { 'retry-after': '1' } }

describe('a PostgreSQL that takes connections and never answers', () => {
  it('fails reads (read lanes), writes (the pool) and the writes waiting for a pooled connection within the connect timeout, each as 503 Unavailable', async () => {
    const store = new PostgresStore(url, { poolSize: 1, connectTimeoutMs: 300 })
    try {
      const [read, write, waiting] = await Promise.all([
        failure(() => store.read((q) => q.tenancy.anyWorkspace())),
        failure(() => store.write((q) => q.tenancy.deleteAdminToken('a'))),
        // The pool has one connection: this unit waits for it behind the one before.
        failure(() => store.write((q) => q.tenancy.deleteAdminToken('b'))),
      ])
      for (const { told, ms } of [read, write, waiting]) {
        expect(told).toEqual(unavailable)
        // The timeout, twice at most (the wait for the pool, then a connection of its own), and the machine's slack.
        expect(ms).toBeLessThan(3_000)
      }
    } finally {
      await store.close()
    }
  })
})
