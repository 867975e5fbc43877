import { Client } from '@botpress/chat'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ConfabServer, createServer } from '../../src/index.ts'
import { sendFrom } from '../helpers/from-address.ts'
import { expectRateLimited, rules } from '../helpers/limited.ts'
import { eventually } from '../helpers/wait.ts'

// Read replicas (worker threads) serve reads with their own copy of the app: a counter there would be
// theirs alone. The main thread counts before it hands a read over: what a limit counts is served on
// the main thread, and a 401 a replica answers is counted there as a failed authentication. Only the
// reads with a key (userReads) a replica counts itself, in its own memory: the main thread cannot
// tell their user without verifying the key.

const WEBHOOK = 'limits-replicas'
let confab: ConfabServer
let apiUrl: string
let key: string

beforeAll(async () => {
  confab = await createServer({
    databaseUrl: ':memory:',
    log: pino({ level: 'silent' }),
    bootstrap: { webhookId: WEBHOOK },
    readReplicas: 1,
    rateLimits: rules({ anonymous: { points: 3, seconds: 60 }, failedAuth: { points: 2, seconds: 60 }, userReads: { points: 8, seconds: 60 } }),
  })
  apiUrl = `${confab.url}/${WEBHOOK}`
  const chat = await Client.connect({ apiUrl })
  key = chat.user.key
  // The first reads start the replica; until it is ready the main thread serves them.
  await eventually(async () => {
    await chat.getUser({})
    expect(confab.replicas?.ready).toBe(1)
  }, 60_000)
}, 120_000)

afterAll(() => confab?.close())

const served = () => confab.replicas?.served ?? 0

describe('rate limits with read replicas', () => {
  it('hands a replica the reads with a user key', async () => {
    const before = served()
    for (let i = 0; i < 5; i++) expect((await sendFrom(`${apiUrl}/users/me`, { headers: { 'x-user-key': key } })).status).toBe(200)
    expect(served()).toBe(before + 5)
  })

  it('counts the reads with a key a replica serves on userReads, per user', async () => {
    const reader = (await sendFrom(`${apiUrl}/users`, { method: 'POST', body: {} })).body.key as string
    const me = (as: string) => sendFrom(`${apiUrl}/users/me`, { headers: { 'x-user-key': as } })
    const before = served()
    for (let i = 0; i < 8; i++) expect((await me(reader)).status).toBe(200)
    expectRateLimited(await me(reader), 8)
    expect(served()).toBe(before + 9)
    // The first user's own budget: at most one warm-up read and the five above were counted on it.
    expect((await me(key)).status).toBe(200)
  })

  it('counts key-less reads on the main thread, one counter for the whole instance', async () => {
    const before = served()
    for (let i = 0; i < 3; i++) expect((await sendFrom(`${apiUrl}/hello`, { from: '127.0.0.2' })).status).toBe(200)
    expectRateLimited(await sendFrom(`${apiUrl}/hello`, { from: '127.0.0.2' }), 3)
    expect(served()).toBe(before)
  })

  it("counts a replica's 401s as failed authentications: the address is then refused on the main thread", async () => {
    const before = served()
    const me = () => sendFrom(`${apiUrl}/users/me`, { headers: { 'x-user-key': 'not-a-key' }, from: '127.0.0.3' })
    // A replica answers before the main thread counts: the failure that goes over the limit is still its 401.
    for (let i = 0; i < 3; i++) expect((await me()).status).toBe(401)
    expect(served()).toBe(before + 3)
    expectRateLimited(await me(), 2)
    const good = await sendFrom(`${apiUrl}/users/me`, { headers: { 'x-user-key': key }, from: '127.0.0.3' })
    expectRateLimited(good, 2)
    expect(served()).toBe(before + 3)
  })
})
