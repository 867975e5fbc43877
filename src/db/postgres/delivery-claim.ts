import { and, asc, eq, gt, inArray, isNull, lte, min, or, sql } from 'drizzle-orm'
import { deliveryOn, dueDeliveries } from '../queries/bot-deliveries.ts'
import type { EngineDeliveries } from '../queries/index.ts'
import type { Run } from '../query.ts'
import type { DueDelivery } from '../store.ts'
import type { PgTable } from 'drizzle-orm/pg-core'
import type { PgDb } from './run.ts'
import { leasedUntil } from './schema.ts'

/*
 * Finding the due deliveries among several instances: a delivery is claimed with FOR UPDATE SKIP
 * LOCKED and leased until `leaseUntil`, so that two instances never hold it at once; another
 * instance may take it once the lease has run out (its holder died).
 */

/** A table as PostgreSQL's own types see it, for what only PostgreSQL has (FOR UPDATE, the lease). */
const own = (table: object) => table as PgTable

/** The deliveries the storage API's `due`, `claim`, `following` and `nextDueAfter` find on PostgreSQL. */
export function postgresDeliveries(run: Run, pg: PgDb): EngineDeliveries {
  const { on } = run
  const { botDeliveries, bots } = on.t
  /** The head of its conversation (none older), to a bot whose delivery is on. */
  const deliverable = and(
    sql`not exists (select 1 from ${botDeliveries} as earlier where earlier.integration_id = ${botDeliveries.integrationId}
      and earlier.conversation_id = ${botDeliveries.conversationId} and earlier.seq < ${botDeliveries.seq})`,
    deliveryOn(on.t),
  )
  /** Nobody holds it: never claimed, or its holder's lease has run out. */
  const unleased = (now: string) => or(isNull(leasedUntil), lte(leasedUntil, now))
  const inTurn = [asc(botDeliveries.nextAttemptAt), asc(botDeliveries.seq)]

  return {
    due: async (now, limit) =>
      (await dueDeliveries(on)
        .where(and(lte(botDeliveries.nextAttemptAt, now), unleased(now), deliverable))
        .orderBy(...inTurn)
        .limit(limit)) as DueDelivery[],
    claim: async (now, limit, leaseUntil) => {
      // The rows are locked, those another instance is claiming skipped; a row claimed and
      // committed meanwhile is re-checked against `unleased` once its lock is granted.
      const claimed = await pg
        .select({ seq: sql<number>`${botDeliveries.seq}` })
        .from(own(botDeliveries))
        .innerJoin(own(bots), eq(bots.id, botDeliveries.botId))
        .where(and(lte(botDeliveries.nextAttemptAt, now), unleased(now), deliverable))
        .orderBy(...inTurn)
        .limit(limit)
        .for('update', { of: own(botDeliveries), skipLocked: true })
      if (claimed.length === 0) return []
      const seqs = claimed.map((row) => Number(row.seq))
      await pg.update(own(botDeliveries)).set({ leasedUntil: leaseUntil }).where(inArray(botDeliveries.seq, seqs))
      return (await dueDeliveries(on).where(inArray(botDeliveries.seq, seqs)).orderBy(...inTurn)) as DueDelivery[]
    },
    following: async (integrationId, conversationId, afterSeq, now) =>
      (
        (await dueDeliveries(on).where(
          and(
            sql`${botDeliveries.seq} = (select min(next.seq) from ${botDeliveries} as next where next.integration_id = ${integrationId}
              and next.conversation_id = ${conversationId} and next.seq > ${afterSeq})`,
            lte(botDeliveries.nextAttemptAt, now),
            deliveryOn(on.t),
          ),
        )) as DueDelivery[]
      )[0],
    nextDueAfter: async (now) => {
      // A delivery another instance holds comes due for the others when its lease runs out.
      const dueAt = sql<string>`greatest(${botDeliveries.nextAttemptAt}, coalesce(${leasedUntil}, ''))`
      const [row] = (await on.db
        .select({ at: min(dueAt) })
        .from(botDeliveries)
        .innerJoin(bots, eq(bots.id, botDeliveries.botId))
        .where(and(gt(dueAt, now), deliverable))) as { at: string | null }[]
      return row?.at ?? undefined
    },
  }
}
