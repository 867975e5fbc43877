import type { MessageRow } from '../../db/schema.ts'
import type { Queries } from '../../db/store.ts'
import { alreadyExists, invalidPayload, notFound } from '../errors.ts'
import { tell } from '../integration-webhooks.ts'
import { checkMessage, postMessage } from '../messages.ts'
import { botApiPage, botApiWindow } from './pages.ts'
import { joinConversation } from '../participants.ts'
import { type BotApiContext, asChat, findConversation, findUser } from './context.ts'
import { type Json, botApiInputs } from '../../contracts/bot-api-inputs.ts'
import { chosenId, parseInput } from './inputs.ts'
import { botApiMessage } from './shapes.ts'
import { toChatMessage } from './chat-messages.ts'

async function findMessage(ctx: BotApiContext, q: Queries, id: string): Promise<MessageRow> {
  const row = await q.messages.find(ctx.integration.id, id)
  if (!row) throw notFound('Message', id)
  return row
}

/**
 * The SDK sends a message's `type` beside its `payload` (`{type: "text", payload: {text, metadata?}}`):
 * it is stored as the Chat API message the chat integration makes of it (`{type: "text", text}`
 * and its metadata, chat-messages.ts), so chat clients see the same message. Its author is the
 * bot, or a user of the integration who participates.
 */
export function createBotApiMessage(ctx: BotApiContext, input: Json) {
  const { type, payload, conversationId, userId, schedule } = parseInput(botApiInputs.createMessage, input)
  if (schedule !== undefined) throw invalidPayload('scheduled messages are not supported')
  const message = checkMessage({ conversationId, ...toChatMessage({ type, payload }) })
  return ctx.store.write(async (q, after) => {
    await findConversation(ctx, q, conversationId)
    const author = await findUser(ctx, q, userId)
    if (author.id === ctx.bot.id) await joinConversation(asChat(ctx), q, after, conversationId, author.id)
    const row = await postMessage(asChat(ctx, author.id), q, after, message)
    return { message: botApiMessage(row, ctx.bot.id) }
  })
}

/**
 * getOrCreateMessage: the message `tags.id` names (its id, as `tags.id` chooses a conversation's or a
 * user's), when it exists in that conversation; else createMessage's, under that id. Confab keeps no
 * other message tags, so that without `tags.id` every call creates. An id of a message elsewhere is 409.
 */
export function getOrCreateBotApiMessage(ctx: BotApiContext, input: Json) {
  const { type, payload, conversationId, userId, schedule, tags } = parseInput(botApiInputs.getOrCreateMessage, input)
  if (schedule !== undefined) throw invalidPayload('scheduled messages are not supported')
  const chosen = chosenId(tags, 'message id')
  const message = checkMessage({ conversationId, ...toChatMessage({ type, payload }) })
  return ctx.store.write(async (q, after) => {
    await findConversation(ctx, q, conversationId)
    if (chosen !== undefined) {
      const existing = await q.messages.find(ctx.integration.id, chosen)
      if (existing && existing.conversationId === conversationId) return { message: botApiMessage(existing, ctx.bot.id), meta: { created: false } }
      if (existing) throw alreadyExists('Message', chosen)
    }
    const author = await findUser(ctx, q, userId)
    if (author.id === ctx.bot.id) await joinConversation(asChat(ctx), q, after, conversationId, author.id)
    const row = await postMessage(asChat(ctx, author.id), q, after, { ...message, ...(chosen !== undefined ? { id: chosen } : {}) })
    return { message: botApiMessage(row, ctx.bot.id), meta: { created: true } }
  })
}

export function getBotApiMessage(ctx: BotApiContext, input: Json) {
  const { id } = parseInput(botApiInputs.getMessage, input)
  return ctx.store.read(async (q) => ({ message: botApiMessage(await findMessage(ctx, q, id), ctx.bot.id) }))
}

/**
 * Replaces a message's payload, its metadata included (its type is kept: the SDK sends the payload
 * without it); tags are not stored. Listeners are told (`message_updated`, as when its author
 * updates it through the Chat API): a bot that writes its answer by editing it in place is seen
 * doing so.
 */
export function updateBotApiMessage(ctx: BotApiContext, input: Json) {
  const { id, payload: sent } = parseInput(botApiInputs.updateMessage, input)
  return ctx.store.write(async (q, after) => {
    const row = await findMessage(ctx, q, id)
    if (sent === undefined) return { message: botApiMessage(row, ctx.bot.id) }
    const { payload, metadata } = checkMessage({
      conversationId: row.conversationId,
      ...toChatMessage({ type: String(row.payload.type), payload: sent }),
    })
    const changed = await q.messages.update(ctx.integration.id, row.id, { payload, metadata })
    if (!changed) throw notFound('Message', id)
    const isBot = changed.userId === ctx.bot.id
    await tell(ctx, q, after, { type: 'message_updated', conversationId: changed.conversationId, message: changed, isBot })
    return { message: botApiMessage(changed, ctx.bot.id) }
  })
}

export function deleteBotApiMessage(ctx: BotApiContext, input: Json) {
  const { id } = parseInput(botApiInputs.deleteMessage, input)
  return ctx.store.write(async (q, after) => {
    const row = await findMessage(ctx, q, id)
    await q.messages.delete(ctx.integration.id, row.id)
    await tell(ctx, q, after, { type: 'message_deleted', conversationId: row.conversationId, message: row })
    return {}
  })
}

const messagesSort = 'messages'

/** A conversation's messages, newest first, 20 a page. */
export function listBotApiMessages(ctx: BotApiContext, input: Json) {
  const { conversationId, nextToken } = parseInput(botApiInputs.listMessages, input)
  return ctx.store.read(async (q) => {
    const conversation = await findConversation(ctx, q, conversationId)
    const window = botApiWindow(messagesSort, nextToken)
    const rows = (await q.messages.pages(ctx.integration.id, [conversation.id], window)).get(conversation.id) ?? []
    const { page, meta } = botApiPage(messagesSort, rows, (m) => [m.createdAt, m.id])
    return { messages: page.map((m) => botApiMessage(m, ctx.bot.id)), meta }
  })
}
