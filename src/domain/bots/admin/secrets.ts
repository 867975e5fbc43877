import { randomBytes } from 'node:crypto'
import type { BotRow } from '../../../db/schema.ts'
import { now } from '../../clock.ts'
import type { AdminContext } from '../../context.ts'
import { notFound } from '../../errors.ts'

/** How long a rotated-out secret keeps signing beside the new one, as Botpress does. */
export const signingSecretOverlapMs = 24 * 60 * 60 * 1000

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes (the standard allows 24–64). */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`

type SigningSecrets = Pick<BotRow, 'signingSecret' | 'previousSigningSecret' | 'previousSigningSecretExpiresAt'>

/**
 * The secrets a delivery of the bot is signed with at `at`: the current one first, then the one the
 * last rotation left, until it expires. Standard Webhooks sends one signature per secret, so a
 * receiver holding either verifies.
 */
export function signingSecretsOf(bot: SigningSecrets, at: string = now()): string[] {
  const previousValid = bot.previousSigningSecretExpiresAt !== null && Date.parse(bot.previousSigningSecretExpiresAt) > Date.parse(at)
  return [bot.signingSecret, previousValid ? bot.previousSigningSecret : null].filter((secret): secret is string => secret !== null && secret !== '')
}

/**
 * A new current secret; the previous one keeps signing for `signingSecretOverlapMs` (a secret
 * rotated out earlier stops signing now: at most two sign at once).
 */
export function rotateBotSigningSecrets({ ctx, id }: { ctx: AdminContext; id: string }): Promise<string> {
  return ctx.store.write(async (q) => {
    const bot = await q.bots.find(ctx.workspaceId, id)
    if (!bot) throw notFound('Bot', id)
    const at = now()
    const signingSecret = newSigningSecret()
    await q.bots.update(ctx.workspaceId, id, {
      signingSecret,
      previousSigningSecret: bot.signingSecret,
      previousSigningSecretExpiresAt: new Date(Date.parse(at) + signingSecretOverlapMs).toISOString(),
    })
    return signingSecret
  })
}
