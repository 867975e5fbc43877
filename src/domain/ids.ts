import { randomBytes } from 'node:crypto'
import { monotonicFactory } from 'ulid'
import { invalidPayload } from './errors.ts'

const clientIdPattern = /^[A-Za-z0-9._:-]{1,64}$/

/** Ids a client chooses (users, conversations): 1–64 characters of [A-Za-z0-9._:-]. */
export function assertClientId(id: string, what: string): string {
  if (!clientIdPattern.test(id)) {
    throw invalidPayload(`${what} must be 1-64 characters from [A-Za-z0-9._:-], got ${JSON.stringify(id)}`)
  }
  return id
}

// Monotonic ULIDs: ids made in the same millisecond still sort in creation order, so the
// (createdAt, id) keyset returns rows in the order they were written.
const ulid = monotonicFactory()

export const newId = (): string => ulid()

/** A random secret (admin tokens, encryption keys, webhook ids): url-safe, 256 bits by default. */
export const newSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url')

/** A bot's signing secret, as Standard Webhooks writes one: `whsec_` + base64 of 32 random bytes. */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`
