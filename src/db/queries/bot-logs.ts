import { and, eq, gte, lte } from 'drizzle-orm'
import { keyset, limitOf, query, rowValues, type Run, windowValues, type WindowValues } from '../query.ts'
import type { BotLogRow } from '../schema.ts'
import type { BotLogFilter, BotLogQueries } from '../store.ts'

const insert = query(({ db, t: { botLogs } }, row: BotLogRow) => db.insert(botLogs).values(rowValues(botLogs, row)))

type Page = { botId: string } & BotLogFilter & WindowValues

/** A page of a bot's logs, newest first; a filter left unset is no condition (one statement per set of filters). */
const page = query(
  ({ db, t: { botLogs } }, v: Page, key) => {
    const window = keyset([botLogs.timestamp, botLogs.id], 'desc', v, Number(String(key).split(':')[0]))
    return db
      .select()
      .from(botLogs)
      .where(
        and(
          eq(botLogs.botId, v.botId),
          gte(botLogs.timestamp, v.timeStart),
          v.timeEnd === undefined ? undefined : lte(botLogs.timestamp, v.timeEnd),
          v.conversationId === undefined ? undefined : eq(botLogs.conversationId, v.conversationId),
          v.userId === undefined ? undefined : eq(botLogs.userId, v.userId),
          v.level === undefined ? undefined : eq(botLogs.level, v.level as BotLogRow['level']),
          window.where,
        ),
      )
      .orderBy(...window.orderBy)
      .limit(limitOf(v.limit))
  },
  (v) => `${v.shape}:${[v.timeEnd, v.conversationId, v.userId, v.level].map((filter) => (filter === undefined ? 0 : 1)).join('')}`,
)

export const botLogQueries = (run: Run): BotLogQueries => ({
  insert: (row) => run.run(insert, row),
  page: (botId, filter, window) => run.all(page, { botId, ...filter, ...windowValues(window) }),
})
