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

const getOrCreate = async (id: string, body: unknown = {}) =>
  t.chat('POST', '/users/get-or-create', { key: await t.keyFor(id), body })

describe('getOrCreateUser — POST /users/get-or-create', () => {
  it('creates the user the key names, with every profile field of the body', async () => {
    const res = await getOrCreate('alice', { name: 'Alice', pictureUrl: 'https://pics.test/alice.png', profile: '{"tier":"gold"}' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      user: {
        id: 'alice',
        name: 'Alice',
        pictureUrl: 'https://pics.test/alice.png',
        profile: '{"tier":"gold"}',
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
    })
  })

  it('leaves absent optional fields out of the user instead of sending null', async () => {
    const res = await getOrCreate('bob', {})
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ user: { id: 'bob', createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO) } })
    expect(Object.keys(res.body.user).sort()).toEqual(['createdAt', 'id', 'updatedAt'])
  })

  it('creates the user from a request without a body', async () => {
    const res = await t.chat('POST', '/users/get-or-create', { key: await t.keyFor('carol') })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ user: { id: 'carol', createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO) } })
  })

  it('keeps only the fields that were given', async () => {
    const res = await getOrCreate('dave', { name: 'Dave' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      user: { id: 'dave', name: 'Dave', createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO) },
    })
  })

  it('returns an existing user unchanged, ignoring the profile of a later call', async () => {
    const first = await getOrCreate('alice', { name: 'Alice', pictureUrl: 'https://pics.test/a.png' })
    const second = await getOrCreate('alice', { name: 'Someone else', pictureUrl: 'https://pics.test/b.png', profile: 'p' })
    expect(second.status).toBe(200)
    expect(second.body).toEqual(first.body)
    expect(second.body.user).toEqual({
      id: 'alice',
      name: 'Alice',
      pictureUrl: 'https://pics.test/a.png',
      createdAt: first.body.user.createdAt,
      updatedAt: first.body.user.updatedAt,
    })
  })

  it('gives every user its own record', async () => {
    const alice = await getOrCreate('alice', { name: 'Alice' })
    const bob = await getOrCreate('bob', { name: 'Bob' })
    expect(alice.body.user).toMatchObject({ id: 'alice', name: 'Alice' })
    expect(bob.body.user).toMatchObject({ id: 'bob', name: 'Bob' })
    const again = await getOrCreate('alice')
    expect(again.body.user.name).toBe('Alice')
  })

  it('accepts a user id of 64 characters drawn from [A-Za-z0-9._:-]', async () => {
    const id = `Az09._:-${'x'.repeat(56)}`
    expect(id).toHaveLength(64)
    const res = await getOrCreate(id)
    expect(res.status).toBe(200)
    expect(res.body.user.id).toBe(id)
  })

  it.each([
    ['65 characters', 'x'.repeat(65)],
    ['a space', 'al ice'],
    ['a slash', 'al/ice'],
    ['a non-ASCII letter', 'alicé'],
  ])('refuses a key naming a user id with %s with 400 InvalidPayload', async (_what, id) => {
    const res = await getOrCreate(id, { name: 'X' })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
  })

  it('refuses a request without x-user-key with 401 Unauthorized', async () => {
    const res = await t.chat('POST', '/users/get-or-create', { body: { name: 'Nobody' } })
    expect(res.status).toBe(401)
    expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
  })

  it.each([
    ['name', { name: 5 }],
    ['pictureUrl', { pictureUrl: true }],
    ['profile', { profile: { tier: 'gold' } }],
  ])('refuses a %s of the wrong type with 400 InvalidPayload and creates no user', async (_field, body) => {
    const res = await getOrCreate('erin', body)
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    const later = await getOrCreate('erin', { name: 'Erin' })
    expect(later.body.user).toEqual({
      id: 'erin',
      name: 'Erin',
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    })
  })

  it('keeps users of two chat integrations apart, even under the same id', async () => {
    createTenant(t.db, {
      workspaceId: 'wkspace_other',
      adminToken: 'bp_pat_other',
      webhookId: 'other-webhook',
      encryptionKey: 'other-encryption-key',
      botName: 'Other bot',
      botHandler: 'echo',
    })
    const here = await getOrCreate('alice', { name: 'Alice here' })
    const otherKey = await signUserKey('alice', 'other-encryption-key')
    const there = await t.send('POST', `${BASE}/other-webhook/users/get-or-create`, {
      key: otherKey,
      body: { name: 'Alice there' },
    })
    expect(there.status).toBe(200)
    expect((await there.json()).user).toEqual({
      id: 'alice',
      name: 'Alice there',
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    })
    expect((await getOrCreate('alice')).body).toEqual(here.body)
  })

  it('refuses a key signed for another chat integration with 401 Unauthorized', async () => {
    createTenant(t.db, {
      workspaceId: 'wkspace_other',
      adminToken: 'bp_pat_other',
      webhookId: 'other-webhook',
      encryptionKey: 'other-encryption-key',
      botName: 'Other bot',
      botHandler: 'echo',
    })
    const res = await t.chat('POST', '/users/get-or-create', { key: await signUserKey('alice', 'other-encryption-key') })
    expect(res.status).toBe(401)
    expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
  })
})
