import pg from 'pg'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { signUserKey } from '../../src/auth/user-key.ts'
import { BASE, createTestApp, ENCRYPTION_KEY, errorBody, type TestApp, toJson } from '../helpers/app.ts'

/*
 * On PostgreSQL an instance keeps the chat integrations it served in memory, and a request with a
 * user key checks the copy's version in its first statement (src/domain/integration-cache.ts).
 * Two instances on one schema: what B changes holds on A at once, and A reads the integration again
 * only when it changed. This file always runs on PostgreSQL (TEST_DATABASE_URL, or 127.0.0.1:5432).
 */
const url = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'

const PERSONAL_KEY = 'operator-personal-key-0123456789abcdef'

let a: TestApp
let b: TestApp
/** Statements that read the integration by its webhook id, on either instance. */
let integrationReads = 0

beforeEach(async () => {
  a = createTestApp({ databaseUrl: url })
  await a.ready
  b = createTestApp({ besides: a })
  const query = pg.Client.prototype.query
  vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const [first] = args
    const sql = typeof first === 'string' ? first : String((first as { text?: string }).text)
    if (/from "chat_integrations" where "chat_integrations"\."webhook_id"/.test(sql)) integrationReads++
    return (query as (...a: unknown[]) => unknown).apply(this, args)
  } as never)
})

afterEach(async () => {
  vi.restoreAllMocks()
  // B first: A's close drops the schema.
  await b.close()
  await a.close()
})

/** Through `on`, the bootstrap bot's chat integration signs with `encryptionKey` (null: the shared key). */
const setPersonalKey = (on: TestApp, encryptionKey: string | null) =>
  on.admin('PUT', `/bots/${a.tenant!.botId}`, { body: { integrations: { chat: { configuration: { encryptionKey } } } } })

describe('a chat integration kept in memory (PostgreSQL)', () => {
  it('is read once for many keyed requests, and once more after another instance changed it', async () => {
    const alice = await a.user('alice')
    await a.conversation(alice.key, 'c1')
    integrationReads = 0
    for (let n = 0; n < 5; n++) {
      expect((await a.chat('GET', '/conversations/c1/messages', { key: alice.key })).status).toBe(200)
      await a.message(alice.key, 'c1')
      expect((await a.chat('GET', '/users/me', { key: alice.key })).status).toBe(200)
    }
    expect(integrationReads).toBe(0)

    expect((await setPersonalKey(b, PERSONAL_KEY)).status).toBe(200)
    const operatorKey = await signUserKey('alice', PERSONAL_KEY)
    integrationReads = 0
    for (let n = 0; n < 3; n++) expect((await a.chat('GET', '/conversations/c1/messages', { key: operatorKey })).status).toBe(200)
    expect(integrationReads).toBe(1)
  })

  it('a personal key set through B refuses on A at once the shared key A took a moment before, on every first statement', async () => {
    const alice = await a.user('alice')
    await a.conversation(alice.key, 'c1')
    expect((await a.chat('GET', '/users/me', { key: alice.key })).status).toBe(200)

    expect((await setPersonalKey(b, PERSONAL_KEY)).status).toBe(200)
    // The participation checks the version in its own statement; getUser and createMessage read it first.
    expect(await a.chat('GET', '/conversations/c1/messages', { key: alice.key })).toEqual({
      status: 401,
      headers: expect.anything(),
      body: errorBody(401, 'Unauthorized'),
    })
    expect((await a.chat('GET', '/users/me', { key: alice.key })).status).toBe(401)
    const post = await a.chat('POST', '/messages', { key: alice.key, body: { conversationId: 'c1', payload: { type: 'text', text: 'x' } } })
    expect(post.status).toBe(401)
    expect(await a.count('select count(*) as n from messages')).toBe(0)
  })

  it("a key signed with a personal key set through B gets in on A at once, though A's copy does not know that key yet", async () => {
    const alice = await a.user('alice')
    await a.conversation(alice.key, 'c1')
    expect((await setPersonalKey(b, PERSONAL_KEY)).status).toBe(200)
    const operatorKey = await signUserKey('alice', PERSONAL_KEY)
    expect((await a.chat('GET', '/conversations/c1/messages', { key: operatorKey })).status).toBe(200)
    expect((await a.chat('GET', '/users/me', { key: await signUserKey('alice', ENCRYPTION_KEY) })).status).toBe(401)
  })

  it('a bot deleted through B: its webhook id is 404 on A at once, and nothing is written', async () => {
    const alice = await a.user('alice')
    await a.conversation(alice.key, 'c1')
    expect((await a.chat('GET', '/conversations/c1/messages', { key: alice.key })).status).toBe(200)
    expect((await b.admin('DELETE', `/bots/${a.tenant!.botId}`)).status).toBe(200)
    const page = await a.chat('GET', '/conversations/c1/messages', { key: alice.key })
    expect(page.status).toBe(404)
    expect(page.body.message).toContain('Chat integration with webhook id')
    const post = await a.chat('POST', '/messages', { key: alice.key, body: { conversationId: 'c1', payload: { type: 'text', text: 'x' } } })
    expect(post.status).toBe(404)
    expect(await a.count('select count(*) as n from messages')).toBe(0)
  })

  it('an unknown webhook id is 404 after one look, with a key or without', async () => {
    const alice = await a.user('alice')
    for (const key of [alice.key, undefined]) {
      integrationReads = 0
      expect(await toJson(await a.send('GET', `${BASE}/no-such-webhook/users/me`, { key }))).toEqual({
        status: 404,
        headers: expect.anything(),
        body: errorBody(404, 'ResourceNotFound'),
      })
      expect(integrationReads).toBe(1)
    }
  })

  it('a request that runs no statement (the connection check, { __typename }) checks it before it is answered', async () => {
    const alice = await a.user('alice')
    expect((await a.chat('GET', '/hello', { key: alice.key })).status).toBe(200)
    expect((await b.admin('DELETE', `/bots/${a.tenant!.botId}`)).status).toBe(200)
    expect(await a.chat('GET', '/hello', { key: alice.key })).toEqual({ status: 404, headers: expect.anything(), body: errorBody(404, 'ResourceNotFound') })
    const typename = await a.graphql('{ __typename }', {}, { key: alice.key })
    expect(typename.status).toBe(404)
    expect(typename.body).toEqual({ errors: [expect.objectContaining({ extensions: expect.objectContaining({ type: 'ResourceNotFound', status: 404 }) })] })
  })
})
