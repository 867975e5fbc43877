import type { BotEventRow, MessageRow } from '../db/schema.ts'
import type { After, Queries } from '../db/store.ts'
import type { BotEvent } from './bot-event.ts'
import type { ChatContext } from './context.ts'

/** An incoming event for the bot of a chat integration. */
export interface BotDelivery {
  integrationId: string
  event: BotEvent
  /** The user message, for a `message` event (its metadata is not part of the event). */
  message?: MessageRow
}

/** The bot runtime of this process: told of each delivery once the unit that recorded it has committed. */
export interface BotInbox {
  deliver(delivery: BotDelivery): void
}

export const botEventRow = (integrationId: string, event: BotEvent): BotEventRow => ({
  id: event.id,
  botId: event.botId,
  integrationId,
  conversationId: event.conversationId ?? '',
  userId: event.userId ?? '',
  messageId: event.messageId ?? null,
  type: event.type,
  direction: event.direction,
  payload: event.payload,
  preview: event.preview,
  createdAt: event.createdOn.toISOString(),
})

/**
 * Records an incoming event in the unit of work of the user's write that causes it, so that a
 * message answered 200 has its bot event stored with it; the runtime hears of it after the commit.
 */
export async function recordIncomingEvent(
  ctx: ChatContext,
  q: Queries,
  after: After,
  event: BotEvent,
  message?: MessageRow,
): Promise<void> {
  await q.botEvents.insert(botEventRow(ctx.integration.id, event))
  after(() => ctx.bots.deliver({ integrationId: ctx.integration.id, event, message }))
}
