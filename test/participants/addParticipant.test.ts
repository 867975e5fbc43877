import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { signUserKey } from '../../src/auth/user-key.ts'
import { createTenant } from '../../src/domain/tenancy.ts'
import { createTestApp, errorBody, BASE, type TestApp } from '../helpers/app.ts'

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

let t: TestApp
beforeEach(() => {
  t = createTestApp()
})
afterEach(() => {
  vi.useRealTimers()
  t.close()
})

const list = (key: string, conversationId: string, nextToken?: string) =>
  t.chat(
    'GET',
    `/conversations/${conversationId}/participants${nextToken === undefined ? '' : `?nextToken=${encodeURIComponent(nextToken)}`}`,
    { key },
  )

const add = (key: string, conversationId: string, body: unknown) =>
  t.chat('POST', `/conversations/${conversationId}/participants`, { key, body })

const participantIds = async (key: string, conversationId: string) => {
  const res = await list(key, conversationId)
  expect(res.status).toBe(200)
  return (res.body.participants as { id: string }[]).map((p) => p.id)
}

/** Every page of listParticipants, following meta.nextToken until it is absent. */
async function allPages(key: string, conversationId: string) {
  const pages: { participants: { id: string }[]; meta: { nextToken?: string } }[] = []
  let nextToken: string | undefined
  do {
    const res = await list(key, conversationId, nextToken)
    expect(res.status).toBe(200)
    pages.push(res.body)
    nextToken = res.body.meta.nextToken
    if (pages.length > 10) throw new Error('listParticipants never ends')
  } while (nextToken !== undefined)
  return pages
}

describe('addParticipant — POST /conversations/{conversationId}/participants', () => {
  it('adds the user and returns it as the participant, field by field', async () => {
    const alice = await t.user('alice', { name: 'Alice' })
    const bob = await t.user('bob', { name: 'Bob', pictureUrl: 'https://pics.test/bob.png', profile: 'likes:cats' })
    await t.conversation(alice.key, 'c1')
    const res = await add(alice.key, 'c1', { userId: 'bob' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      participant: {
        id: 'bob',
        name: 'Bob',
        pictureUrl: 'https://pics.test/bob.png',
        profile: 'likes:cats',
        createdAt: bob.user.createdAt,
        updatedAt: bob.user.updatedAt,
      },
    })
    expect(res.body.participant.createdAt).toMatch(ISO)
    expect(res.body.participant.updatedAt).toMatch(ISO)
  })

  it('leaves the absent optional fields of the participant out instead of sending null', async () => {
    const alice = await t.user('alice')
    await t.user('bob')
    await t.conversation(alice.key, 'c1')
    const res = await add(alice.key, 'c1', { userId: 'bob' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      participant: { id: 'bob', createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO) },
    })
  })

  it('lists the added user once, after the owner, and lets it act in the conversation', async () => {
    const alice = await t.user('alice', { name: 'Alice' })
    const bob = await t.user('bob', { name: 'Bob' })
    const carol = await t.user('carol')
    await t.conversation(alice.key, 'c1')
    await add(alice.key, 'c1', { userId: 'bob' })
    const asBob = await list(bob.key, 'c1')
    expect(asBob.status).toBe(200)
    expect(asBob.body).toEqual({ participants: [alice.user, bob.user], meta: {} })
    const byBob = await add(bob.key, 'c1', { userId: 'carol' })
    expect(byBob.status).toBe(200)
    expect(byBob.body).toEqual({ participant: carol.user })
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'bob', 'carol'])
  })

  it('is idempotent: adding a participant again answers 200 with the same participant, listed once', async () => {
    const alice = await t.user('alice')
    await t.user('bob', { name: 'Bob' })
    await t.conversation(alice.key, 'c1')
    const first = await add(alice.key, 'c1', { userId: 'bob' })
    const second = await add(alice.key, 'c1', { userId: 'bob' })
    expect(second.status).toBe(200)
    expect(second.body).toEqual(first.body)
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice', 'bob'])
  })

  it('is idempotent for the owner adding itself', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const res = await add(alice.key, 'c1', { userId: 'alice' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ participant: alice.user })
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice'])
  })

  it.each([
    ['an extra property', { userId: 'bob', role: 'admin' }],
    ['the conversationId in the body', { userId: 'bob', conversationId: 'c1' }],
  ])('refuses a body with %s with 400 InvalidPayload and adds nobody', async (_what, body) => {
    const alice = await t.user('alice')
    await t.user('bob')
    await t.conversation(alice.key, 'c1')
    const res = await add(alice.key, 'c1', body)
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice'])
  })

  it.each([
    ['missing', {}],
    ['a number', { userId: 5 }],
    ['null', { userId: null }],
    ['an array', { userId: ['bob'] }],
    ['an object', { userId: { id: 'bob' } }],
  ])('refuses a userId that is %s with 400 InvalidPayload and adds nobody', async (_what, body) => {
    const alice = await t.user('alice')
    await t.user('bob')
    await t.conversation(alice.key, 'c1')
    const res = await add(alice.key, 'c1', body)
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice'])
  })

  it('refuses a caller who is not a participant with 403 Forbidden and adds nobody', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.user('carol')
    await t.conversation(alice.key, 'c1')
    for (const userId of ['bob', 'carol']) {
      const res = await add(bob.key, 'c1', { userId })
      expect(res.status).toBe(403)
      expect(res.body).toEqual(errorBody(403, 'Forbidden'))
    }
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice'])
  })

  it('refuses a conversation that does not exist with 404 ResourceNotFound', async () => {
    const alice = await t.user('alice')
    await t.user('bob')
    const res = await add(alice.key, 'nope', { userId: 'bob' })
    expect(res.status).toBe(404)
    expect(res.body).toEqual(errorBody(404, 'ResourceNotFound'))
  })

  it('refuses a user that does not exist with 404 ResourceNotFound and adds nobody', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const res = await add(alice.key, 'c1', { userId: 'ghost' })
    expect(res.status).toBe(404)
    expect(res.body).toEqual(errorBody(404, 'ResourceNotFound'))
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice'])
  })

  it('refuses a user that exists only in another chat integration with 404 ResourceNotFound', async () => {
    createTenant(t.db, {
      workspaceId: 'wkspace_other',
      adminToken: 'bp_pat_other',
      webhookId: 'other-webhook',
      encryptionKey: 'other-encryption-key',
      botName: 'Other bot',
      botHandler: 'echo',
    })
    const elsewhere = await t.send('POST', `${BASE}/other-webhook/users/get-or-create`, {
      key: await signUserKey('dan', 'other-encryption-key'),
      body: { name: 'Dan' },
    })
    expect(elsewhere.status).toBe(200)
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const res = await add(alice.key, 'c1', { userId: 'dan' })
    expect(res.status).toBe(404)
    expect(res.body).toEqual(errorBody(404, 'ResourceNotFound'))
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice'])
  })

  it('refuses a request without x-user-key with 401 Unauthorized', async () => {
    const alice = await t.user('alice')
    await t.user('bob')
    await t.conversation(alice.key, 'c1')
    const res = await t.chat('POST', '/conversations/c1/participants', { body: { userId: 'bob' } })
    expect(res.status).toBe(401)
    expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
    expect(await participantIds(alice.key, 'c1')).toEqual(['alice'])
  })

  it('refuses a valid key whose user was never created with 401 Unauthorized', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const res = await add(await t.keyFor('ghost'), 'c1', { userId: 'alice' })
    expect(res.status).toBe(401)
    expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
  })
})

describe('listParticipants — GET /conversations/{conversationId}/participants', () => {
  it('lists the participants as users, with an empty meta on a single page', async () => {
    const alice = await t.user('alice', { name: 'Alice', pictureUrl: 'https://pics.test/alice.png', profile: 'p' })
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
    const res = await list(alice.key, 'c1')
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      participants: [
        {
          id: 'alice',
          name: 'Alice',
          pictureUrl: 'https://pics.test/alice.png',
          profile: 'p',
          createdAt: alice.user.createdAt,
          updatedAt: alice.user.updatedAt,
        },
        { id: 'bob', createdAt: bob.user.createdAt, updatedAt: bob.user.updatedAt },
      ],
      meta: {},
    })
  })

  it('pages through 45 participants 20 at a time, each exactly once and in join order', async () => {
    const owner = await t.user('owner')
    const joined = Array.from({ length: 44 }, (_, i) => `p${String(i + 1).padStart(2, '0')}`)
    const users = new Map<string, unknown>([['owner', owner.user]])
    for (const id of joined) users.set(id, (await t.user(id, { name: `User ${id}` })).user)
    await t.conversation(owner.key, 'big', joined)

    const pages = await allPages(owner.key, 'big')
    expect(pages.map((p) => p.participants.length)).toEqual([20, 20, 5])
    expect(pages[0]?.meta).toEqual({ nextToken: expect.any(String) })
    expect(pages[1]?.meta).toEqual({ nextToken: expect.any(String) })
    expect(pages[2]?.meta).toEqual({})
    expect(pages[1]?.meta.nextToken).not.toBe(pages[0]?.meta.nextToken)

    const ids = pages.flatMap((p) => p.participants.map((u) => u.id))
    expect(ids).toEqual(['owner', ...joined])
    expect(new Set(ids).size).toBe(45)
    expect(pages.flatMap((p) => p.participants)).toEqual(['owner', ...joined].map((id) => users.get(id)))
  })

  it('serves exactly 20 participants as one page without a nextToken', async () => {
    const owner = await t.user('owner')
    const joined = Array.from({ length: 19 }, (_, i) => `p${String(i + 1).padStart(2, '0')}`)
    for (const id of joined) await t.user(id)
    await t.conversation(owner.key, 'c20', joined)
    const res = await list(owner.key, 'c20')
    expect(res.status).toBe(200)
    expect(res.body.participants.map((u: { id: string }) => u.id)).toEqual(['owner', ...joined])
    expect(res.body.meta).toEqual({})
  })

  it('serves 21 participants as a page of 20 and a last page of 1', async () => {
    const owner = await t.user('owner')
    const joined = Array.from({ length: 20 }, (_, i) => `p${String(i + 1).padStart(2, '0')}`)
    for (const id of joined) await t.user(id)
    await t.conversation(owner.key, 'c21', joined)
    const pages = await allPages(owner.key, 'c21')
    expect(pages.map((p) => p.participants.map((u) => u.id))).toEqual([['owner', ...joined.slice(0, 19)], ['p20']])
    expect(pages[1]?.meta).toEqual({})
  })

  it('keeps join order, not id order, for participants who join within the same millisecond', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(new Date('2026-03-01T12:00:00.000Z'))
    const owner = await t.user('owner')
    const joined = Array.from({ length: 24 }, (_, i) => `z${String(24 - i).padStart(2, '0')}`)
    for (const id of joined) await t.user(id)
    await t.conversation(owner.key, 'same-ms', joined)
    const pages = await allPages(owner.key, 'same-ms')
    expect(pages.flatMap((p) => p.participants.map((u) => u.id))).toEqual(['owner', ...joined])
  })

  it.each([
    ['an altered token', (token: string) => `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`],
    ['a token with bytes appended', (token: string) => `${token}xyz`],
    ['a token cut short', (token: string) => token.slice(0, Math.floor(token.length / 2))],
    ['a made-up token', () => 'not-a-next-token'],
    ['a token of other JSON', () => Buffer.from('{"after":"p05"}').toString('base64url')],
  ])('refuses %s with 400 InvalidPayload', async (_what, tamper) => {
    const owner = await t.user('owner')
    const joined = Array.from({ length: 24 }, (_, i) => `p${String(i + 1).padStart(2, '0')}`)
    for (const id of joined) await t.user(id)
    await t.conversation(owner.key, 'c1', joined)
    const first = await list(owner.key, 'c1')
    const token: string = first.body.meta.nextToken
    expect(token).toEqual(expect.any(String))
    const res = await list(owner.key, 'c1', tamper(token))
    expect(res.status).toBe(400)
    expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
  })

  it('refuses a caller who is not a participant with 403 Forbidden', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'c1')
    const res = await list(bob.key, 'c1')
    expect(res.status).toBe(403)
    expect(res.body).toEqual(errorBody(403, 'Forbidden'))
  })

  it('refuses a conversation that does not exist with 404 ResourceNotFound', async () => {
    const alice = await t.user('alice')
    const res = await list(alice.key, 'nope')
    expect(res.status).toBe(404)
    expect(res.body).toEqual(errorBody(404, 'ResourceNotFound'))
  })

  it('refuses a request without x-user-key with 401 Unauthorized', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const res = await t.chat('GET', '/conversations/c1/participants')
    expect(res.status).toBe(401)
    expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
  })

  it('refuses a valid key whose user was never created with 401 Unauthorized', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const res = await list(await t.keyFor('ghost'), 'c1')
    expect(res.status).toBe(401)
    expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
  })
})
