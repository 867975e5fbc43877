import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

/**
 * A secret Confab keeps only to send it on (a chat integration's `webhookSecret`), sealed at rest:
 * AES-256-GCM under a key derived (HKDF-SHA256) from the integration's shared encryption key, the
 * server's own secret that signs its user keys and that no API shows, salted and bound (as the
 * cipher's additional data) to the integration's id, so that a sealed value copied to another
 * integration does not open. What it guards against: the column read alone (a copy of the row, a
 * query's output, a log of it). A copy of the whole database holds the shared key beside it, as it
 * holds every bot's signing secret: Confab has no secret outside its database to seal with.
 */

/** What a secret is sealed with: the integration's id and its shared encryption key. */
export interface SealingKey {
  integrationId: string
  encryptionKey: string
}

const version = 'v1'
const info = 'confab: chat integration webhook secret'

const keyOf = ({ integrationId, encryptionKey }: SealingKey) => Buffer.from(hkdfSync('sha256', encryptionKey, integrationId, info, 32))

/** `v1.<iv>.<ciphertext>.<tag>`, each base64url. */
export function sealSecret(secret: string, key: SealingKey): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', keyOf(key), iv)
  cipher.setAAD(Buffer.from(key.integrationId))
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
  return [version, iv, sealed, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.')
}

/** The secret `sealSecret` sealed with the same key; throws when it was sealed with another (or altered). */
export function openSecret(sealed: string, key: SealingKey): string {
  const [v, iv, text, tag] = sealed.split('.')
  if (v !== version || iv === undefined || text === undefined || tag === undefined) throw new Error('not a sealed secret')
  const decipher = createDecipheriv('aes-256-gcm', keyOf(key), Buffer.from(iv, 'base64url'))
  decipher.setAAD(Buffer.from(key.integrationId))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(text, 'base64url')), decipher.final()]).toString('utf8')
}
