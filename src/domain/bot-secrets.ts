import { randomBytes } from 'node:crypto'
import type { Queries } from '../db/store.ts'
import type { AdminContext } from './context.ts'
import { now } from './clock.ts'
import { notFound } from './errors.ts'
import { newId } from './ids.ts'

/** How long a rotated-out secret keeps signing beside the new one, as Botpress does. */
export const signingSecretOverlapMs = 24 * 60 * 60 * 1000

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes (the standard allows 24–64). */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`

/** Inside a unit: a new current secret for the bot. */
export async function addSigningSecret(q: Queries, botId: string, at: string): Promise<string> {
  const secret = newSigningSecret()
  await q.botSigningSecrets.insert({ id: newId(), botId, secret, createdAt: at, expiresAt: null })
  return secret
}

/**
 * The secrets a delivery of the bot is signed with at `at`: the current one first, then those a
 * rotation left valid. Standard Webhooks sends one signature per secret, so a receiver holding
 * either verifies.
 */
export async function signingSecretsOf(q: Queries, botId: string, at: string = now()): Promise<string[]> {
  const rows = await q.botSigningSecrets.valid(botId, at)
  return rows.map((row) => row.secret)
}

/** The bot's current secret (the newest valid one). */
export async function currentSigningSecret(q: Queries, botId: string): Promise<string> {
  const [current] = await signingSecretsOf(q, botId)
  if (current === undefined) throw new Error(`bot ${botId} has no signing secret`)
  return current
}

/** A new current secret; the previous one keeps signing for `signingSecretOverlapMs`. */
export function rotateBotSigningSecrets({ ctx, id }: { ctx: AdminContext; id: string }): Promise<string> {
  return ctx.store.write(async (q) => {
    if (!(await q.bots.find(ctx.workspaceId, id))) throw notFound('Bot', id)
    const at = now()
    await q.botSigningSecrets.expireCurrent(id, new Date(Date.parse(at) + signingSecretOverlapMs).toISOString())
    return addSigningSecret(q, id, at)
  })
}
