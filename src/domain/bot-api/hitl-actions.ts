import { z } from 'zod'
import type { UserRow } from '../../db/schema.ts'
import { now } from '../clock.ts'
import { endHandoff, requestHandoff } from '../handoff.ts'
import { invalidPayload } from '../errors.ts'
import { newId } from '../ids.ts'
import { assertJsonDepth } from '../payloads.ts'
import { checkProfileFields } from '../profile-caps.ts'
import { type BotApiContext, asChat, findConversation, findUser } from './context.ts'
import { type Json, obj, str } from '../../contracts/bot-api-inputs.ts'
import { parseInput } from './inputs.ts'

/*
 * The hitl interface's actions (botpress/botpress interfaces/hitl, v2.1.0), as a bot calls them on
 * Confab: `hitl:startHitl`, `hitl:stopHitl`, `hitl:createUser`. Confab is its own HITL system: the
 * "HITL session" is the user's conversation itself (startHitl answers its id), and the agents work
 * in it (docs/guides/handoff.md). Inputs are read as the interface's schemas read them: a property
 * they do not name is dropped, not refused.
 */

const optionalText = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, { error: `must be at most ${max} characters` })
    .nullish()

const maxHistoryItems = 1000

const startHitlInput = z.object({
  input: z.object(
    {
      userId: str,
      title: optionalText(256),
      description: optionalText(4096),
      // The plugin's own shape names the user's (upstream) conversation beside the interface's fields.
      conversationId: str.optional(),
      hitlSession: z.object({ conversationId: str.optional() }, { error: 'must be an object' }).nullish(),
      // What the bot read of the conversation (the interface's `{source, type, payload}`): shown to its agents as given.
      messageHistory: z
        .array(obj, { error: 'must be an array' })
        .max(maxHistoryItems, { error: `must have at most ${maxHistoryItems} messages` })
        .nullish(),
    },
    { error: 'must be an object' },
  ),
})

/**
 * `hitl:startHitl`: the conversation (`conversationId`, or `hitlSession.conversationId`) waits in
 * its workspace's queue for an agent; from now on its user's messages are not delivered to the bot.
 * Its `title`, `description` and `messageHistory` are kept for its agents until the handoff ends.
 * `userId` must be a user of the conversation's chat integration. Answers `{conversationId}`, the
 * HITL session's id (the conversation's). Asking again for a conversation handed off already
 * changes nothing.
 */
function startHitl(ctx: BotApiContext, input: Json): Promise<Json> {
  const parsed = parseInput(startHitlInput, { input }).input
  const conversationId = parsed.conversationId ?? parsed.hitlSession?.conversationId
  if (conversationId === undefined)
    throw invalidPayload('input.conversationId (or input.hitlSession.conversationId) names the conversation to hand off, and is required')
  // Stored and answered again to agents: nested no deeper than a payload may be.
  assertJsonDepth(parsed.messageHistory, 'input.messageHistory')
  return ctx.store.write(async (q, after) => {
    await findConversation(ctx, q, conversationId)
    await findUser(ctx, q, parsed.userId)
    const row = await requestHandoff(asChat(ctx), q, after, ctx.bot.workspaceId, conversationId, {
      title: parsed.title ?? null,
      description: parsed.description ?? null,
      messageHistory: (parsed.messageHistory as Record<string, unknown>[] | null | undefined) ?? null,
    })
    return { conversationId: row.id }
  })
}

const stopHitlInput = z.object({ input: z.object({ conversationId: str }, { error: 'must be an object' }) })

/**
 * `hitl:stopHitl`: the conversation goes back to the bot (its agent, if any, leaves it). The bot is
 * not told `hitl:hitlStopped` of its own call. A conversation the bot handles already: nothing changes.
 */
function stopHitl(ctx: BotApiContext, input: Json): Promise<Json> {
  const { conversationId } = parseInput(stopHitlInput, { input }).input
  return ctx.store.write(async (q, after) => {
    await findConversation(ctx, q, conversationId)
    await endHandoff(asChat(ctx), q, after, ctx.bot.workspaceId, conversationId, 'bot', false)
    return {}
  })
}

const createUserInput = z.object({
  input: z.object({ name: str, pictureUrl: optionalText(2048), email: optionalText(320) }, { error: 'must be an object' }),
})

/**
 * `hitl:createUser`: a user of the bot's chat integration, with that name and picture (the email is
 * not kept: Confab sends nobody mail). Answers `{userId}`.
 */
function createUser(ctx: BotApiContext, input: Json): Promise<Json> {
  const { name, pictureUrl = null } = parseInput(createUserInput, { input }).input
  checkProfileFields({ name, pictureUrl })
  return ctx.store.write(async (q) => {
    const at = now()
    const row: UserRow = {
      integrationId: ctx.integration.id,
      id: newId(),
      name,
      pictureUrl,
      profile: null,
      isBot: false,
      createdAt: at,
      updatedAt: at,
      idChosen: false,
    }
    await q.users.insert(row)
    return { userId: row.id }
  })
}

export const hitlActions = { 'hitl:startHitl': startHitl, 'hitl:stopHitl': stopHitl, 'hitl:createUser': createUser }
