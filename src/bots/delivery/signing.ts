import { createHmac } from 'node:crypto'

/**
 * The `webhook-signature` header of Standard Webhooks: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`
 * for each secret (a `whsec_` prefix, then the base64 key), space-separated; while a rotated secret
 * is still valid both sign, so that a receiver holding either one accepts the delivery.
 */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
      return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`
    })
    .join(' ')
}
