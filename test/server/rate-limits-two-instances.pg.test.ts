import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ConfabServer, createServer } from '../../src/index.ts'
import { signUserKey } from '../../src/auth/user-key.ts'
import { sendFrom } from '../helpers/from-address.ts'
import { expectRateLimited, rules } from '../helpers/limited.ts'
import { ownDatabase } from '../helpers/own-database.ts'
import { TEST_REDIS_URL } from '../helpers/redis.ts'

/*
 * Two instances on one PostgreSQL database and one Redis enforce one limit: their counters live in
 * Redis. Always runs on PostgreSQL (TEST_DATABASE_URL, or 127.0.0.1:5432) and Redis (TEST_REDIS_URL,
 * or 127.0.0.1:6379): it fails if either does not answer.
 */
const database = ownDatabase('confab_limits')
const databaseUrl = database.url

const bootstrap = { webhookId: 'limits-two', encryptionKey: 'limits-two-encryption-key', workspaceId: 'wkspace_limits', adminToken: 'bp_pat_limits_two' }
// Counters of this run only: the suite's Redis is shared with other runs.
const rateLimitPrefix = `confab:rl:test:${process.pid}:${Date.now()}`
const options = {
  databaseUrl,
  redisUrl: TEST_REDIS_URL,
  rateLimitPrefix,
  log: pino({ level: 'silent' }),
  bootstrap,
  rateLimits: rules({ createUser: { points: 3, seconds: 60 }, userWrites: { points: 3, seconds: 60 }, failedAuth: { points: 2, seconds: 60 } }),
}

let a: ConfabServer
let b: ConfabServer

beforeAll(async () => {
  await database.create()
  a = await createServer(options)
  b = await createServer(options)
}, 60_000)

afterAll(async () => {
  await Promise.allSettled([a?.close(), b?.close()])
  await database.drop()
}, 60_000)

const api = (server: ConfabServer) => `${server.url}/${bootstrap.webhookId}`

describe('rate limits shared by two instances (PostgreSQL + Redis)', () => {
  it('counts users made on either instance against one limit per client address', async () => {
    const create = (server: ConfabServer, from?: string) => sendFrom(`${api(server)}/users`, { method: 'POST', body: {}, from })
    expect((await create(a)).status).toBe(200)
    expect((await create(b)).status).toBe(200)
    expect((await create(a)).status).toBe(200)
    expectRateLimited(await create(b), 3)
    expectRateLimited(await create(a), 3)
    expect((await create(b, '127.0.0.2')).status).toBe(200)
  })

  it("counts a user's writes on either instance against one limit per user", async () => {
    const key = await signUserKey('alice', bootstrap.encryptionKey)
    const write = (server: ConfabServer, path: string) =>
      sendFrom(`${api(server)}${path}`, { method: 'POST', body: {}, headers: { 'x-user-key': key }, from: '127.0.0.4' })
    expect((await write(a, '/users/get-or-create')).status).toBe(200)
    expect((await write(b, '/conversations')).status).toBe(200)
    expect((await write(a, '/conversations')).status).toBe(200)
    expectRateLimited(await write(b, '/conversations'), 3)
  })

  it('counts failed authentications on either instance against one limit per client address', async () => {
    const me = (server: ConfabServer) => sendFrom(`${api(server)}/users/me`, { headers: { 'x-user-key': 'not-a-key' }, from: '127.0.0.3' })
    expect((await me(a)).status).toBe(401)
    expect((await me(b)).status).toBe(401)
    expectRateLimited(await me(a), 2)
    expectRateLimited(await me(b), 2)
  })
})
