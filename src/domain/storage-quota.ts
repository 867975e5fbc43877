import type { Queries } from '../db/store.ts'
import type { ChatContext } from './context.ts'
import { DomainError } from './errors.ts'

/**
 * What a user writes is kept (messages, custom events): a user may keep at most
 * MESSAGE_STORAGE_PER_USER_BYTES of it, counted as stored (user_storage, kept by triggers in the
 * statement that writes or deletes a row, so reading it is one key lookup). Refused with 413
 * PayloadTooLarge, as the file quota is (not 429: waiting does not help, deleting does).
 */

const jsonBytes = (value: unknown) => (value == null ? 0 : Buffer.byteLength(JSON.stringify(value)))

/** The bytes a message takes as stored: its payload's and its metadata's JSON (what user_storage counts). */
export const storedMessageBytes = (message: { payload: unknown; metadata?: unknown }) => jsonBytes(message.payload) + jsonBytes(message.metadata)

/** The bytes a custom event takes as stored: its payload's JSON. */
export const storedEventBytes = (event: { payload: unknown }) => jsonBytes(event.payload)

/** Inside a unit: refuses `adding` more bytes for the user when they would pass the quota. */
export async function checkStorageQuota(ctx: ChatContext, q: Queries, userId: string, adding: number): Promise<void> {
  const quota = ctx.limits?.messageStoragePerUser ?? 0
  if (quota === 0 || adding <= 0) return
  const used = await q.users.storedBytes(ctx.integration.id, userId)
  if (used + adding > quota) {
    throw new DomainError(
      'PayloadTooLarge',
      `the user's messages and events would take ${used + adding} bytes, over their storage quota of ${quota} bytes (MESSAGE_STORAGE_PER_USER_BYTES); ${used} bytes are in use`,
    )
  }
}
