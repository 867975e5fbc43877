import { botHandled } from '../handoff.ts'
import { now } from '../clock.ts'
import { eraseConversation } from '../erasure.ts'
import { alreadyExists } from '../errors.ts'
import { newId } from '../ids.ts'
import { botApiPage, botApiWindow } from './pages.ts'
import { joinConversation } from '../participants.ts'
import { type BotApiContext, asChat, findConversation } from './context.ts'
import { type Json, botApiInputs } from '../../contracts/bot-api-inputs.ts'
import { chosenId, parseInput } from './inputs.ts'
import { botApiConversation } from './shapes.ts'
import { changeConversationTags, checkTagChanges, conversationTagsOf } from './tags.ts'
import type { ConversationRow } from '../../db/schema.ts'
import type { Queries } from '../../db/store.ts'

/**
 * A conversation the bot owns and participates in; its id is `tags.id` when given. `getOrCreate`
 * answers the existing conversation of that id, `create` refuses it (409).
 */
function makeBotApiConversation(ctx: BotApiContext, input: Json, orGet: boolean) {
  const { tags } = parseInput(botApiInputs.createConversation, input)
  const chosen = chosenId(tags, 'conversation id')
  return ctx.store.write(async (q, after) => {
    if (chosen !== undefined) {
      const existing = await q.conversations.find(ctx.integration.id, chosen)
      if (existing && orGet) return { conversation: await withTags(ctx, q, existing) }
      if (existing) throw alreadyExists('Conversation', chosen)
    }
    const at = now()
    const row = { integrationId: ctx.integration.id, id: chosen ?? newId(), ownerId: ctx.bot.id, createdAt: at, updatedAt: at, idChosen: false, ...botHandled }
    const inserted = await q.conversations.insert(row)
    if (!inserted) throw alreadyExists('Conversation', row.id)
    await joinConversation(asChat(ctx), q, after, row.id, ctx.bot.id)
    return { conversation: botApiConversation(inserted, ctx.bot.id) }
  })
}

export const createBotApiConversation = (ctx: BotApiContext, input: Json) => makeBotApiConversation(ctx, input, false)
export const getOrCreateBotApiConversation = (ctx: BotApiContext, input: Json) => makeBotApiConversation(ctx, input, true)

/** A conversation as the bot API answers it, with the tags the bot set on it. */
async function withTags(ctx: BotApiContext, q: Queries, row: ConversationRow): Promise<Json> {
  const tags = (await conversationTagsOf(q, ctx.integration.id, [row.id])).get(row.id)
  return botApiConversation(row, ctx.bot.id, tags)
}

export function getBotApiConversation(ctx: BotApiContext, input: Json) {
  const { id } = parseInput(botApiInputs.getConversation, input)
  return ctx.store.read(async (q) => ({ conversation: await withTags(ctx, q, await findConversation(ctx, q, id)) }))
}

const conversationsSort = 'conversations'

/** The conversations the bot participates in (it joins one when it first posts in it), newest first, 20 a page. */
export function listBotApiConversations(ctx: BotApiContext, input: Json) {
  const { nextToken } = parseInput(botApiInputs.listConversations, input)
  return ctx.store.read(async (q) => {
    const rows = await q.conversations.pageOfParticipant(ctx.integration.id, ctx.bot.id, botApiWindow(conversationsSort, nextToken))
    const { page, meta } = botApiPage(conversationsSort, rows, (c) => [c.createdAt, c.id])
    const tags = await conversationTagsOf(
      q,
      ctx.integration.id,
      page.map((c) => c.id),
    )
    return { conversations: page.map((c) => botApiConversation(c, ctx.bot.id, tags.get(c.id))), meta }
  })
}

/**
 * updateConversation: the tags a bot sets are stored (a null or empty value removes one; the chat
 * integration's own, `chat:owner` and `chat:fid`, say who made it and are not the bot's to set);
 * properties and a current task are taken and not kept.
 */
export function updateBotApiConversation(ctx: BotApiContext, input: Json) {
  const { id, tags } = parseInput(botApiInputs.updateConversation, input)
  const changes = checkTagChanges(tags ?? {})
  if (changes.length === 0) return ctx.store.read(async (q) => ({ conversation: await withTags(ctx, q, await findConversation(ctx, q, id)) }))
  return ctx.store.write(async (q) => {
    const row = await findConversation(ctx, q, id)
    const kept = await changeConversationTags(q, ctx.integration.id, row.id, changes)
    return { conversation: botApiConversation(row, ctx.bot.id, kept) }
  })
}

/**
 * deleteConversation: the conversation goes with all it holds, as when its owner deletes it through
 * the Chat API (eraseConversation): its listeners end, its files' bytes go.
 */
export function deleteBotApiConversation(ctx: BotApiContext, input: Json) {
  const { id } = parseInput(botApiInputs.deleteConversation, input)
  return ctx.store.write(async (q, after) => {
    await findConversation(ctx, q, id)
    await eraseConversation(ctx, q, after, ctx.integration, id)
    return {}
  })
}
