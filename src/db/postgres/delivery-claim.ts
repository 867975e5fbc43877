import { and, asc, eq, getTableColumns, inArray, type SQL, sql } from 'drizzle-orm'
import type {} from '../lease.ts'
import type { BotDeliveryQueries, DueDelivery, Queries } from '../store.ts'
import type { PgDb } from './queries.ts'
import { botDeliveries, bots, chatIntegrations, messages } from './schema.ts'

/*
 * The outbox's due deliveries on PostgreSQL, read from bot_delivery_heads: one row per conversation
 * with deliveries queued, the oldest (schema.ts, kept by the triggers of drizzle/postgres/0004). A
 * conversation's order is the table's shape, not a search: the claim walks the heads' `due_at` index
 * and locks the rows it takes (FOR UPDATE SKIP LOCKED: another instance's claim under way is
 * skipped, never waited for), so it reads O(limit) rows whatever the backlog behind them, where an
 * anti-join on earlier deliveries read every due one. Lease and attempt are one statement.
 */

/** The delivery columns the storage API knows (without the lease). */
const { leasedUntil: _lease, ...deliveryColumns } = getTableColumns(botDeliveries)

/** The head's bot has delivery on (its url did not answer 410 Gone, or changed since). */
const deliveryOn = sql`(bots.gone_url is null or bots.url is null or bots.url <> bots.gone_url)`

/** Up to `limit` heads due at `now`, the most overdue first; `locked`: each locked, those locked elsewhere skipped. */
const dueHeads = (now: string, limit: number, locked: boolean): SQL => sql`
  select h.seq from bot_delivery_heads h join bots on bots.id = h.bot_id
  where h.due_at <= ${now} and ${deliveryOn}
  order by h.due_at, h.seq limit ${limit}${locked ? sql` for update of h skip locked` : sql``}`

/** The claim (and its renewal), due and next-due queries of the storage API, on the heads of the outbox. */
export function headsOfOutbox(db: PgDb): Pick<BotDeliveryQueries, 'due' | 'claim' | 'nextDueAfter' | 'renew'> {
  /** The deliveries of `seqs` (a subquery of seq) with what an attempt needs: see DueDelivery. */
  const dueDeliveries = (builder: PgDb, seqs: SQL) =>
    builder
      .select({ delivery: deliveryColumns, bot: bots, integration: chatIntegrations, message: messages })
      .from(botDeliveries)
      .innerJoin(bots, eq(bots.id, botDeliveries.botId))
      .innerJoin(chatIntegrations, eq(chatIntegrations.id, botDeliveries.integrationId))
      .leftJoin(messages, and(eq(messages.integrationId, botDeliveries.integrationId), eq(messages.id, botDeliveries.messageId)))
      .where(inArray(botDeliveries.seq, seqs))
      .orderBy(asc(botDeliveries.nextAttemptAt), asc(botDeliveries.seq)) as unknown as Promise<DueDelivery[]>

  return {
    due: (now, limit) => dueDeliveries(db, sql`(${dueHeads(now, limit, false)})`),
    claim: (now, limit, leaseUntil) => {
      // The lease is set on the delivery; the update trigger carries it to its head. The select
      // below reads the deliveries as they were before the update (one snapshot), lease aside.
      const leased = db.$with('leased', { seq: sql<number>`seq` }).as(
        sql`update bot_deliveries set leased_until = ${leaseUntil} where seq = any(array(${dueHeads(now, limit, true)})) returning seq`,
      )
      return dueDeliveries(db.with(leased) as unknown as PgDb, sql`(select seq from leased)`)
    },
    renew: async (id, heldUntil, leaseUntil) =>
      (
        await db
          .update(botDeliveries)
          .set({ leasedUntil: leaseUntil })
          .where(and(eq(botDeliveries.id, id), eq(botDeliveries.leasedUntil, heldUntil)))
          .returning({ id: botDeliveries.id })
      ).length > 0,
    nextDueAfter: async (now) => {
      const { rows } = await db.execute<{ at: string }>(sql`
        select h.due_at as at from bot_delivery_heads h join bots on bots.id = h.bot_id
        where h.due_at > ${now} and ${deliveryOn} order by h.due_at limit 1`)
      return rows[0]?.at
    },
  }
}

/** PostgreSQL's named queries with the outbox read from its heads. */
export const withHeadsOfOutbox = (queries: Queries, db: PgDb): Queries => ({
  ...queries,
  botDeliveries: { ...queries.botDeliveries, ...headsOfOutbox(db) },
})
