import { invalidPayload, notFound } from '../errors.ts'
import { checkEvent, postEvent } from '../events.ts'
import { joinConversation } from '../participants.ts'
import { type BotApiContext, asChat, findConversation, findUser } from './context.ts'
import { type Json, botApiInputs } from '../../contracts/bot-api-inputs.ts'
import { parseInput } from './inputs.ts'
import { botApiPage, botApiWindow } from './pages.ts'
import { botApiEvent } from './shapes.ts'

/** A custom event of the bot (or of a participating user): its payload carries its `type`, as the Chat API's do. */
export function createBotApiEvent(ctx: BotApiContext, input: Json) {
  const { type, payload: fields, schedule, conversationId, userId = ctx.bot.id } = parseInput(botApiInputs.createEvent, input)
  if (schedule !== undefined) throw invalidPayload('scheduled events are not supported')
  const event = checkEvent({ conversationId, payload: { type, ...fields } })
  return ctx.store.write(async (q, after) => {
    await findConversation(ctx, q, conversationId)
    const author = await findUser(ctx, q, userId)
    if (author.id === ctx.bot.id) await joinConversation(asChat(ctx), q, after, conversationId, author.id)
    return { event: botApiEvent(await postEvent(asChat(ctx, author.id), q, after, event), ctx.bot.id) }
  })
}

export function getBotApiEvent(ctx: BotApiContext, input: Json) {
  const { id } = parseInput(botApiInputs.getEvent, input)
  return ctx.store.read(async (q) => {
    const row = await q.events.find(ctx.integration.id, id)
    if (!row) throw notFound('Event', id)
    return { event: botApiEvent(row, ctx.bot.id) }
  })
}

const eventsSort = 'events'

/**
 * listEvents: a conversation's custom events (`conversationId` is required: events are kept a
 * conversation at a time), newest first, 20 a page. `userId` and `type` keep those that match on
 * the page read; `status` (every event is `processed`), `messageId` and `workflowId` (none has one)
 * likewise.
 */
export function listBotApiEvents(ctx: BotApiContext, input: Json) {
  const { conversationId, nextToken, userId, type, status, messageId, workflowId } = parseInput(botApiInputs.listEvents, input)
  return ctx.store.read(async (q) => {
    const conversation = await findConversation(ctx, q, conversationId)
    const rows = await q.events.page(ctx.integration.id, conversation.id, botApiWindow(eventsSort, nextToken))
    const { page, meta } = botApiPage(eventsSort, rows, (e) => [e.createdAt, e.id])
    const none = messageId !== undefined || workflowId !== undefined || (status !== undefined && status !== 'processed')
    const events = none
      ? []
      : page
          .filter((row) => userId === undefined || row.userId === userId)
          .map((row) => botApiEvent(row, ctx.bot.id))
          .filter((event) => type === undefined || event.type === type)
    return { events, meta }
  })
}
