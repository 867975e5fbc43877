import { timingSafeEqual } from 'node:crypto'
import type { BotKeyHolder } from '../../../db/store.ts'
import type { Store } from '../../../db/store.ts'
import { now } from '../../clock.ts'
import type { AdminContext } from '../../context.ts'
import { invalidPayload, notFound, unauthorized } from '../../errors.ts'
import { newId, newSecret } from '../../ids.ts'
import { hashToken } from '../../tenancy.ts'

export interface CreateBotApiKeyInput {
  botId: string
  note?: string | null
}

/** A new key as createBotApiKey returns it: `value` is shown this once (only its digest is stored). */
export interface NewBotApiKey {
  id: string
  createdAt: string
  note: string | null
  value: string
}

const maxNoteLength = 1024

/** A key that acts for the bot on the bot API (/v1/chat/…), and for no other bot. */
export function createBotApiKey({ ctx, input }: { ctx: AdminContext; input: CreateBotApiKeyInput }): Promise<NewBotApiKey> {
  const note = input.note ?? null
  if (note !== null && note.length > maxNoteLength) throw invalidPayload(`note must be at most ${maxNoteLength} characters`)
  return ctx.store.write(async (q) => {
    if (!(await q.bots.find(ctx.workspaceId, input.botId))) throw notFound('Bot', input.botId)
    const value = `bak_${newSecret(32)}`
    const row = { id: newId(), botId: input.botId, note, keyHash: hashToken(value), createdAt: now() }
    await q.botApiKeys.insert(row)
    return { id: row.id, createdAt: row.createdAt, note, value }
  })
}

/** A bot's keys, without their values (never stored), oldest first. */
export function listBotApiKeys({ ctx, botId }: { ctx: AdminContext; botId: string }) {
  return ctx.store.read(async (q) => {
    if (!(await q.bots.find(ctx.workspaceId, botId))) throw notFound('Bot', botId)
    return (await q.botApiKeys.ofBot(botId)).map(({ id, createdAt, note }) => ({ id, createdAt, note }))
  })
}

export function deleteBotApiKey({ ctx, id }: { ctx: AdminContext; id: string }): Promise<void> {
  return ctx.store.write(async (q) => {
    if (!(await q.botApiKeys.delete(ctx.workspaceId, id))) throw notFound('Bot API key', id)
  })
}

/**
 * Opens the bot API for a request: the key is looked up by its digest, then its bot compared
 * with x-bot-id; every failure reads the same, so that a caller learns nothing of which part was wrong.
 */
export async function authenticateBot(store: Store, key: string | undefined, botId: string | undefined): Promise<BotKeyHolder> {
  const denied = unauthorized('a valid bot API key (Authorization: Bearer) and its x-bot-id are required')
  if (!key || !botId) throw denied
  const holder = await store.read((q) => q.botApiKeys.byHash(hashToken(key)))
  if (!holder) throw denied
  const expected = Buffer.from(holder.bot.id)
  const given = Buffer.from(botId)
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw denied
  return holder
}
