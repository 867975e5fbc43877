import type { EncryptionKeys, Store } from '../db/store.ts'
import { newSecret } from './ids.ts'
import { type EncryptionMode, encryptionModeOf, signingKeyOf, verifyingKeysOf } from './key-modes.ts'
import { resealedWebhookSecret } from './integration-webhooks.ts'
import { findChatIntegration } from './tenancy.ts'

export interface RotatedKey {
  mode: EncryptionMode
  /** The new key, which signs user keys from now on: shown once, never stored anywhere else. */
  key: string
  /** Until when user keys signed with the old key still verify. */
  overlapEndsAt: Date
}

/**
 * A new key for a chat integration's mode (the shared key, or the personal one): it signs user keys
 * from now on, while the old one still verifies those it signed until `overlapMs` has passed (or
 * until retireOldEncryptionKeys). Keys an earlier rotation kept stay as long as they were to stay.
 */
export async function rotateEncryptionKey(store: Store, webhookId: string, overlapMs: number, now = new Date()): Promise<RotatedKey> {
  const integration = await findChatIntegration(store, webhookId)
  const mode = encryptionModeOf(integration)
  const key = newSecret(32)
  const overlapEndsAt = new Date(now.getTime() + overlapMs)
  const kept = (integration.previousEncryptionKeys ?? []).filter(({ expiresAt }) => Date.parse(expiresAt) > now.getTime())
  const encryptionKey = mode === 'shared' ? key : integration.encryptionKey
  await setEncryptionKeys(store, integration.id, {
    encryptionKey,
    personalEncryptionKey: mode === 'personal' ? key : null,
    previousEncryptionKeys: [...kept, { key: signingKeyOf(integration), expiresAt: overlapEndsAt.toISOString() }],
    // Sealed with the shared key: sealed again with the new one.
    webhookSecret: resealedWebhookSecret(integration, encryptionKey),
  })
  return { mode, key, overlapEndsAt }
}

/** Ends every overlap of a chat integration at once: only its signing key verifies user keys. Returns how many keys went. */
export async function retireOldEncryptionKeys(store: Store, webhookId: string, now = new Date()): Promise<number> {
  const integration = await findChatIntegration(store, webhookId)
  const retired = verifyingKeysOf(integration, now).length - 1
  const { encryptionKey, personalEncryptionKey, webhookSecret } = integration
  await setEncryptionKeys(store, integration.id, { encryptionKey, personalEncryptionKey, previousEncryptionKeys: null, webhookSecret })
  return retired
}

/** Durable when it resolves; on SQLite the write also makes the process forget the integration it kept. */
const setEncryptionKeys = (store: Store, integrationId: string, keys: EncryptionKeys) => store.write((q) => q.tenancy.setEncryptionKeys(integrationId, keys))
