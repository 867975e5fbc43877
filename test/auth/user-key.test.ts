import { SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { LruCache } from '../../src/auth/lru.ts'
import { createUserKeyVerifier, signUserKey } from '../../src/auth/user-key.ts'

const ENCRYPTION_KEY = 'user-key-test-encryption-key'
const secret = new TextEncoder().encode(ENCRYPTION_KEY)
const T0 = Date.UTC(2030, 0, 1)
const seconds = (ms: number) => Math.floor(ms / 1000)

/** A verifier on a clock the test moves. */
function verifierAt(start = T0, capacity?: number) {
  let now = start
  const verify = createUserKeyVerifier({ clock: () => now, capacity })
  return { verify, setNow: (ms: number) => void (now = ms) }
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  )

describe('user key verification', () => {
  it('returns the id a key names, the first time and from its cache', async () => {
    const { verify } = verifierAt()
    const key = await signUserKey('alice', ENCRYPTION_KEY)
    expect(await verify(key, ENCRYPTION_KEY)).toBe('alice')
    expect(await verify(key, ENCRYPTION_KEY)).toBe('alice')
  })

  it('refuses a key already verified for one encryption key when presented with another', async () => {
    const { verify } = verifierAt()
    const key = await signUserKey('alice', ENCRYPTION_KEY)
    await verify(key, ENCRYPTION_KEY)
    expect(await refusal(verify(key, 'another-encryption-key'))).toMatchObject({ status: 401, type: 'Unauthorized' })
  })

  it('refuses a remembered key once its exp has passed', async () => {
    const { verify, setNow } = verifierAt()
    const key = await new SignJWT({ id: 'alice' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(seconds(T0) + 60)
      .sign(secret)
    expect(await verify(key, ENCRYPTION_KEY)).toBe('alice')
    setNow(T0 + 59_999)
    expect(await verify(key, ENCRYPTION_KEY)).toBe('alice')
    setNow(T0 + 60_000)
    expect(await refusal(verify(key, ENCRYPTION_KEY))).toMatchObject({ status: 401, type: 'Unauthorized' })
    setNow(T0)
    // Forgotten when it expired: verified again from scratch (the clock went back, so it holds again).
    expect(await verify(key, ENCRYPTION_KEY)).toBe('alice')
  })

  it('refuses a key before its nbf and accepts it from then on', async () => {
    const { verify, setNow } = verifierAt()
    const key = await new SignJWT({ id: 'alice' })
      .setProtectedHeader({ alg: 'HS256' })
      .setNotBefore(seconds(T0) + 30)
      .sign(secret)
    expect(await refusal(verify(key, ENCRYPTION_KEY))).toMatchObject({ status: 401 })
    setNow(T0 + 30_000)
    expect(await verify(key, ENCRYPTION_KEY)).toBe('alice')
    setNow(T0)
    expect(await refusal(verify(key, ENCRYPTION_KEY))).toMatchObject({ status: 401 })
  })

  it.each([
    ['signed with another secret', () => new SignJWT({ id: 'alice' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('other'))],
    ['signed with HS512', () => new SignJWT({ id: 'alice' }).setProtectedHeader({ alg: 'HS512' }).sign(secret)],
    ['without an id claim', () => new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg: 'HS256' }).sign(secret)],
    ['with a numeric id claim', () => new SignJWT({ id: 42 }).setProtectedHeader({ alg: 'HS256' }).sign(secret)],
    ['malformed', async () => 'not.a.jwt'],
  ])('refuses a key %s with 401, every time', async (_what, make) => {
    const { verify } = verifierAt()
    const key = await make()
    for (let i = 0; i < 2; i++) {
      expect(await refusal(verify(key, ENCRYPTION_KEY))).toMatchObject({ status: 401, type: 'Unauthorized' })
    }
  })

  it('keeps verifying correctly when more keys are in use than it remembers', async () => {
    const { verify } = verifierAt(T0, 2)
    const users = ['a', 'b', 'c', 'd']
    const keys = await Promise.all(users.map((id) => signUserKey(id, ENCRYPTION_KEY)))
    for (let round = 0; round < 3; round++) {
      expect(await Promise.all(keys.map((key) => verify(key, ENCRYPTION_KEY)))).toEqual(users)
    }
  })
})

describe('LruCache', () => {
  it('holds at most its capacity, dropping the least recently used entry', () => {
    const cache = new LruCache<string, number>(2)
    cache.set('a', 1)
    cache.set('b', 2)
    expect(cache.get('a')).toBe(1)
    cache.set('c', 3)
    expect(cache.size).toBe(2)
    expect(cache.get('b')).toBeUndefined()
    expect(cache.get('a')).toBe(1)
    expect(cache.get('c')).toBe(3)
  })

  it('replaces the value of a key it holds without growing', () => {
    const cache = new LruCache<string, number>(2)
    cache.set('a', 1)
    cache.set('a', 2)
    cache.set('b', 3)
    expect(cache.size).toBe(2)
    expect(cache.get('a')).toBe(2)
    cache.delete('a')
    expect(cache.get('a')).toBeUndefined()
    expect(cache.size).toBe(1)
  })
})
