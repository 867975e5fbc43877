import { describe, expect, it } from 'vitest'
import { errorBody, ENCRYPTION_KEY } from '../helpers/app.ts'
import { type Bounded, useBounded } from '../helpers/bounded.ts'
import { signUserKey } from '../../src/auth/user-key.ts'

// A user's name (255 characters), picture URL (2,048 characters) and profile (16 KiB as UTF-8) are
// capped wherever they are set — createUser, getOrCreateUser, updateUser, over REST and GraphQL:
// over a cap, 400 InvalidPayload naming the field, nothing written. They ride in every participant
// list and signal that names the user.

const over = {
  name: ['n'.repeat(256), 'name must be at most 255 characters, got 256'],
  pictureUrl: [`https://pics.test/${'p'.repeat(2031)}`, 'pictureUrl must be at most 2048 characters, got 2049'],
  // 'é' is 2 bytes: 8,193 of them are 16,386 bytes.
  profile: ['é'.repeat(8193), 'profile must be at most 16384 bytes (UTF-8), got 16386'],
} as const

const atTheCap = { name: 'n'.repeat(255), pictureUrl: `https://pics.test/${'p'.repeat(2030)}`, profile: 'é'.repeat(8192) }

const send = (b: Bounded, method: string, path: string, key: string | undefined, body: unknown) =>
  fetch(`${b.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'x-user-key': key }) },
    body: JSON.stringify(body),
  })

const users = async (b: Bounded) => Number((await b.t.query<{ n: number }>('select count(*) as n from users where is_bot = false'))[0]?.n)

async function expectRefused(response: Response, message: string) {
  expect(response.status).toBe(400)
  expect(await response.json()).toEqual({ ...errorBody(400, 'InvalidPayload'), message })
}

describe('profile caps on REST createUser (POST /users)', () => {
  const b = useBounded()

  it.each(Object.entries(over))('refuses a %s over its cap with 400 naming it, creating no user', async (field, [value, message]) => {
    await expectRefused(await send(b.current, 'POST', '/users', undefined, { [field]: value }), message)
    expect(await users(b.current)).toBe(0)
  })

  it('takes every field at its cap', async () => {
    const created = await send(b.current, 'POST', '/users', undefined, atTheCap)
    expect(created.status).toBe(200)
    expect((await created.json()).user).toMatchObject(atTheCap)
  })
})

describe('profile caps on REST getOrCreateUser (POST /users/get-or-create)', () => {
  const b = useBounded()

  it.each(Object.entries(over))('refuses a %s over its cap with 400, creating no user', async (field, [value, message]) => {
    const key = await signUserKey('carol', ENCRYPTION_KEY)
    await expectRefused(await send(b.current, 'POST', '/users/get-or-create', key, { [field]: value }), message)
    expect(await users(b.current)).toBe(0)
  })
})

describe('profile caps on REST updateUser (PUT /users/me)', () => {
  const b = useBounded()

  it.each(Object.entries(over))('refuses a %s over its cap with 400, leaving the user as it was', async (field, [value, message]) => {
    const alice = await b.current.t.user('alice', { name: 'Alice' })
    await expectRefused(await send(b.current, 'PUT', '/users/me', alice.key, { [field]: value }), message)
    const me = await (await fetch(`${b.current.apiUrl}/users/me`, { headers: { 'x-user-key': alice.key } })).json()
    expect(me.user.name).toBe('Alice')
    expect(me.user[field === 'name' ? 'pictureUrl' : field]).toBeUndefined()
  })
})

describe('profile caps over GraphQL (createUser, getOrCreateUser, updateUser)', () => {
  const b = useBounded()

  const graphql = async (key: string | undefined, query: string, variables: Record<string, unknown>) =>
    (await send(b.current, 'POST', '/graphql', key, { query, variables })).json()

  const refusal = (message: string) => ({
    data: null,
    errors: [expect.objectContaining({ message, extensions: expect.objectContaining({ type: 'InvalidPayload', status: 400 }) })],
  })

  it('refuses each mutation with a name over the cap, writing nothing', async () => {
    const [name, message] = over.name
    expect(await graphql(undefined, 'mutation ($name: String) { createUser(input: { name: $name }) { user { userId } } }', { name })).toEqual(refusal(message))
    const carol = await signUserKey('carol', ENCRYPTION_KEY)
    expect(await graphql(carol, 'mutation ($name: String) { getOrCreateUser(input: { name: $name }) { user { userId } } }', { name })).toEqual(refusal(message))
    expect(await users(b.current)).toBe(0)
    const alice = await b.current.t.user('alice', { name: 'Alice' })
    const [profile, tooLarge] = over.profile
    expect(await graphql(alice.key, 'mutation ($profile: String) { updateUser(input: { profile: $profile }) { user { userId } } }', { profile })).toEqual(
      refusal(tooLarge),
    )
    const me = await graphql(alice.key, '{ me { name profile } }', {})
    expect(me).toEqual({ data: { me: { name: 'Alice', profile: null } } })
  })
})
