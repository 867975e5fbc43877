import { eq, sql } from 'drizzle-orm'
import { participationShapes, participationsFound, toParticipation } from '../queries/conversations.ts'
import { queriesOf } from '../queries/index.ts'
import { participationAndPageInOne, participationWithPage } from '../queries/participation-page.ts'
import { locking, type On, query, type Run } from '../query.ts'
import type { ChatIntegrationRow, ConversationRow, UserRow } from '../schema.ts'
import type { IntegrationVersionQueries, Queries } from '../store.ts'
import { postgresDeliveries } from './delivery-claim.ts'

/**
 * Every named query of the storage API on PostgreSQL, as `run` runs their shapes (a read, a unit of
 * work: `inUnit`). Its own: the deliveries (delivery-claim.ts), the page read with its participation
 * in one statement (src/db/queries/participation-page.ts), the integrations' versions (below), and
 * `anyWorkspace` inside a unit of work, which takes a transaction-scoped advisory lock first, so that
 * N instances starting at once on an empty database make one first tenant, not N.
 */
export function postgresQueries(run: Run, { inUnit }: { inUnit: boolean }): Queries {
  const common = queriesOf(run, postgresDeliveries(run))
  const { tenancy } = common
  const anyWorkspace = async () => {
    await run.run(bootstrap, {})
    return tenancy.anyWorkspace()
  }
  return {
    ...common,
    conversations: { ...common.conversations, participationWithPage: participationAndPageInOne(run) },
    integrationVersions: integrationVersionQueries(run),
    tenancy: inUnit ? { ...tenancy, anyWorkspace } : tenancy,
  }
}

/** The advisory lock key that serializes first-start bootstraps of several instances ("confab-b"). */
const bootstrapLock = 0x636f6e66_61622d62n

const bootstrap = locking(query(() => sql`select pg_advisory_xact_lock(${sql.raw(String(bootstrapLock))})`))

/*
 * A chat integration's version is its row's `xmin`, the transaction that wrote it: every update
 * writes a new row version with a new one, and a row deleted and made again has another. No column
 * to keep in step, and no write path that could forget to bump it.
 */

/** The integration's version, as a scalar subquery read beside a statement's own columns: null when it is gone. */
const versionOf = ({ t: { chatIntegrations } }: On, integrationId: string) => ({
  integrationVersion: sql<string | null>`(select ${chatIntegrations}.xmin::text from ${chatIntegrations} where ${chatIntegrations.id} = ${integrationId})`,
})

const byWebhook = query(({ db, t: { chatIntegrations } }, v: { webhookId: string }) =>
  db
    .select({ integration: chatIntegrations, version: sql<string>`${chatIntegrations}.xmin::text` })
    .from(chatIntegrations)
    .where(eq(chatIntegrations.webhookId, v.webhookId)),
)

const version = query(({ db, t: { chatIntegrations } }, v: { integrationId: string }) =>
  db
    .select({ version: sql<string>`${chatIntegrations}.xmin::text` })
    .from(chatIntegrations)
    .where(eq(chatIntegrations.id, v.integrationId)),
)

const { participation, participations } = participationShapes((on, v) => versionOf(on, v.integrationId))

const pageWithVersion = participationWithPage((on, v) => versionOf(on, v.integrationId))

/** A participation's row, with the integration's version read beside it. */
type Versioned = { conversation: ConversationRow; participant: UserRow | null; integrationVersion?: unknown }

/** The version read beside a statement's columns, on its first row: none when there is no row or the integration is gone. */
const versionIn = (row: { integrationVersion?: unknown } | undefined) => ({
  integrationVersion: (row?.integrationVersion as string | null | undefined) ?? undefined,
})

const integrationVersionQueries = (run: Run): IntegrationVersionQueries => ({
  byWebhook: async (webhookId) => (await run.one(byWebhook, { webhookId })) as { integration: ChatIntegrationRow; version: string } | undefined,
  version: async (integrationId) => (await run.one(version, { integrationId }))?.version,
  participation: async (integrationId, conversationId, userId) => {
    const row: Versioned | undefined = await run.one(participation, { integrationId, conversationId, userId })
    return { ...toParticipation(row), ...versionIn(row) }
  },
  participationWithPage: participationAndPageInOne(run, pageWithVersion, versionIn),
  participations: async (integrationId, conversationIds, userId) => {
    if (conversationIds.length === 0) return { found: new Map() }
    const rows: Versioned[] = await run.all(participations, { integrationId, userId, conversationIds: [...conversationIds] })
    return { found: participationsFound(rows), ...versionIn(rows[0]) }
  },
})
