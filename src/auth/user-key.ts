import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'
import { unauthorized } from '../domain/errors.ts'
import { assertClientId } from '../domain/ids.ts'

const encoder = new TextEncoder()

/**
 * A user key is an HS256 JWT whose claim `id` names the user, signed with the chat integration's
 * encryption key (the same bytes @botpress/chat's Client.connect signs with). Returns that id.
 */
export async function verifyUserKey(key: string, encryptionKey: string): Promise<string> {
  let id: unknown
  try {
    const { payload } = await jwtVerify(key, encoder.encode(encryptionKey), { algorithms: ['HS256'] })
    id = payload.id
  } catch (error) {
    if (error instanceof joseErrors.JOSEError) throw unauthorized('the user key is not valid for this chat integration')
    throw error
  }
  if (typeof id !== 'string') throw unauthorized('the user key has no "id" claim')
  return assertClientId(id, 'user id')
}

export function signUserKey(userId: string, encryptionKey: string): Promise<string> {
  return new SignJWT({ id: userId }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(encoder.encode(encryptionKey))
}
