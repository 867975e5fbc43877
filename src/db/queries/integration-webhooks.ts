import { and, asc, eq, inArray, isNull, lte, min, or, sql } from 'drizzle-orm'
import { limitOf, query, rowValues, type Run } from '../query.ts'
import type { IntegrationWebhookDeliveryRow } from '../schema.ts'
import type { IntegrationWebhookQueries } from '../store.ts'
import { idsKey } from './users.ts'

/*
 * The outbox of integration webhooks (schema.ts, integrationWebhookDeliveries). Each integration's
 * deliveries go one at a time, oldest first: only its head (least seq) is ever due. Both engines
 * lease what they claim the same way (one statement), so that instances sharing a PostgreSQL
 * database never send one twice at once, and SQLite's one process needs nothing of its own.
 */

type Table = IntegrationWebhookDeliveryRow

const insert = query(({ db, t: { integrationWebhookDeliveries: d } }, row: Omit<Table, 'seq' | 'leasedUntil'>) => db.insert(d).values(rowValues(d, row)))

const claim = query(({ db, t: { integrationWebhookDeliveries: d } }, v: { now: string; leaseUntil: string; limit: number }) => {
  const free = or(isNull(d.leasedUntil), lte(d.leasedUntil, v.now))
  const heads = db
    .select({ seq: d.seq })
    .from(d)
    .where(and(lte(d.nextAttemptAt, v.now), free, sql`${d.seq} = (select min(head.seq) from ${d} as head where head.integration_id = ${d.integrationId})`))
    .orderBy(asc(d.nextAttemptAt))
    .limit(limitOf(v.limit))
  return db
    .update(d)
    .set({ leasedUntil: v.leaseUntil })
    .where(and(inArray(d.seq, heads), free))
    .returning()
})

/** The earliest moment a head may come due: its next attempt, or the end of the lease another instance holds it by. */
const nextDue = query(({ db, t: { integrationWebhookDeliveries: d } }, _: object) =>
  db
    .select({
      at: min(sql<string>`case when ${d.leasedUntil} is not null and ${d.leasedUntil} > ${d.nextAttemptAt} then ${d.leasedUntil} else ${d.nextAttemptAt} end`),
    })
    .from(d)
    .where(sql`${d.seq} = (select min(head.seq) from ${d} as head where head.integration_id = ${d.integrationId})`),
)

const reschedule = query(({ db, t: { integrationWebhookDeliveries: d } }, v: { id: string; attempts: number; nextAttemptAt: string }) =>
  db.update(d).set({ attempts: v.attempts, nextAttemptAt: v.nextAttemptAt, leasedUntil: null }).where(eq(d.id, v.id)).returning({ id: d.id }),
)

const remove = query(({ db, t: { integrationWebhookDeliveries: d } }, v: { id: string }) => db.delete(d).where(eq(d.id, v.id)).returning({ id: d.id }))

/** Where the claimed deliveries go: each integration with its bot (whose signing secrets sign them). */
const targets = query(
  ({ db, t: { chatIntegrations, bots } }, v: { ids: string[] }) =>
    db
      .select({ integration: chatIntegrations, bot: bots })
      .from(chatIntegrations)
      .innerJoin(bots, eq(bots.id, chatIntegrations.botId))
      .where(inArray(chatIntegrations.id, v.ids)),
  (v) => idsKey(v.ids),
)

export const integrationWebhookQueries = (run: Run): IntegrationWebhookQueries => ({
  insert: (row) => run.run(insert, row),
  claim: (now, limit, leaseUntil) => run.all(claim, { now, limit, leaseUntil }),
  nextDue: async () => (await run.one(nextDue, {}))?.at ?? undefined,
  reschedule: async (id, attempts, nextAttemptAt) => (await run.one(reschedule, { id, attempts, nextAttemptAt })) !== undefined,
  remove: async (id) => (await run.one(remove, { id })) !== undefined,
  targets: (integrationIds) => (integrationIds.length === 0 ? Promise.resolve([]) : run.all(targets, { ids: [...integrationIds] })),
})
