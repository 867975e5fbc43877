import { asc, lt, sql } from 'drizzle-orm'
import { limitOf, query, type Run } from '../query.ts'
import type { PrunedTable, RetentionQueries } from '../store.ts'

/*
 * Retention's deletions, a batch at a time: the oldest rows first, through the index on their age,
 * each batch small enough that the writes queued behind it wait for it no more than for any other unit.
 */

type Batch = { before: string; limit: number }

const messages = query(({ db, t: { messages: m } }, v: Batch) => {
  const oldest = db.select({ integrationId: m.integrationId, id: m.id }).from(m).where(lt(m.createdAt, v.before)).orderBy(asc(m.createdAt)).limit(limitOf(v.limit))
  return db.delete(m).where(sql`(${m.integrationId}, ${m.id}) in (${oldest})`).returning({ id: m.id })
})

const events = query(({ db, t: { events: e } }, v: Batch) => {
  const oldest = db.select({ integrationId: e.integrationId, id: e.id }).from(e).where(lt(e.createdAt, v.before)).orderBy(asc(e.createdAt)).limit(limitOf(v.limit))
  return db.delete(e).where(sql`(${e.integrationId}, ${e.id}) in (${oldest})`).returning({ id: e.id })
})

const botEvents = query(({ db, t: { botEvents: b } }, v: Batch) => {
  const oldest = db.select({ id: b.id }).from(b).where(lt(b.createdAt, v.before)).orderBy(asc(b.createdAt)).limit(limitOf(v.limit))
  return db.delete(b).where(sql`${b.id} in (${oldest})`).returning({ id: b.id })
})

const botLogs = query(({ db, t: { botLogs: l } }, v: Batch) => {
  const oldest = db.select({ id: l.id }).from(l).where(lt(l.timestamp, v.before)).orderBy(asc(l.timestamp)).limit(limitOf(v.limit))
  return db.delete(l).where(sql`${l.id} in (${oldest})`).returning({ id: l.id })
})

const batches: Record<PrunedTable, typeof messages> = { messages, events, botEvents, botLogs }

export const retentionQueries = (run: Run): RetentionQueries => ({
  prune: async (table, before, limit) => (await run.all(batches[table], { before, limit })).length,
})
