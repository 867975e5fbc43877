import { and, eq } from 'drizzle-orm'
import { byShape, keyset, limitOf, query, rowValues, type Run, type WindowValues, windowValues } from '../query.ts'
import type { BotEventRow, EventRow } from '../schema.ts'
import type { BotEventQueries, EventQueries } from '../store.ts'

const insert = query(({ db, t: { events } }, row: EventRow) => db.insert(events).values(rowValues(events, row)))

const find = query(({ db, t: { events } }, v: { integrationId: string; id: string }) =>
  db
    .select()
    .from(events)
    .where(and(eq(events.integrationId, v.integrationId), eq(events.id, v.id))),
)

const page = query(({ db, t: { events } }, v: { integrationId: string; conversationId: string } & WindowValues, key) => {
  const window = keyset([events.createdAt, events.id], 'desc', v, key)
  return db
    .select()
    .from(events)
    .where(and(eq(events.integrationId, v.integrationId), eq(events.conversationId, v.conversationId), window.where))
    .orderBy(...window.orderBy)
    .limit(limitOf(v.limit))
}, byShape)

export const eventQueries = (run: Run): EventQueries => ({
  insert: (row) => run.run(insert, row),
  find: (integrationId, id) => run.one(find, { integrationId, id }),
  page: (integrationId, conversationId, window) => run.all(page, { integrationId, conversationId, ...windowValues(window) }),
})

const insertBotEvent = query(({ db, t: { botEvents } }, row: BotEventRow) => db.insert(botEvents).values(rowValues(botEvents, row)))

/** What bots saw and did (their incoming and outgoing events). */
export const botEventQueries = (run: Run): BotEventQueries => ({
  insert: (row) => run.run(insertBotEvent, row),
})
