import { and, eq } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { type BotEventRow, botEvents, bots, type BotRow, type ChatIntegrationRow, chatIntegrations } from '../db/schema.ts'
import type { BotEvent } from './bot-event.ts'
import type { AdminContext, ChatContext } from './context.ts'
import { notFound } from './errors.ts'
import { type Cursored, keyset, type PageWindow, type SortDirection, withCursors } from './paging.ts'
import type { SignalPublisher } from './signals.ts'

export type BotSortField = 'createdAt' | 'updatedAt'

export interface BotSort {
  field: BotSortField
  direction: SortDirection
}

export function listBots({
  ctx,
  sort,
  window,
}: {
  ctx: AdminContext
  sort: BotSort
  window: PageWindow
}): Cursored<BotRow>[] {
  const tag = `bots:${sort.field}:${sort.direction}`
  const column = sort.field === 'createdAt' ? bots.createdAt : bots.updatedAt
  const page = keyset(tag, [column, bots.id], window, sort.direction)
  const rows = ctx.db
    .select()
    .from(bots)
    .where(and(eq(bots.workspaceId, ctx.workspaceId), page.where))
    .orderBy(...page.orderBy)
    .limit(window.limit)
    .all()
  return withCursors(tag, rows, (b) => [b[sort.field], b.id])
}

export function getBot({ ctx, id }: { ctx: AdminContext; id: string }): BotRow {
  const row = ctx.db
    .select()
    .from(bots)
    .where(and(eq(bots.workspaceId, ctx.workspaceId), eq(bots.id, id)))
    .get()
  if (!row) throw notFound('Bot', id)
  return row
}

/** The bot answering a chat integration, with the integration, or undefined if it is gone. */
export function findBotOfIntegration(db: Db, integrationId: string) {
  return db
    .select({ bot: bots, integration: chatIntegrations })
    .from(chatIntegrations)
    .innerJoin(bots, eq(bots.id, chatIntegrations.botId))
    .where(eq(chatIntegrations.id, integrationId))
    .get()
}

/** The chat context a bot acts in: its own user (id = the bot id) is the caller. */
export const botChatContext = (
  db: Db,
  integration: ChatIntegrationRow,
  signals: SignalPublisher,
): ChatContext => ({ db, integration, callerId: integration.botId, signals })

export function recordBotEvent(
  db: Db,
  integrationId: string,
  event: BotEvent,
): BotEventRow {
  const row: BotEventRow = {
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
  }
  db.insert(botEvents).values(row).run()
  return row
}

export function listBotEvents(db: Db, integrationId: string, conversationId: string): BotEventRow[] {
  return db
    .select()
    .from(botEvents)
    .where(and(eq(botEvents.integrationId, integrationId), eq(botEvents.conversationId, conversationId)))
    .orderBy(botEvents.createdAt, botEvents.id)
    .all()
}
