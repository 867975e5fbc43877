import { randomBytes, randomFillSync } from 'node:crypto'
import { monotonicFactory } from 'ulid'
import { invalidPayload } from './errors.ts'

/** Ids a client chooses: 1–64 characters of [A-Za-z0-9._:-]. */
export const clientIdPattern = /^[A-Za-z0-9._:-]{1,64}$/
export const clientIdWords = '1-64 characters from [A-Za-z0-9._:-]'

/** Ids a client chooses (users, conversations). */
export function assertClientId(id: string, what: string): string {
  if (!clientIdPattern.test(id)) {
    throw invalidPayload(`${what} must be ${clientIdWords}, got ${JSON.stringify(id)}`)
  }
  return id
}

// ulid draws each random character from its own crypto call (16 per id); a pool refilled 4 KiB at
// a time makes that one call per 256 new milliseconds. Each character takes one byte's top 5 bits.
const pool = Buffer.alloc(4096)
let next = pool.length
const pooledRandom = (): number => {
  if (next === pool.length) {
    randomFillSync(pool)
    next = 0
  }
  return (pool[next++] as number) / 256
}

/**
 * Monotonic ULIDs (26 characters of Crockford base32: 48 bits of time, 80 random bits drawn anew
 * each millisecond): ids made in the same millisecond, or while the clock steps back, increment the
 * last one, so the (createdAt, id) keyset returns rows in the order they were written.
 */
export function idFactory(clock: () => number = Date.now): () => string {
  const ulid = monotonicFactory(pooledRandom)
  return () => ulid(clock())
}

export const newId = idFactory()

/** A random secret (admin tokens, encryption keys, webhook ids): url-safe, 256 bits by default. */
export const newSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url')

/**
 * A webhook id: 144 random bits, url-safe, beginning with a letter or digit: one that began with
 * "-" was taken for an option by a command line (`confab credentials --webhook-id -x…`).
 */
export function newWebhookId(): string {
  for (;;) {
    const id = newSecret(18)
    if (/^[A-Za-z0-9]/.test(id)) return id
  }
}
