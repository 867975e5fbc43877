import { invalidPayload } from './errors.ts'

/*
 * A user's profile fields ride in every participant list, signal and delivery that names the user:
 * each is capped where it is set (createUser, getOrCreateUser, updateUser, REST, GraphQL and the bot
 * API alike), as a bot's name is. docs/reference/limits.md lists them.
 */

/** Characters of a user's name (as a bot's). */
export const userNameMaxLength = 255
/** Characters of a user's picture URL. */
export const pictureUrlMaxLength = 2048
/** Bytes (UTF-8) of a user's profile: a small JSON document or text, as the web chat keeps it. */
export const profileMaxBytes = 16 * 1024

/** The profile fields given, each within its cap (400 InvalidPayload naming the field otherwise). */
export function checkProfileFields(input: { name?: string | null; pictureUrl?: string | null; profile?: string | null }): void {
  const { name, pictureUrl, profile } = input
  if (typeof name === 'string' && name.length > userNameMaxLength) {
    throw invalidPayload(`name must be at most ${userNameMaxLength} characters, got ${name.length}`)
  }
  if (typeof pictureUrl === 'string' && pictureUrl.length > pictureUrlMaxLength) {
    throw invalidPayload(`pictureUrl must be at most ${pictureUrlMaxLength} characters, got ${pictureUrl.length}`)
  }
  if (typeof profile === 'string') {
    const bytes = Buffer.byteLength(profile)
    if (bytes > profileMaxBytes) throw invalidPayload(`profile must be at most ${profileMaxBytes} bytes (UTF-8), got ${bytes}`)
  }
}
