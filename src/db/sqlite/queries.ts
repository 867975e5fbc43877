import { and, asc, eq, gt, lte, min, sql } from 'drizzle-orm'
import { ofIntegration } from '../queries/bots.ts'
import { deliveryColumns, deliveryIsOn, deliveryOn, dueDeliveries } from '../queries/bot-deliveries.ts'
import { queriesOf } from '../queries/index.ts'
import { participationThenPage } from '../queries/participation-page.ts'
import { chatIntegrationByWebhook } from '../queries/tenancy.ts'
import { limitOf, query } from '../query.ts'
import type { DueDelivery, Queries } from '../store.ts'
import type { SqliteDb } from './connection.ts'
import { sqliteRun } from './run.ts'
import type { ParticipationCache } from './participation-cache.ts'
import type { TenancyCache } from './tenancy-cache.ts'

/*
 * What SQLite says its own way: finding due deliveries (one process owns the file: nothing to lease),
 * and the tenancy lookups every request and delivery starts with, which the thread's TenancyCache keeps.
 */

/**
 * Up to `limit` deliveries due at `now`, each the head of its conversation, to bots whose delivery
 * is on. The heads of all conversations are found once per query from the conversation index, not
 * by a lookup per candidate row: a conversation with a long backlog would otherwise make every poll walk it.
 */
const due = query((on, v: { now: string; limit: number }) => {
  const { botDeliveries } = on.t
  return dueDeliveries(on)
    .where(
      and(
        lte(botDeliveries.nextAttemptAt, v.now),
        sql`${botDeliveries.seq} in (select min(heads.seq) from ${botDeliveries} as heads
          group by heads.integration_id, heads.conversation_id)`,
        deliveryOn(on.t),
      ),
    )
    .orderBy(asc(botDeliveries.nextAttemptAt), asc(botDeliveries.seq))
    .limit(limitOf(v.limit))
})

// Without its bot and integration, which the thread keeps (TenancyCache): the same for every
// delivery of a conversation, they were most of this hot seek's columns.
type Following = { integrationId: string; conversationId: string; afterSeq: number; limit: number }

/** Up to `limit` deliveries after `afterSeq` in the conversation, in its order (one walk of the conversation index); the run is cut where one is not due. */
const following = query(({ db, t: { botDeliveries, messages } }, v: Following) =>
  db
    .select({ delivery: deliveryColumns({ botDeliveries } as never), message: messages })
    .from(botDeliveries)
    .leftJoin(messages, and(eq(messages.integrationId, botDeliveries.integrationId), eq(messages.id, botDeliveries.messageId)))
    .where(and(eq(botDeliveries.integrationId, v.integrationId), eq(botDeliveries.conversationId, v.conversationId), gt(botDeliveries.seq, v.afterSeq)))
    .orderBy(asc(botDeliveries.seq))
    .limit(limitOf(v.limit)),
)

// One seek of the due index: a delivery waiting behind another, or to a bot whose delivery is off,
// may make this earlier than need be, which costs one look that finds nothing.
const nextDueAfter = query(({ db, t: { botDeliveries } }, v: { now: string }) =>
  db
    .select({ at: min(botDeliveries.nextAttemptAt) })
    .from(botDeliveries)
    .where(gt(botDeliveries.nextAttemptAt, v.now)),
)

/**
 * Every named query of the storage API on one SQLite connection. `participations`: the writer's
 * tells it what it writes (`keeps` false); a reading connection's (`keeps` true) serves the
 * participations it keeps (participation-cache.ts).
 */
export function sqliteQueries(db: SqliteDb, cache: TenancyCache, participations?: { cache: ParticipationCache; keeps: boolean }): Queries {
  const run = sqliteRun(db, () => cache.botChanged(), participations && (() => participations.cache.changed()))
  const botOfIntegration = (integrationId: string) => cache.botOfIntegration(integrationId, () => run.oneNow(ofIntegration, { integrationId }))
  const followingOf = async (integrationId: string, conversationId: string, afterSeq: number, now: string, limit: number): Promise<DueDelivery[]> => {
    const target = botOfIntegration(integrationId)
    if (!target || !deliveryIsOn(target.bot)) return []
    const rows = await run.all(following, { integrationId, conversationId, afterSeq, limit })
    const due = rows.findIndex((row) => row.delivery.nextAttemptAt > now || row.delivery.botId !== target.bot.id)
    // Field by field, not spread: one object shape per delivery (docs/internals/performance.md).
    return (due === -1 ? rows : rows.slice(0, due)).map((row) => ({
      delivery: row.delivery,
      message: row.message,
      bot: target.bot,
      integration: target.integration,
    }))
  }
  const base = queriesOf(run, {
    due: (now, limit) => run.all(due, { now, limit }) as Promise<DueDelivery[]>,
    claim: (now, limit) => run.all(due, { now, limit }) as Promise<DueDelivery[]>,
    claimFollowing: (integrationId, conversationId, afterSeq, now, _leaseUntil, limit) => followingOf(integrationId, conversationId, afterSeq, now, limit),
    nextDueAfter: async (now) => (await run.one(nextDueAfter, { now }))?.at ?? undefined,
    // Nothing to lease: the process that owns the file holds every delivery it claimed.
    renew: async (ids) => ids.length,
    release: async () => {},
  })
  if (participations?.keeps) base.conversations = keptParticipations(base.conversations, base.messages, participations.cache)
  const { conversations } = base
  return {
    ...base,
    // One process sees every write: the version is the thread's count of bot and integration changes (TenancyCache).
    integrationVersions: {
      byWebhook: async (webhookId) => {
        const version = cache.version
        const integration = cache.integrationByWebhook(webhookId, () => run.oneNow(chatIntegrationByWebhook, { webhookId }))
        return integration && { integration, version }
      },
      version: async (integrationId) => (botOfIntegration(integrationId) ? cache.version : undefined),
      participation: async (integrationId, conversationId, userId) => {
        const version = cache.version
        const found = await conversations.participation(integrationId, conversationId, userId)
        return { ...found, integrationVersion: found.conversation ? version : undefined }
      },
      participationWithPage: async (integrationId, conversationId, userId, window) => {
        const version = cache.version
        const found = await conversations.participationWithPage(integrationId, conversationId, userId, window)
        return { ...found, integrationVersion: found.participation.conversation ? version : undefined }
      },
      participations: async (integrationId, conversationIds, userId) => {
        const version = cache.version
        const found = await conversations.participations(integrationId, conversationIds, userId)
        return { found, integrationVersion: found.size > 0 ? version : undefined }
      },
    },
    bots: { ...base.bots, ofIntegration: async (integrationId) => botOfIntegration(integrationId) },
    tenancy: {
      ...base.tenancy,
      chatIntegrationByWebhook: async (webhookId) => cache.integrationByWebhook(webhookId, () => run.oneNow(chatIntegrationByWebhook, { webhookId })),
    },
  }
}

/** The conversation queries of a reading connection, serving the participations it keeps (participation-cache.ts). */
function keptParticipations(conversations: Queries['conversations'], messages: Queries['messages'], kept: ParticipationCache): Queries['conversations'] {
  const participation: Queries['conversations']['participation'] = async (integrationId, conversationId, userId) => {
    const found = kept.get(integrationId, conversationId, userId)
    if (found) return found
    // Taken before the statement runs (it runs at once: SQLite answers synchronously).
    const tag = kept.tag()
    const read = await conversations.participation(integrationId, conversationId, userId)
    kept.keep(integrationId, conversationId, userId, tag, read)
    return read
  }
  const withKept = { ...conversations, participation }
  return { ...withKept, ...participationThenPage(withKept, messages) }
}
