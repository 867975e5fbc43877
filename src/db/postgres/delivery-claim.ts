import { and, eq, gt, lte, sql, type SQL } from 'drizzle-orm'
import type { PgTable } from 'drizzle-orm/pg-core'
import { deliveryOn, dueDeliveries } from '../queries/bot-deliveries.ts'
import type { EngineDeliveries } from '../queries/index.ts'
import type { On, Run } from '../query.ts'
import type { DueDelivery } from '../store.ts'
import type { PgDb } from './run.ts'
import { botDeliveryHeads, leasedUntil } from './schema.ts'

/*
 * The outbox's due deliveries on PostgreSQL, read from bot_delivery_heads: one row per conversation
 * with deliveries queued, its oldest (schema.ts, kept by the triggers of drizzle/postgres/0007). A
 * conversation's order is the table's shape, not a search: the claim walks the heads' `due_at` index
 * and locks the rows it takes (FOR UPDATE SKIP LOCKED: another instance's claim under way is
 * skipped, never waited for), so it reads O(limit) rows whatever the backlog behind them. The lease
 * (until `leaseUntil`) keeps two instances from holding a delivery at once; another instance may
 * take it once the lease has run out (its holder died), or never while its holder renews it.
 */

/** A table as PostgreSQL's own types see it, for what only PostgreSQL has (the lease). */
const own = (table: object) => table as PgTable

/** The deliveries the storage API's `due`, `claim`, `following`, `claimFollowing`, `followingRun`, `nextDueAfter` and `renew` find, and `removeAll` removes, on PostgreSQL. */
export function postgresDeliveries(run: Run, pg: PgDb): EngineDeliveries {
  const { on } = run
  const { botDeliveries, bots } = on.t
  const h = botDeliveryHeads

  /** Up to `limit` heads due at `now`, the most overdue first; `locked`: each locked, those locked elsewhere skipped. */
  const dueHeads = (now: string, limit: number, locked: boolean): SQL => sql`
    select ${h.seq} from ${h} join ${bots} on ${bots.id} = ${h.botId}
    where ${h.dueAt} <= ${now} and ${deliveryOn(on.t)}
    order by ${h.dueAt}, ${h.seq} limit ${limit}${locked ? sql` for update of ${h} skip locked` : sql``}`
  const inTurn = sql`${botDeliveries.nextAttemptAt}, ${botDeliveries.seq}`
  /** The seq of the conversation's delivery right after `afterSeq`. */
  const nextSeq = (integrationId: string, conversationId: string, afterSeq: number): SQL =>
    sql`select min(next.seq) from ${botDeliveries} as next where next.integration_id = ${integrationId}
      and next.conversation_id = ${conversationId} and next.seq > ${afterSeq}`

  /** The deliveries as claims and runs read them: with whether one is queued behind each (DueDelivery.followed). */
  const followed = sql<boolean>`exists (select 1 from ${botDeliveries} as behind where behind.integration_id = ${botDeliveries.integrationId}
    and behind.conversation_id = ${botDeliveries.conversationId} and behind.seq > ${botDeliveries.seq})`
  const withFollowed = (on: On) => dueDeliveries(on, { followed })

  return {
    due: async (now, limit) =>
      (await dueDeliveries(on)
        .where(sql`${botDeliveries.seq} in (${dueHeads(now, limit, false)})`)
        .orderBy(inTurn)) as DueDelivery[],
    claim: async (now, limit, leaseUntil) => {
      // One statement: the lease is set on the deliveries (their update trigger carries it to their
      // heads), and the select reads them as they were before it (one snapshot), lease aside.
      const leased = pg.$with('leased', { seq: sql<number>`seq` }).as(
        sql`update ${botDeliveries} set leased_until = ${leaseUntil} where ${botDeliveries.seq} = any(array(${dueHeads(now, limit, true)})) returning ${botDeliveries.seq}`,
      )
      const withLeased = { db: pg.with(leased) as unknown as On['db'], t: on.t }
      return (await withFollowed(withLeased)
        .where(sql`${botDeliveries.seq} in (select seq from leased)`)
        .orderBy(inTurn)) as DueDelivery[]
    },
    following: async (integrationId, conversationId, afterSeq, now) =>
      (
        (await dueDeliveries(on).where(
          and(
            sql`${botDeliveries.seq} = (${nextSeq(integrationId, conversationId, afterSeq)})`,
            lte(botDeliveries.nextAttemptAt, now),
            deliveryOn(on.t),
          ),
        )) as DueDelivery[]
      )[0],
    claimFollowing: async (integrationId, conversationId, afterSeq, now, leaseUntil) => {
      // As `claim`, one statement, sent in the unit that settles the delivery before it: that one is
      // the conversation's head until the unit removes it, and the head the removal makes carries
      // this lease, so that no other instance's claim walks to it; one held by another instance
      // before is passed over until its lease has run out.
      const leased = pg.$with('leased', { seq: sql<number>`seq` }).as(
        sql`update ${botDeliveries} set leased_until = ${leaseUntil}
          where ${botDeliveries.seq} = (${nextSeq(integrationId, conversationId, afterSeq)})
            and ${botDeliveries.nextAttemptAt} <= ${now} and (${leasedUntil} is null or ${leasedUntil} <= ${now})
            and ${botDeliveries.botId} in (select ${bots.id} from ${bots} where ${deliveryOn(on.t)})
          returning ${botDeliveries.seq}`,
      )
      const withLeased = { db: pg.with(leased) as unknown as On['db'], t: on.t }
      return ((await withFollowed(withLeased).where(sql`${botDeliveries.seq} in (select seq from leased)`)) as DueDelivery[])[0]
    },
    followingRun: async (integrationId, conversationId, afterSeq, now, limit) => {
      // In the conversation's order, due or not: the first one not due ends the run (never skipped).
      const run = (await withFollowed(on)
        .where(
          and(
            eq(botDeliveries.integrationId, integrationId),
            eq(botDeliveries.conversationId, conversationId),
            gt(botDeliveries.seq, afterSeq),
            deliveryOn(on.t),
          ),
        )
        .orderBy(botDeliveries.seq)
        .limit(limit)) as DueDelivery[]
      const notDue = run.findIndex((due) => due.delivery.nextAttemptAt > now)
      return notDue < 0 ? run : run.slice(0, notDue)
    },
    nextDueAfter: async (now) => {
      const { rows } = await pg.execute<{ at: string }>(sql`
        select ${h.dueAt} as at from ${h} join ${bots} on ${bots.id} = ${h.botId}
        where ${h.dueAt} > ${now} and ${deliveryOn(on.t)} order by ${h.dueAt} limit 1`)
      return rows[0]?.at
    },
    removeAll: async (ids) =>
      (
        await pg
          .delete(own(botDeliveries))
          .where(sql`${botDeliveries.id} = any(${sql.param([...ids])}::text[])`)
          .returning({ id: sql<string>`${botDeliveries.id}` })
      ).length,
    renew: async (id, heldUntil, leaseUntil) =>
      (
        await pg
          .update(own(botDeliveries))
          .set({ leasedUntil: leaseUntil })
          .where(and(eq(botDeliveries.id, id), eq(leasedUntil, heldUntil)))
          .returning({ id: sql<string>`${botDeliveries.id}` })
      ).length > 0,
  }
}
