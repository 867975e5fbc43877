import { and, asc, eq, lt, sql } from 'drizzle-orm'
import { limitOf, type On, query, type Run } from '../query.ts'
import type { PruneCursor, PrunedTable, RetentionQueries } from '../store.ts'

/*
 * Retention's deletions, a batch at a time, each small enough that the writes queued behind it wait
 * for it no more than for any other unit. No index on age alone: each would cost every message, bot
 * event and log line written one more index entry. The rows of a conversation are found through its
 * page index (conversation, then age), a window of conversations at a time, so that a batch seeks at
 * most `limit` conversations and deletes at most `limit` rows; bot logs through their bot's (bot, then
 * time), bots being few.
 */

type Window = { integrationId: string; conversationId: string; limit: number }

/** The conversations of a batch, in key order from the cursor on. */
const conversationWindow = query(({ db, t: { conversations: c } }, v: Window) =>
  db
    .select({ integrationId: c.integrationId, id: c.id })
    .from(c)
    .where(sql`(${c.integrationId}, ${c.id}) >= (${v.integrationId}, ${v.conversationId})`)
    .orderBy(asc(c.integrationId), asc(c.id))
    .limit(limitOf(v.limit)),
)

type Batch = {
  before: string
  limit: number
  fromIntegration: string
  fromConversation: string
  toIntegration: string
  toConversation: string
}

/** The key of a row of `table`, among the old ones of the conversations from..to (their keys, both ends included). */
const oldRowsOf = (
  { db, t: { conversations: c } }: On,
  table: On['t']['messages'] | On['t']['events'] | On['t']['botEvents'] | On['t']['conversationSignals'],
  key: ReturnType<typeof sql>,
  v: Batch,
) =>
  db
    .select({ key })
    .from(c)
    // A cross join, its condition in the where: SQLite then walks the conversations first (its
    // planner may otherwise scan every row of the table for the few conversations of the window).
    .crossJoin(table)
    .where(
      and(
        sql`(${c.integrationId}, ${c.id}) >= (${v.fromIntegration}, ${v.fromConversation}) and (${c.integrationId}, ${c.id}) <= (${v.toIntegration}, ${v.toConversation})`,
        eq(table.integrationId, c.integrationId),
        eq(table.conversationId, c.id),
        lt(table.createdAt, v.before),
      ),
    )
    .limit(limitOf(v.limit))

const messages = query((on, v: Batch) => {
  const m = on.t.messages
  return on.db
    .delete(m)
    .where(sql`(${m.integrationId}, ${m.id}) in (${oldRowsOf(on, m, sql`${m.integrationId}, ${m.id}`, v)})`)
    .returning({ id: m.id })
})

const events = query((on, v: Batch) => {
  const e = on.t.events
  return on.db
    .delete(e)
    .where(sql`(${e.integrationId}, ${e.id}) in (${oldRowsOf(on, e, sql`${e.integrationId}, ${e.id}`, v)})`)
    .returning({ id: e.id })
})

const conversationSignals = query((on, v: Batch) => {
  const s = on.t.conversationSignals
  return on.db
    .delete(s)
    .where(sql`(${s.integrationId}, ${s.id}) in (${oldRowsOf(on, s, sql`${s.integrationId}, ${s.id}`, v)})`)
    .returning({ id: s.id })
})

const botEvents = query((on, v: Batch) => {
  const b = on.t.botEvents
  return on.db
    .delete(b)
    .where(sql`${b.id} in (${oldRowsOf(on, b, sql`${b.id}`, v)})`)
    .returning({ id: b.id })
})

const botLogs = query(({ db, t: { bots: b, botLogs: l } }, v: { before: string; limit: number }) => {
  const oldest = db
    .select({ id: l.id })
    .from(b)
    .crossJoin(l)
    .where(and(eq(l.botId, b.id), lt(l.timestamp, v.before)))
    .limit(limitOf(v.limit))
  return db.delete(l).where(sql`${l.id} in (${oldest})`).returning({ id: l.id })
})

// Files are few (each user's total is capped): found by a scan of their age, without an index of it.
const files = query(({ db, t: { files: f } }, v: { before: string; limit: number }) => {
  const oldest = db.select({ integrationId: f.integrationId, id: f.id }).from(f).where(lt(f.createdAt, v.before)).limit(limitOf(v.limit))
  return db.delete(f).where(sql`(${f.integrationId}, ${f.id}) in (${oldest})`).returning({ id: f.id })
})

const ofConversations: Record<Exclude<PrunedTable, 'botLogs' | 'files'>, typeof messages> = { messages, events, botEvents, conversationSignals }

const first: PruneCursor = { integrationId: '', conversationId: '' }

export const retentionQueries = (run: Run): RetentionQueries => ({
  prune: async (table, before, limit, from = first) => {
    if (table === 'files') {
      const ids = (await run.all(files, { before, limit })).map((row) => row.id)
      return { deleted: ids.length, next: ids.length < limit ? undefined : first, files: ids }
    }
    if (table === 'botLogs') {
      const deleted = (await run.all(botLogs, { before, limit })).length
      return { deleted, next: deleted < limit ? undefined : first }
    }
    const window = await run.all(conversationWindow, { integrationId: from.integrationId, conversationId: from.conversationId, limit: limit + 1 })
    const last = window[Math.min(limit, window.length) - 1]
    if (!last) return { deleted: 0, next: undefined }
    const deleted = (
      await run.all(ofConversations[table], {
        before,
        limit,
        fromIntegration: from.integrationId,
        fromConversation: from.conversationId,
        toIntegration: last.integrationId,
        toConversation: last.id,
      })
    ).length
    // A full batch may have left old rows in its window: the next one looks at it again.
    if (deleted === limit) return { deleted, next: from }
    const after = window[limit]
    return { deleted, next: after && { integrationId: after.integrationId, conversationId: after.id } }
  },
})
