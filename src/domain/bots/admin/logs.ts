import { createHash } from 'node:crypto'
import type { BotLogRow } from '../../../db/schema.ts'
import type { BotLogFilter, Queries } from '../../../db/store.ts'
import { now } from '../../clock.ts'
import type { AdminContext } from '../../context.ts'
import { invalidPayload, notFound } from '../../errors.ts'
import { newId } from '../../ids.ts'
import { type Cursored, keysetWindow, type PageWindow, withCursors } from '../../paging.ts'

export const botLogLevels = ['debug', 'info', 'warn', 'error'] as const
export type BotLogLevel = (typeof botLogLevels)[number]

export interface BotLogEntry {
  botId: string
  level: BotLogLevel
  message: string
  conversationId?: string
  userId?: string
  /** ISO 8601; now when absent. */
  timestamp?: string
}

/**
 * Inside a unit of work: one line of the bot's log, as getBotLogs shows it. Deliveries call this in
 * the unit that records each attempt, so a log line exists exactly when the attempt's outcome does.
 */
export async function recordBotLog(q: Queries, entry: BotLogEntry): Promise<void> {
  await q.botLogs.insert({
    id: newId(),
    botId: entry.botId,
    timestamp: entry.timestamp ?? now(),
    level: entry.level,
    message: entry.message,
    conversationId: entry.conversationId ?? null,
    userId: entry.userId ?? null,
  })
}

export interface BotLogQuery {
  timeStart: string
  timeEnd?: string | null
  conversationId?: string | null
  userId?: string | null
  level?: string | null
}

const isoTime = (value: string, name: string): string => {
  const time = Date.parse(value)
  if (Number.isNaN(time)) throw invalidPayload(`${name} must be an ISO 8601 date-time, got ${JSON.stringify(value)}`)
  return new Date(time).toISOString()
}

function filterOf(query: BotLogQuery): BotLogFilter {
  if (query.level != null && !(botLogLevels as readonly string[]).includes(query.level)) {
    throw invalidPayload(`level must be one of ${botLogLevels.join(', ')}, got ${JSON.stringify(query.level)}`)
  }
  return {
    timeStart: isoTime(query.timeStart, 'timeStart'),
    timeEnd: query.timeEnd == null ? undefined : isoTime(query.timeEnd, 'timeEnd'),
    conversationId: query.conversationId ?? undefined,
    userId: query.userId ?? undefined,
    level: query.level ?? undefined,
  }
}

/** A page of the bot's logs in the time range, newest first. 404 for a bot the workspace does not have. */
export function getBotLogs({
  ctx,
  id,
  query,
  window,
}: {
  ctx: AdminContext
  id: string
  query: BotLogQuery
  window: PageWindow
}): Promise<Cursored<BotLogRow>[]> {
  const filter = filterOf(query)
  // The cursor is tagged with the filter: a token is only good for the list that issued it.
  const tag = `botLogs:${createHash('sha256')
    .update(JSON.stringify([id, filter]))
    .digest('base64url')
    .slice(0, 16)}`
  return ctx.store.read(async (q) => {
    if (!(await q.bots.find(ctx.workspaceId, id))) throw notFound('Bot', id)
    const rows = await q.botLogs.page(id, filter, keysetWindow(tag, window))
    return withCursors(tag, rows, (row) => [row.timestamp, row.id])
  })
}
