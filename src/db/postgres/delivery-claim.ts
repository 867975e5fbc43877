import { and, eq, gt, lte, sql, type SQL } from 'drizzle-orm'
import type { PgTable } from 'drizzle-orm/pg-core'
import { deliveryOn, dueDeliveries } from '../queries/bot-deliveries.ts'
import type { EngineDeliveries } from '../queries/index.ts'
import { limitOf, type On, query, type Run, writing } from '../query.ts'
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
/** The handle a shape is built on, as PostgreSQL's own types see it (its CTEs). */
const pgOf = (on: On) => on.db as unknown as PgDb

const h = botDeliveryHeads

/*
 * Each a shape (src/db/query.ts): built once with placeholders, then sent with each call's values,
 * where drizzle built these statements anew on every claim, look and removal (most of the delivery
 * worker's CPU when the bot answered each message on its own), each prepared once per connection.
 * (They used to be planned on every call, for generic plans made on tables never analysed; with
 * the tables ANALYZEd, as autovacuum does, the prepared ones took 5.5 / 4.5 / 1.6 ms a claim, look
 * and next claim where planning each call took 9.6 / 15.6 / 6.5 ms: 2026-12-02, 50,000 messages.)
 */

/** Up to `limit` heads due at `now`, the most overdue first; `locked`: each locked, those locked elsewhere skipped. */
const dueHeads = (t: On['t'], now: string, limit: number, locked: boolean): SQL => sql`
  select ${h.seq} from ${h} join ${t.bots} on ${t.bots.id} = ${h.botId}
  where ${h.dueAt} <= ${now} and ${deliveryOn(t)}
  order by ${h.dueAt}, ${h.seq} limit ${limitOf(limit)}${locked ? sql` for update of ${h} skip locked` : sql``}`
const inTurn = ({ botDeliveries }: On['t']) => sql`${botDeliveries.nextAttemptAt}, ${botDeliveries.seq}`
/** The seq of the conversation's delivery right after `afterSeq`. */
const nextSeq = ({ botDeliveries }: On['t'], v: Following): SQL =>
  sql`select min(next.seq) from ${botDeliveries} as next where next.integration_id = ${v.integrationId}
    and next.conversation_id = ${v.conversationId} and next.seq > ${v.afterSeq}`

/** The deliveries as claims read them: with whether one is queued behind each (DueDelivery.followed). */
const withFollowed = (on: On) => {
  const { botDeliveries } = on.t
  const followed = sql<boolean>`exists (select 1 from ${botDeliveries} as behind where behind.integration_id = ${botDeliveries.integrationId}
    and behind.conversation_id = ${botDeliveries.conversationId} and behind.seq > ${botDeliveries.seq})`
  return dueDeliveries(on, { followed })
}

/** `on` with the CTE `leased`: the seqs of the deliveries `update` leases. */
const leasing = (on: On, update: SQL): On => {
  const leased = pgOf(on).$with('leased', { seq: sql<number>`seq` }).as(update)
  return { db: pgOf(on).with(leased) as unknown as On['db'], t: on.t }
}

type Following = { integrationId: string; conversationId: string; afterSeq: number }

const due = query((on, v: { now: string; limit: number }) =>
  dueDeliveries(on)
    .where(sql`${on.t.botDeliveries.seq} in (${dueHeads(on.t, v.now, v.limit, false)})`)
    .orderBy(inTurn(on.t)),
)

// One statement: the lease is set on the deliveries (their update trigger carries it to their
// heads), and the select reads them as they were before it (one snapshot), lease aside.
const claim = writing(
  query((on, v: { now: string; limit: number; leaseUntil: string }) => {
    const { botDeliveries } = on.t
    const leased = sql`update ${botDeliveries} set leased_until = ${v.leaseUntil}
      where ${botDeliveries.seq} = any(array(${dueHeads(on.t, v.now, v.limit, true)})) returning ${botDeliveries.seq}`
    return withFollowed(leasing(on, leased)).where(sql`${botDeliveries.seq} in (select seq from leased)`).orderBy(inTurn(on.t))
  }),
)

const following = query((on, v: Following & { now: string }) =>
  dueDeliveries(on).where(and(sql`${on.t.botDeliveries.seq} = (${nextSeq(on.t, v)})`, lte(on.t.botDeliveries.nextAttemptAt, v.now), deliveryOn(on.t))),
)

// As `claim`, one statement, sent in the unit that settles the delivery before it: that one is
// the conversation's head until the unit removes it, and the head the removal makes carries this
// lease, so that no other instance's claim walks to it; one held by another instance before is
// passed over until its lease has run out.
const claimFollowing = writing(
  query((on, v: Following & { now: string; leaseUntil: string }) => {
    const { botDeliveries, bots } = on.t
    const leased = sql`update ${botDeliveries} set leased_until = ${v.leaseUntil}
      where ${botDeliveries.seq} = (${nextSeq(on.t, v)})
        and ${botDeliveries.nextAttemptAt} <= ${v.now} and (${leasedUntil} is null or ${leasedUntil} <= ${v.now})
        and ${botDeliveries.botId} in (select ${bots.id} from ${bots} where ${deliveryOn(on.t)})
      returning ${botDeliveries.seq}`
    return withFollowed(leasing(on, leased)).where(sql`${botDeliveries.seq} in (select seq from leased)`)
  }),
)

const nextDueAfter = query((on, v: { now: string }) =>
  pgOf(on)
    .select({ at: h.dueAt })
    .from(h)
    .innerJoin(own(on.t.bots), sql`${on.t.bots.id} = ${h.botId}`)
    .where(and(gt(h.dueAt, v.now), deliveryOn(on.t)))
    .orderBy(h.dueAt)
    .limit(1),
)

const renew = query((on, v: { id: string; heldUntil: string; leaseUntil: string }) =>
  pgOf(on)
    .update(own(on.t.botDeliveries))
    .set({ leasedUntil: v.leaseUntil })
    .where(and(eq(on.t.botDeliveries.id as never, v.id), eq(leasedUntil, v.heldUntil)))
    .returning({ id: sql<string>`${on.t.botDeliveries.id}` }),
)

/** The deliveries the storage API's `due`, `claim`, `following`, `claimFollowing`, `nextDueAfter` and `renew` find, on PostgreSQL. */
export function postgresDeliveries(run: Run): EngineDeliveries {
  return {
    due: (now, limit) => run.all(due, { now, limit }) as Promise<DueDelivery[]>,
    claim: (now, limit, leaseUntil) => run.all(claim, { now, limit, leaseUntil }) as Promise<DueDelivery[]>,
    following: async (integrationId, conversationId, afterSeq, now) =>
      (await run.one(following, { integrationId, conversationId, afterSeq, now })) as DueDelivery | undefined,
    claimFollowing: async (integrationId, conversationId, afterSeq, now, leaseUntil) =>
      (await run.one(claimFollowing, { integrationId, conversationId, afterSeq, now, leaseUntil })) as DueDelivery | undefined,
    nextDueAfter: async (now) => ((await run.one(nextDueAfter, { now })) as { at: string } | undefined)?.at,
    renew: async (id, heldUntil, leaseUntil) => (await run.one(renew, { id, heldUntil, leaseUntil })) !== undefined,
  }
}
