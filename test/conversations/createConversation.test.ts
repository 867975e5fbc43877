import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { signUserKey } from '../../src/auth/user-key.ts'
import { createTenant } from '../../src/domain/tenancy.ts'
import { createTestApp, errorBody, BASE, type TestApp } from '../helpers/app.ts'

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

let t: TestApp
beforeEach(() => {
  t = createTestApp()
})
afterEach(() => t.close())

const participantIds = async (key: string, conversationId: string) => {
  const res = await t.chat('GET', `/conversations/${conversationId}/participants`, { key })
  expect(res.status).toBe(200)
  return (res.body.participants as { id: string }[]).map((p) => p.id)
}

describe('createConversation — POST /conversations', () => {
  it('creates a conversation under the chosen id', async () => {
    const alice = await t.user('alice')
    const res = await t.chat('POST', '/conversations', { key: alice.key, body: { id: 'support-42' } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      conversation: { id: 'support-42', createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO) },
    })
  })

  it('generates an id when none is given, a new one for every conversation', async () => {
    const alice = await t.user('alice')
    const first = await t.chat('POST', '/conversations', { key: alice.key, body: {} })
    const second = await t.chat('POST', '/conversations', { key: alice.key, body: {} })
    expect(first.status).toBe(200)
    expect(first.body).toEqual({
      conversation: { id: expect.any(String), createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO) },
    })
    expect(first.body.conversation.id).toMatch(/^[A-Za-z0-9._:-]{1,64}$/)
    expect(second.status).toBe(200)
    expect(second.body.conversation.id).not.toBe(first.body.conversation.id)
  })

  it('generates an id for a request without a body', async () => {
    const alice = await t.user('alice')
    const res = await t.chat('POST', '/conversations', { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body.conversation).toEqual({
      id: expect.any(String),
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    })
  })

  it('makes the caller the owner and the only participant', async () => {
    const alice = await t.user('alice', { name: 'Alice' })
    await t.chat('POST', '/conversations', { key: alice.key, body: { id: 'c1' } })
    const list = await t.chat('GET', '/conversations/c1/participants', { key: alice.key })
    expect(list.status).toBe(200)
    expect(list.body).toEqual({ participants: [alice.user], meta: {} })
    const owner = await t.graphql('query { conversation(id: "c1") { owner { userId } } }', {}, { key: alice.key })
    expect(owner.body.data).toEqual({ conversation: { owner: { userId: 'alice' } } })
  })

  it('refuses an id that exists with 409 AlreadyExists and leaves the conversation as it was', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    const created = await t.chat('POST', '/conversations', { key: alice.key, body: { id: 'c1' } })
    const res = await t.chat('POST', '/conversations', { key: bob.key, body: { id: 'c1' } })
    expect(res.status).toBe(409)
    expect(res.body).toEqual(errorBody(409, 'AlreadyExists'))
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice'])
    const asBob = await t.chat('GET', '/conversations/c1/participants', { key: bob.key })
    expect(asBob.status).toBe(403)
    const owner = await t.graphql('query { conversation(id: "c1") { createdAt owner { userId } } }', {}, { key: alice.key })
    expect(owner.body.data).toEqual({ conversation: { createdAt: created.body.conversation.createdAt, owner: { userId: 'alice' } } })
  })

  it('refuses an id the caller already used with 409 AlreadyExists', async () => {
    const alice = await t.user('alice')
    await t.chat('POST', '/conversations', { key: alice.key, body: { id: 'c1' } })
    const res = await t.chat('POST', '/conversations', { key: alice.key, body: { id: 'c1' } })
    expect(res.status).toBe(409)
    expect(res.body).toEqual(errorBody(409, 'AlreadyExists'))
  })

  it('accepts an id of 64 characters drawn from [A-Za-z0-9._:-]', async () => {
    const alice = await t.user('alice')
    const id = `Az09._:-${'y'.repeat(56)}`
    const res = await t.chat('POST', '/conversations', { key: alice.key, body: { id } })
    expect(res.status).toBe(200)
    expect(res.body.conversation.id).toBe(id)
    expect(await participantIds(alice.key, encodeURIComponent(id))).toEqual(['alice'])
  })

  it.each([
    ['is empty', ''],
    ['has 65 characters', 'y'.repeat(65)],
    ['has a space', 'c 1'],
    ['has a slash', 'c/1'],
    ['has a non-ASCII letter', 'cé'],
    ['has a #', 'c#1'],
  ])('refuses an id that %s with 400 InvalidPayload and creates nothing', async (_what, id) => {
    const alice = await t.user('alice')
    const res = await t.chat('POST', '/conversations', { key: alice.key, body: { id } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    const rows = t.db.$client.prepare('select count(*) as n from conversations').get() as { n: number }
    expect(rows.n).toBe(0)
  })

  it('refuses an id that is not a string with 400 InvalidPayload', async () => {
    const alice = await t.user('alice')
    const res = await t.chat('POST', '/conversations', { key: alice.key, body: { id: 42 } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
  })

  it('refuses a request without x-user-key with 401 Unauthorized', async () => {
    const res = await t.chat('POST', '/conversations', { body: { id: 'c1' } })
    expect(res.status).toBe(401)
    expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
  })

  it('refuses a valid key whose user was never created with 401 Unauthorized, creating nothing', async () => {
    const res = await t.chat('POST', '/conversations', { key: await t.keyFor('ghost'), body: { id: 'c1' } })
    expect(res.status).toBe(401)
    expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
    const alice = await t.user('alice')
    const again = await t.chat('POST', '/conversations', { key: alice.key, body: { id: 'c1' } })
    expect(again.status).toBe(200)
  })

  it('keeps conversations of two chat integrations apart, even under the same id', async () => {
    createTenant(t.db, {
      workspaceId: 'wkspace_other',
      adminToken: 'bp_pat_other',
      webhookId: 'other-webhook',
      encryptionKey: 'other-encryption-key',
      botName: 'Other bot',
      botHandler: 'echo',
    })
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const otherKey = await signUserKey('alice', 'other-encryption-key')
    const other = (method: string, path: string, body?: unknown) =>
      t.send(method, `${BASE}/other-webhook${path}`, { key: otherKey, body })
    expect((await other('POST', '/users/get-or-create', {})).status).toBe(200)
    const res = await other('POST', '/conversations', { id: 'c1' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      conversation: { id: 'c1', createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO) },
    })
  })
})
