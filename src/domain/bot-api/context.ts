import type { BotRow, ChatIntegrationRow, ConversationRow, UserRow } from '../../db/schema.ts'
import type { Queries, Store } from '../../db/store.ts'
import type { BotInbox } from '../bots/delivery/inbox.ts'
import { botChatContext } from '../bots/chat/as-bot.ts'
import type { ChatContext } from '../context.ts'
import { notFound } from '../errors.ts'
import type { MessageStreams } from '../message-streams.ts'
import type { SignalPublisher } from '../signals.ts'

/**
 * What a bot API verb runs with: the bot a bot API key opened, acting within its own chat
 * integration (another integration's ids are not found). The bot API is what an
 * @botpress/sdk bot's client calls back while it handles an event.
 */
export interface BotApiContext {
  store: Store
  bot: BotRow
  integration: ChatIntegrationRow
  signals: SignalPublisher
  bots: BotInbox
  /** The message streams bots publish (chat:publishMessageStream), as this instance knows them. */
  streams: MessageStreams
}

/** The Chat API context the bot API verbs share rules with, acting as `callerId` (the bot by default). */
export const asChat = (ctx: BotApiContext, callerId = ctx.bot.id): ChatContext => ({
  ...botChatContext(ctx.store, ctx.integration, ctx.signals, ctx.bots),
  callerId,
})

/** A conversation of the bot's integration, else 404. */
export async function findConversation(ctx: BotApiContext, q: Queries, id: string): Promise<ConversationRow> {
  const row = await q.conversations.find(ctx.integration.id, id)
  if (!row) throw notFound('Conversation', id)
  return row
}

/** A user of the bot's integration, else 404. */
export async function findUser(ctx: BotApiContext, q: Queries, id: string): Promise<UserRow> {
  const row = await q.users.find(ctx.integration.id, id)
  if (!row) throw notFound('User', id)
  return row
}
