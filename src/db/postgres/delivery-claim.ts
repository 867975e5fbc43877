import { and, eq, gt, inArray, sql, type SQL } from 'drizzle-orm'
import type { PgTable } from 'drizzle-orm/pg-core'
import { deliveryOn, dueDeliveries } from '../queries/bot-deliveries.ts'
import { idsKey } from '../queries/users.ts'
import type { EngineDeliveries } from '../queries/index.ts'
import { limitOf, type On, query, type Run, writing } from '../query.ts'
import type { DueDelivery } from '../store.ts'
import type { PgDb } from './run.ts'
import { botDeliveryHeads, leasedUntil } from './schema.ts'

/*
 * The outbox's due deliveries on PostgreSQL, read from bot_delivery_heads (schema.ts): the claim walks
 * the heads' `due_at` index and locks the rows it takes (FOR UPDATE SKIP LOCKED: another instance's
 * claim under way is skipped, never waited for), so it reads O(limit) rows whatever the backlog. The
 * lease (until `leaseUntil`) keeps two instances from holding a delivery at once; another instance may
 * take it once the lease has run out (its holder died), or never while its holder renews it.
 */

/** A table as PostgreSQL's own types see it, for what only PostgreSQL has (the lease). */
const own = (table: object) => table as PgTable
/** The handle a shape is built on, as PostgreSQL's own types see it (its CTEs). */
const pgOf = (on: On) => on.db as unknown as PgDb

const h = botDeliveryHeads

// Each a shape, prepared once per connection like any other (storage.md says why, with its figures):
// drizzle built them anew on every claim, look and removal, most of the delivery worker's CPU.

/** Up to `limit` heads due at `now`, the most overdue first; `locked`: each locked, those locked elsewhere skipped. */
const dueHeads = (t: On['t'], now: string, limit: number, locked: boolean): SQL => sql`
  select ${h.seq} from ${h} join ${t.bots} on ${t.bots.id} = ${h.botId}
  where ${h.dueAt} <= ${now} and ${deliveryOn(t)}
  order by ${h.dueAt}, ${h.seq} limit ${limitOf(limit)}${locked ? sql` for update of ${h} skip locked` : sql``}`
const inTurn = ({ botDeliveries }: On['t']) => sql`${botDeliveries.nextAttemptAt}, ${botDeliveries.seq}`

/**
 * The seqs of the run of the conversation's deliveries after `afterSeq`: at most `limit`, in order,
 * cut before the first not due at `now` or held by an instance whose lease has not run out. The
 * cut is taken over the `limit` rows the conversation index gives, never over the backlog behind them.
 */
const runSeqs = ({ botDeliveries }: On['t'], v: Following & { now: string }): SQL => sql`
  select seq from (select seq, bool_and(ok) over (order by seq) as unbroken from (
    select next.seq, next.next_attempt_at <= ${v.now} and (next.leased_until is null or next.leased_until <= ${v.now}) as ok
    from ${botDeliveries} as next where next.integration_id = ${v.integrationId} and next.conversation_id = ${v.conversationId}
      and next.seq > ${v.afterSeq} order by next.seq limit ${limitOf(v.limit)}) as candidates) as runs where unbroken`

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

type Following = { integrationId: string; conversationId: string; afterSeq: number; limit: number }

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

// As `claim`, one statement, sent with the claim of the head before the run or in the unit that
// settles the batch before it: the head the removals make carries this lease, so that no other
// instance's claim walks to it; the run ends before one another instance holds.
const claimFollowing = writing(
  query((on, v: Following & { now: string; leaseUntil: string }) => {
    const { botDeliveries, bots } = on.t
    const leased = sql`update ${botDeliveries} set leased_until = ${v.leaseUntil}
      where ${botDeliveries.seq} in (${runSeqs(on.t, v)})
        and ${botDeliveries.botId} in (select ${bots.id} from ${bots} where ${deliveryOn(on.t)})
      returning ${botDeliveries.seq}`
    return withFollowed(leasing(on, leased)).where(sql`${botDeliveries.seq} in (select seq from leased)`).orderBy(botDeliveries.seq)
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

const renew = query(
  (on, v: { ids: string[]; heldUntil: string; leaseUntil: string }) =>
    pgOf(on)
      .update(own(on.t.botDeliveries))
      .set({ leasedUntil: v.leaseUntil })
      .where(and(inArray(on.t.botDeliveries.id as never, v.ids), eq(leasedUntil, v.heldUntil)))
      .returning({ id: sql<string>`${on.t.botDeliveries.id}` }),
  (v) => idsKey(v.ids),
)

const release = query(
  (on, v: { ids: string[]; heldUntil: string }) =>
    pgOf(on)
      .update(own(on.t.botDeliveries))
      .set({ leasedUntil: null })
      .where(and(inArray(on.t.botDeliveries.id as never, v.ids), eq(leasedUntil, v.heldUntil))),
  (v) => idsKey(v.ids),
)

/** The deliveries the storage API's `due`, `claim`, `claimFollowing`, `nextDueAfter`, `renew` and `release` find, on PostgreSQL. */
export function postgresDeliveries(run: Run): EngineDeliveries {
  return {
    due: (now, limit) => run.all(due, { now, limit }) as Promise<DueDelivery[]>,
    claim: (now, limit, leaseUntil) => run.all(claim, { now, limit, leaseUntil }) as Promise<DueDelivery[]>,
    claimFollowing: (integrationId, conversationId, afterSeq, now, leaseUntil, limit) =>
      run.all(claimFollowing, { integrationId, conversationId, afterSeq, now, leaseUntil, limit }) as Promise<DueDelivery[]>,
    nextDueAfter: async (now) => ((await run.one(nextDueAfter, { now })) as { at: string } | undefined)?.at,
    renew: async (ids, heldUntil, leaseUntil) => (ids.length === 0 ? 0 : (await run.all(renew, { ids: [...ids], heldUntil, leaseUntil })).length),
    release: async (ids, heldUntil) => {
      if (ids.length > 0) await run.run(release, { ids: [...ids], heldUntil })
    },
  }
}
