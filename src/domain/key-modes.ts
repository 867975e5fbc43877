import type { ChatIntegrationRow } from '../db/schema.ts'
import { invalidPayload, unauthorized } from './errors.ts'

/**
 * How a chat integration's user keys are signed, as Botpress' chat integration has it:
 * - `shared`: with the server's own key (CONFAB_ENCRYPTION_KEY for the bootstrap bot, generated for
 *   the others), which no API shows; anyone may create a user (createUser, the web chat's first visit)
 *   and gets a key the server signs.
 * - `personal`: with a key the bot's operator set (updateBot) and signs with; users exist only through
 *   keys the operator signs, so creating one without a key is refused.
 */
export type EncryptionMode = 'shared' | 'personal'

export const encryptionModeOf = (integration: ChatIntegrationRow): EncryptionMode => (integration.personalEncryptionKey === null ? 'shared' : 'personal')

/** The key user keys are signed and verified with now: the personal one when set, else the shared one. */
export const signingKeyOf = (integration: ChatIntegrationRow): string => integration.personalEncryptionKey ?? integration.encryptionKey

/**
 * The keys a user key may be signed with: the signing key, then those a rotation left to overlap
 * (`confab credentials --rotate-encryption-key`) until each one expires.
 */
export const verifyingKeysOf = (integration: ChatIntegrationRow, now: Date = new Date()): string[] => [
  signingKeyOf(integration),
  ...(integration.previousEncryptionKeys ?? []).filter(({ expiresAt }) => Date.parse(expiresAt) > now.getTime()).map(({ key }) => key),
]

/**
 * Botpress' own words (integrations/chat, createUser), then why: a user whose key nobody signed
 * could take an id before its owner's first visit and read what the owner is later sent.
 */
export const createUserRefusal =
  'The "createUser" operation can only be called when using the shared encryption key. This chat integration has a ' +
  'personal encryption key: its operator signs each user key (x-user-key, an HS256 JWT whose claim "id" names the ' +
  'user) with it, so that nobody but the users it signs keys for can chat with the bot; call getOrCreateUser with such a key.'

/** Refuses to create a user without a key when the integration is in personal mode (401). */
export function refuseUnsignedUsers(integration: ChatIntegrationRow): void {
  if (encryptionModeOf(integration) === 'personal') throw unauthorized(createUserRefusal)
}

/**
 * RFC 7518 (3.2): an HS256 key must have at least 256 bits. A shorter, guessable one would let
 * anyone holding one user key find the key offline by trial, then sign a key for any user.
 */
export const personalKeyMinLength = 32
export const personalKeyMaxLength = 1024

/** A personal encryption key as an operator gives it: 32-1024 characters. */
export function checkPersonalKey(key: string): string {
  if (key.length < personalKeyMinLength || key.length > personalKeyMaxLength) {
    throw invalidPayload(
      `integrations.chat.configuration.encryptionKey must be ${personalKeyMinLength}-${personalKeyMaxLength} characters ` +
        `(an HS256 key of at least 256 bits), got ${key.length}`,
    )
  }
  return key
}

/** What updateBot takes for the chat integration (the shape @botpress/client's updateBot sends). */
export interface ChatIntegrationInput {
  enabled?: boolean | null
  configuration?: { encryptionKey?: string | null; webhookUrl?: string | null; webhookSecret?: string | null } | null
}

/**
 * The personal key an update asks for: a string sets it, null (or a configuration without it) goes
 * back to the shared key, undefined leaves it. The chat integration can be neither removed nor disabled.
 */
export function personalKeyChange(chat: ChatIntegrationInput | null | undefined): string | null | undefined {
  if (chat === undefined) return undefined
  if (chat === null) {
    throw invalidPayload('the chat integration cannot be removed; to go back to the shared key, set integrations.chat.configuration.encryptionKey to null')
  }
  if (chat.enabled === false) throw invalidPayload('the chat integration cannot be disabled')
  if (chat.configuration === undefined) return undefined
  const key = chat.configuration?.encryptionKey
  return key == null ? null : checkPersonalKey(key)
}
