import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'
import { unauthorized } from '../domain/errors.ts'
import { refuseAgentUserId } from '../domain/agent-users.ts'
import { assertClientId } from '../domain/ids.ts'
import { LruCache } from './lru.ts'

const encoder = new TextEncoder()

/** A user key that verified, with the time claims that can still expire it (seconds since the epoch). */
interface Verified {
  userId: string
  exp?: number
  nbf?: number
}

export interface UserKeyVerifierOptions {
  /** How many verified keys each encryption key remembers. */
  capacity?: number
  /** Milliseconds since the epoch (tests move it). */
  clock?: () => number
}

/**
 * Verifies user keys: an HS256 JWT whose claim `id` names the user, signed with the chat
 * integration's encryption key (the same bytes @botpress/chat's Client.connect signs with).
 * Importing the HMAC key costs more than verifying with it, so each encryption key's is imported
 * once; and a client sends the same key with every request, so the keys that verified are
 * remembered (the least recently used forgotten first) and only their `exp`/`nbf` re-checked.
 * A key that fails is never remembered: it fails through jose every time, exactly as before.
 */
export function createUserKeyVerifier({ capacity = 10_000, clock = Date.now }: UserKeyVerifierOptions = {}) {
  const integrations = new Map<string, { key: Promise<CryptoKey>; verified: LruCache<string, Verified> }>()

  const forEncryptionKey = (encryptionKey: string) => {
    let entry = integrations.get(encryptionKey)
    if (!entry) {
      const raw = encoder.encode(encryptionKey)
      const key = crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
      entry = { key, verified: new LruCache(capacity) }
      integrations.set(encryptionKey, entry)
    }
    return entry
  }

  /** jose's rule: a NumericDate claim holds while `nbf <= now < exp`, now in whole seconds. */
  const stillValid = ({ exp, nbf }: Verified) => {
    const now = Math.floor(clock() / 1000)
    return (exp === undefined || now < exp) && (nbf === undefined || nbf <= now)
  }

  return async function verifyUserKey(token: string, encryptionKey: string): Promise<string> {
    const { key, verified } = forEncryptionKey(encryptionKey)
    const known = verified.get(token)
    if (known && stillValid(known)) return known.userId
    if (known) verified.delete(token)

    let payload: Awaited<ReturnType<typeof jwtVerify>>['payload']
    try {
      ;({ payload } = await jwtVerify(token, await key, { algorithms: ['HS256'], currentDate: new Date(clock()) }))
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) throw unauthorized('the user key is not valid for this chat integration')
      throw error
    }
    if (typeof payload.id !== 'string') throw unauthorized('the user key has no "id" claim')
    const userId = refuseAgentUserId(assertClientId(payload.id, 'user id'))
    verified.set(token, { userId, exp: payload.exp, nbf: payload.nbf })
    return userId
  }
}

/** The process's user key verifier (see createUserKeyVerifier). */
export const verifyUserKey = createUserKeyVerifier()

/**
 * Verifies a user key with the first of `encryptionKeys` that signed it (the current key first; the
 * others are those a rotation keeps for a while). Refused with the current key's reason when none did.
 */
export async function verifyUserKeyWithAny(token: string, [current, ...previous]: readonly string[]): Promise<string> {
  if (current === undefined) throw unauthorized('the user key is not valid for this chat integration')
  try {
    return await verifyUserKey(token, current)
  } catch (refusal) {
    for (const key of previous) {
      const userId = await verifyUserKey(token, key).catch(() => undefined)
      if (userId !== undefined) return userId
    }
    throw refusal
  }
}

/** A user key for `userId`; with `expiresAtMs` (milliseconds since the epoch) it expires then (`exp`). */
export function signUserKey(userId: string, encryptionKey: string, expiresAtMs?: number): Promise<string> {
  const jwt = new SignJWT({ id: userId }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
  if (expiresAtMs !== undefined) jwt.setExpirationTime(Math.floor(expiresAtMs / 1000))
  return jwt.sign(encoder.encode(encryptionKey))
}
