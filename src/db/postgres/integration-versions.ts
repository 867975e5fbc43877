import { eq, inArray, sql } from 'drizzle-orm'
import { participationOf, toParticipation } from '../queries/conversations.ts'
import {
  type PageOfParticipant,
  participationAndPage,
  type ParticipationPageRow,
  participationPageValues,
  participationWithPageOf,
} from '../queries/participation-page.ts'
import { idsKey } from '../queries/users.ts'
import { byShape, type On, query, type Run } from '../query.ts'
import type { ChatIntegrationRow, ConversationRow, UserRow } from '../schema.ts'
import type { IntegrationVersionQueries, Participation } from '../store.ts'

/*
 * A chat integration's version on PostgreSQL is its row's `xmin`, the transaction that wrote it:
 * every update writes a new row version with a new one, and a row deleted and made again has another.
 * No column to keep in step, and no write path that could forget to bump it.
 */

/** The integration's version, as a scalar subquery: null when it is gone. */
const versionOf = ({ t: { chatIntegrations } }: On, integrationId: string) =>
  sql<string | null>`(select ${chatIntegrations}.xmin::text from ${chatIntegrations} where ${chatIntegrations.id} = ${integrationId})`

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

const participation = query((on, v: { integrationId: string; userId: string; conversationId: string }) =>
  participationOf(on, v, (id) => eq(id, v.conversationId), { integrationVersion: versionOf(on, v.integrationId) }),
)

const participations = query(
  (on, v: { integrationId: string; userId: string; conversationIds: string[] }) =>
    participationOf(on, v, (id) => inArray(id, v.conversationIds), { integrationVersion: versionOf(on, v.integrationId) }),
  (v) => idsKey(v.conversationIds),
)

const participationWithPage = query(
  (on, v: PageOfParticipant, key) => participationWithPageOf(on, v, Number(key), { integrationVersion: versionOf(on, v.integrationId) }),
  byShape,
)

type Versioned = { conversation: ConversationRow; participant: UserRow | null; integrationVersion: string | null }

export const integrationVersionQueries = (run: Run): IntegrationVersionQueries => ({
  byWebhook: async (webhookId) => (await run.one(byWebhook, { webhookId })) as { integration: ChatIntegrationRow; version: string } | undefined,
  version: async (integrationId) => (await run.one(version, { integrationId }))?.version,
  participation: async (integrationId, conversationId, userId) => {
    const row = (await run.one(participation, { integrationId, conversationId, userId })) as Versioned | undefined
    return { ...toParticipation(row), integrationVersion: row?.integrationVersion ?? undefined }
  },
  participationWithPage: async (integrationId, conversationId, userId, window) => {
    const values = participationPageValues(integrationId, conversationId, userId, window)
    const rows = (await run.all(participationWithPage, values)) as (ParticipationPageRow & { integrationVersion: string | null })[]
    return { ...participationAndPage(run.on, rows, values), integrationVersion: rows[0]?.integrationVersion ?? undefined }
  },
  participations: async (integrationId, conversationIds, userId) => {
    const found = new Map<string, Participation>()
    if (conversationIds.length === 0) return { found }
    let integrationVersion: string | undefined
    for (const row of (await run.all(participations, { integrationId, userId, conversationIds: [...conversationIds] })) as Versioned[]) {
      found.set(row.conversation.id, toParticipation(row))
      integrationVersion = row.integrationVersion ?? undefined
    }
    return { found, integrationVersion }
  },
})
