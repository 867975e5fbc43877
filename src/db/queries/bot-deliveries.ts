import { and, count, eq, isNull, min, ne, or, type SQL } from 'drizzle-orm'
import { columnsOf, type On, query, rowValues, type Run } from '../query.ts'
import type { BotDeliveryRow, BotRow } from '../schema.ts'
import type { BotDeliveryQueries } from '../store.ts'

/*
 * The outbox of bot deliveries. Finding the due ones (`due`, `claim`, `claimFollowing`, `nextDueAfter`)
 * is each engine's own (src/db/sqlite/deliveries.ts, src/db/postgres/delivery-claim.ts): SQLite's
 * one process never starts a delivery twice, PostgreSQL's instances lease them.
 */

/** The delivery columns the storage API knows (an engine may have more: PostgreSQL's lease). */
export const deliveryColumns = (t: On['t']) => {
  const { leasedUntil: _lease, ...columns } = columnsOf(t.botDeliveries) as DeliveryColumns & { leasedUntil?: unknown }
  return columns as DeliveryColumns
}

type DeliveryColumns = ReturnType<typeof columnsOf<On['t']['botDeliveries']>>

/** A bot whose delivery is on: it has no url, or its url is not the one that answered 410 Gone. */
export const deliveryOn = ({ bots }: On['t']) => or(isNull(bots.goneUrl), isNull(bots.url), ne(bots.url, bots.goneUrl))

/** `deliveryOn`, of a bot row in hand. */
export const deliveryIsOn = (bot: BotRow) => bot.goneUrl === null || bot.url === null || bot.url !== bot.goneUrl

/** Deliveries with what their attempts need, and what an engine adds (`followed`): see DueDelivery. */
export const dueDeliveries = ({ db, t }: On, extra: { followed?: SQL<boolean> } = {}) =>
  db
    .select({ delivery: deliveryColumns(t), bot: t.bots, integration: t.chatIntegrations, message: t.messages, ...extra })
    .from(t.botDeliveries)
    .innerJoin(t.bots, eq(t.bots.id, t.botDeliveries.botId))
    .innerJoin(t.chatIntegrations, eq(t.chatIntegrations.id, t.botDeliveries.integrationId))
    .leftJoin(t.messages, and(eq(t.messages.integrationId, t.botDeliveries.integrationId), eq(t.messages.id, t.botDeliveries.messageId)))

const insert = query(({ db, t: { botDeliveries } }, row: Omit<BotDeliveryRow, 'seq'>) => db.insert(botDeliveries).values(rowValues(botDeliveries, row)))

const reschedule = query(({ db, t: { botDeliveries } }, v: { id: string; attempts: number; nextAttemptAt: string }) =>
  db
    .update(botDeliveries)
    // A rescheduled delivery is nobody's any more (where deliveries are leased).
    .set({ attempts: v.attempts, nextAttemptAt: v.nextAttemptAt, ...('leasedUntil' in botDeliveries ? { leasedUntil: null } : {}) })
    .where(eq(botDeliveries.id, v.id))
    .returning({ id: botDeliveries.id }),
)

const remove = query(({ db, t: { botDeliveries } }, v: { id: string }) =>
  db.delete(botDeliveries).where(eq(botDeliveries.id, v.id)).returning({ id: botDeliveries.id }),
)

const backlog = query(({ db, t: { botDeliveries } }, _: object) => db.select({ pending: count(), oldest: min(botDeliveries.createdAt) }).from(botDeliveries))

/** The outbox's queries both engines run the same; `due`, `claim`, `claimFollowing` and `nextDueAfter` are the engine's. */
export const botDeliveryQueries = (run: Run): Omit<BotDeliveryQueries, 'due' | 'claim' | 'claimFollowing' | 'nextDueAfter' | 'renew' | 'release'> => ({
  insert: (row) => run.run(insert, row),
  reschedule: async (id, attempts, nextAttemptAt) => (await run.one(reschedule, { id, attempts, nextAttemptAt })) !== undefined,
  remove: async (id) => (await run.one(remove, { id })) !== undefined,
  backlog: async () => {
    const row = await run.one(backlog, {})
    return { pending: Number(row?.pending ?? 0), oldestCreatedAt: row?.oldest ?? undefined }
  },
})
