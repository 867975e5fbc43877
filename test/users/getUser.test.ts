import { SignJWT } from 'jose'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTenant } from '../../src/domain/tenancy.ts'
import { BASE, createTestApp, ENCRYPTION_KEY, type TestApp } from '../helpers/app.ts'

let t: TestApp
beforeEach(() => {
  t = createTestApp()
})
afterEach(() => t.close())

const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

const GET_OR_CREATE_USER = /* GraphQL */ `
  mutation ($input: GetOrCreateUserInput!) {
    getOrCreateUser(input: $input) {
      user { id userId name pictureUrl profile createdAt updatedAt }
    }
  }
`

const ME = /* GraphQL */ `
  query { me { id userId name pictureUrl profile createdAt updatedAt } }
`

const fieldError = (type: string, status: number, path: string[]) => ({
  errors: [expect.objectContaining({ path, extensions: { type, status, requestId: expect.any(String) } })],
  data: null,
})

describe('getOrCreateUser', () => {
  it('creates the user the key names with the given profile', async () => {
    const key = await t.keyFor('alice')
    const input = { name: 'Alice', pictureUrl: 'https://example.com/alice.png', profile: '{"plan":"pro"}' }
    const res = await t.graphql(GET_OR_CREATE_USER, { input }, { key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      data: {
        getOrCreateUser: {
          user: {
            id: expect.any(String),
            userId: 'alice',
            name: 'Alice',
            pictureUrl: 'https://example.com/alice.png',
            profile: '{"plan":"pro"}',
            createdAt: iso,
            updatedAt: iso,
          },
        },
      },
    })
  })

  it('leaves the profile fields that are not given null', async () => {
    const res = await t.graphql(GET_OR_CREATE_USER, { input: {} }, { key: await t.keyFor('bob') })
    expect(res.body).toEqual({
      data: {
        getOrCreateUser: {
          user: {
            id: expect.any(String),
            userId: 'bob',
            name: null,
            pictureUrl: null,
            profile: null,
            createdAt: iso,
            updatedAt: iso,
          },
        },
      },
    })
  })

  it('returns an existing user unchanged', async () => {
    const key = await t.keyFor('alice')
    const first = await t.graphql(GET_OR_CREATE_USER, { input: { name: 'Alice' } }, { key })
    const second = await t.graphql(
      GET_OR_CREATE_USER,
      { input: { name: 'Someone else', pictureUrl: 'https://example.com/x.png', profile: 'other' } },
      { key },
    )
    expect(first.body.data.getOrCreateUser.user.name).toBe('Alice')
    expect(second.body).toEqual(first.body)
  })

  it('returns a user created through REST unchanged', async () => {
    const alice = await t.user('alice', { name: 'Alice', profile: 'p' })
    const res = await t.graphql(GET_OR_CREATE_USER, { input: { name: 'Renamed' } }, { key: alice.key })
    expect(res.body).toEqual({
      data: {
        getOrCreateUser: {
          user: {
            id: expect.any(String),
            userId: 'alice',
            name: 'Alice',
            pictureUrl: null,
            profile: 'p',
            createdAt: alice.user.createdAt,
            updatedAt: alice.user.updatedAt,
          },
        },
      },
    })
  })

  it('keeps the users of another chat integration apart', async () => {
    createTenant(t.db, {
      workspaceId: 'wkspace_other',
      adminToken: 'bp_pat_other',
      webhookId: 'other-webhook',
      encryptionKey: 'other-encryption-key',
      botName: 'Other bot',
      botHandler: 'echo',
    })
    await t.user('alice', { name: 'Alice here' })
    const otherKey = await new SignJWT({ id: 'alice' })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('other-encryption-key'))
    const response = await t.send('POST', `${BASE}/other-webhook/graphql`, {
      key: otherKey,
      body: { query: GET_OR_CREATE_USER, variables: { input: { name: 'Alice there' } } },
    })
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body.data.getOrCreateUser.user).toEqual(expect.objectContaining({ userId: 'alice', name: 'Alice there' }))
    const here = await t.graphql(ME, {}, { key: await t.keyFor('alice') })
    expect(here.body.data.me).toEqual(expect.objectContaining({ userId: 'alice', name: 'Alice here' }))
  })

  it('refuses a request without a user key as Unauthorized', async () => {
    const res = await t.graphql(GET_OR_CREATE_USER, { input: { name: 'Nobody' } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual(fieldError('Unauthorized', 401, ['getOrCreateUser']))
  })
})

describe('me', () => {
  it('returns the user the key names', async () => {
    const key = await t.keyFor('alice')
    const created = await t.graphql(
      GET_OR_CREATE_USER,
      { input: { name: 'Alice', pictureUrl: 'https://example.com/a.png', profile: 'x' } },
      { key },
    )
    const res = await t.graphql(ME, {}, { key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ data: { me: created.body.data.getOrCreateUser.user } })
  })

  it('refuses a key whose user does not exist as Unauthorized', async () => {
    const res = await t.graphql(ME, {}, { key: await t.keyFor('ghost') })
    expect(res.body).toEqual(fieldError('Unauthorized', 401, ['me']))
  })

  it('refuses a request without a user key as Unauthorized', async () => {
    await t.user('alice')
    const res = await t.graphql(ME)
    expect(res.body).toEqual(fieldError('Unauthorized', 401, ['me']))
  })
})

describe('chat authentication', () => {
  const encoder = new TextEncoder()

  it.each([
    ['a key signed with another secret', () => signed({ id: 'alice' }, 'HS256', 'wrong-key')],
    ['a key signed with HS512', () => signed({ id: 'alice' }, 'HS512', ENCRYPTION_KEY)],
    ['a key without an id claim', () => signed({ sub: 'alice' }, 'HS256', ENCRYPTION_KEY)],
    ['a key that is not a JWT', async () => 'not-a-jwt'],
  ])('answers HTTP 401 Unauthorized for %s', async (_name, makeKey) => {
    await t.user('alice')
    const res = await t.graphql(ME, {}, { key: await makeKey() })
    expect(res.status).toBe(401)
    expect(res.body.data).toBeUndefined()
    expect(res.body.errors[0].extensions).toEqual(expect.objectContaining({ type: 'Unauthorized', status: 401 }))
  })

  it('answers HTTP 404 ResourceNotFound for an unknown webhook id', async () => {
    const alice = await t.user('alice')
    const response = await t.send('POST', `${BASE}/unknown-webhook/graphql`, {
      key: alice.key,
      body: { query: ME },
    })
    expect(response.status).toBe(404)
    const body = await response.json()
    expect(body.data).toBeUndefined()
    expect(body.errors[0].extensions).toEqual(expect.objectContaining({ type: 'ResourceNotFound', status: 404 }))
  })

  async function signed(claims: Record<string, unknown>, alg: string, secret: string) {
    return new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(encoder.encode(secret))
  }
})
