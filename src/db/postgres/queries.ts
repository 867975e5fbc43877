import { and, asc, count, eq, getTableColumns, gt, gte, inArray, isNull, lte, min, ne, or, type SQL, sql, type SQLWrapper } from 'drizzle-orm'
import type { NodePgQueryResultHKT } from 'drizzle-orm/node-postgres'
import { alias, type PgDatabase } from 'drizzle-orm/pg-core'
import type { MessageFeedback, MessageRow, UserRow } from '../schema.ts'
import type { DueDelivery, ParticipantEntry, Participation, Queries } from '../store.ts'
import { keyset } from './keyset.ts'
import { postgresChosenIds } from './chosen-ids.ts'
import {
  adminTokens,
  botApiKeys,
  botDeliveries,
  botEvents,
  botLogs,
  botStates,
  bots,
  chatIntegrations,
  conversations,
  events,
  files,
  messages,
  participants,
  users,
  workspaces,
} from './schema.ts'
import type * as schema from './schema.ts'

/** A pool or a transaction: the named queries run the same on both. */
export type PgDb = PgDatabase<NodePgQueryResultHKT, typeof schema>

/** The advisory lock key that serializes first-start bootstraps of several instances ("confab-b"). */
const bootstrapLock = 0x636f6e66_61622d62n

/*
 * The same named queries as src/db/sqlite/queries.ts, in the same order, as PostgreSQL statements.
 * They are not prepared: node-postgres sends each as a parameterized query, and the server plans it.
 * Where PostgreSQL must differ from SQLite, the query says so:
 *  - lists of many conversations at once are one UNION ALL of keyset subqueries (as SQLite's), each
 *    aliased, read back raw (snake_case columns, json already parsed by node-postgres);
 *  - the bot deliveries are claimed with FOR UPDATE SKIP LOCKED and a lease (`claim`), so that
 *    several instances never hold the same delivery at once;
 *  - `anyWorkspace` inside a unit of work takes a transaction-scoped advisory lock first, so that N
 *    instances starting at once on an empty database make one first tenant, not N.
 */

/** The delivery columns the storage API knows (without the lease). */
const { leasedUntil: _lease, ...deliveryColumns } = getTableColumns(botDeliveries)

/** A messages row as PostgreSQL returns it to a raw query. */
type MessageRecord = {
  integration_id: string
  id: string
  conversation_id: string
  user_id: string
  payload: Record<string, unknown>
  metadata: Record<string, unknown> | null
  feedback: MessageFeedback | null
  created_at: string
}

const messageOf = (row: MessageRecord): MessageRow => ({
  integrationId: row.integration_id,
  id: row.id,
  conversationId: row.conversation_id,
  userId: row.user_id,
  payload: row.payload,
  metadata: row.metadata,
  feedback: row.feedback,
  createdAt: row.created_at,
})

type ParticipantRecord = UserRow & {
  conversationId: string
  joinedAt: string
  joinId: string
}

const entryOf = ({ conversationId: _c, joinedAt, joinId, ...user }: ParticipantRecord): ParticipantEntry => ({
  user,
  joinedAt,
  joinId,
})

const groupBy = <T>(ids: readonly string[], rows: T[], idOf: (row: T) => string): Map<string, T[]> => {
  const groups = new Map<string, T[]>(ids.map((id) => [id, []]))
  for (const row of rows) groups.get(idOf(row))?.push(row)
  return groups
}

/** One statement of many keyset subqueries, each walking its conversation's index to its LIMIT. */
const unionOfPages = (ids: readonly string[], pageOf: (conversationId: string) => SQLWrapper): SQL =>
  sql.join(
    ids.map((id, i) => sql`select * from ${pageOf(id)} as ${sql.identifier(`page${i}`)}`),
    sql` union all `,
  )

const named = (column: SQLWrapper, name: string) => sql`${column}`.as(name)

const first = <T>(rows: T[]): T | undefined => rows[0]

const participationOf = (
  row: { conversation: Participation['conversation']; participant: UserRow | null } | undefined,
): Participation => ({ conversation: row?.conversation, participant: row?.participant ?? undefined })

/**
 * Every named query of the storage API on a pool (reads) or inside one transaction (a unit of
 * work: `inUnit`).
 */
export function postgresQueries(db: PgDb, { inUnit }: { inUnit: boolean }): Queries {
  const participantOf = (on: { integrationId: SQLWrapper | string; conversationId: SQLWrapper | string; userId: SQLWrapper | string }) =>
    and(
      eq(participants.integrationId, on.integrationId),
      eq(participants.conversationId, on.conversationId),
      eq(participants.userId, on.userId),
    )

  const participationQuery = (userId: string, integrationId: string, conversationIds: SQL | undefined) =>
    db
      .select({ conversation: conversations, participant: users })
      .from(conversations)
      .leftJoin(
        participants,
        participantOf({ integrationId: conversations.integrationId, conversationId: conversations.id, userId }),
      )
      .leftJoin(users, and(eq(users.integrationId, participants.integrationId), eq(users.id, participants.userId)))
      .where(and(eq(conversations.integrationId, integrationId), conversationIds))

  const participantPage = (integrationId: string, conversationId: string, window: Parameters<typeof keyset>[2]) => {
    const page = keyset([participants.createdAt, participants.joinId], 'asc', window)
    return db
      .select({
        integrationId: named(users.integrationId, 'integrationId'),
        id: named(users.id, 'id'),
        name: named(users.name, 'name'),
        pictureUrl: named(users.pictureUrl, 'pictureUrl'),
        profile: named(users.profile, 'profile'),
        isBot: named(users.isBot, 'isBot'),
        createdAt: named(users.createdAt, 'createdAt'),
        updatedAt: named(users.updatedAt, 'updatedAt'),
        conversationId: named(participants.conversationId, 'conversationId'),
        joinedAt: named(participants.createdAt, 'joinedAt'),
        joinId: named(participants.joinId, 'joinId'),
      })
      .from(participants)
      .innerJoin(users, and(eq(users.integrationId, participants.integrationId), eq(users.id, participants.userId)))
      .where(and(eq(participants.integrationId, integrationId), eq(participants.conversationId, conversationId), page.where))
      .orderBy(...page.orderBy)
      .limit(window.limit)
  }

  const messagePage = (integrationId: string, conversationId: string, window: Parameters<typeof keyset>[2]) => {
    const page = keyset([messages.createdAt, messages.id], 'desc', window)
    return db
      .select()
      .from(messages)
      .where(and(eq(messages.integrationId, integrationId), eq(messages.conversationId, conversationId), page.where))
      .orderBy(...page.orderBy)
      .limit(window.limit)
  }

  /** A delivery its conversation waits on (none older), to a bot whose delivery is on. */
  const deliveryOn = or(isNull(bots.goneUrl), isNull(bots.url), ne(bots.url, bots.goneUrl))
  const deliverable = and(
    sql`not exists (select 1 from ${botDeliveries} as earlier where earlier.integration_id = ${botDeliveries.integrationId}
      and earlier.conversation_id = ${botDeliveries.conversationId} and earlier.seq < ${botDeliveries.seq})`,
    deliveryOn,
  )
  /** A delivery with what its attempt needs: see DueDelivery. */
  const dueDelivery = () =>
    db
      .select({ delivery: deliveryColumns, bot: bots, integration: chatIntegrations, message: messages })
      .from(botDeliveries)
      .innerJoin(bots, eq(bots.id, botDeliveries.botId))
      .innerJoin(chatIntegrations, eq(chatIntegrations.id, botDeliveries.integrationId))
      .leftJoin(messages, and(eq(messages.integrationId, botDeliveries.integrationId), eq(messages.id, botDeliveries.messageId)))
  /** Nobody holds it: never claimed, or its holder's lease has run out. */
  const unleased = (now: string) => or(isNull(botDeliveries.leasedUntil), lte(botDeliveries.leasedUntil, now))

  return {
    chosenIds: postgresChosenIds(db),
    users: {
      find: async (integrationId, id) =>
        first(await db.select().from(users).where(and(eq(users.integrationId, integrationId), eq(users.id, id)))),
      findMany: async (integrationId, ids) =>
        ids.length === 0
          ? []
          : db
              .select()
              .from(users)
              .where(and(eq(users.integrationId, integrationId), inArray(users.id, [...ids]))),
      insert: async (row) => first(await db.insert(users).values(row).onConflictDoNothing().returning()),
      update: async (integrationId, id, changes) =>
        first(
          await db
            .update(users)
            .set(changes)
            .where(and(eq(users.integrationId, integrationId), eq(users.id, id)))
            .returning(),
        ),
      delete: async (integrationId, id) => {
        await db.delete(users).where(and(eq(users.integrationId, integrationId), eq(users.id, id)))
      },
      shareAConversation: async (integrationId, userId, otherId) => {
        const theirs = alias(participants, 'theirs')
        const rows = await db
          .select({ conversationId: participants.conversationId })
          .from(participants)
          .innerJoin(
            theirs,
            and(eq(theirs.integrationId, participants.integrationId), eq(theirs.conversationId, participants.conversationId)),
          )
          .where(and(eq(participants.integrationId, integrationId), eq(participants.userId, userId), eq(theirs.userId, otherId)))
          .limit(1)
        return rows.length > 0
      },
    },

    conversations: {
      find: async (integrationId, id) =>
        first(
          await db
            .select()
            .from(conversations)
            .where(and(eq(conversations.integrationId, integrationId), eq(conversations.id, id))),
        ),
      insert: async (row) => first(await db.insert(conversations).values(row).onConflictDoNothing().returning()),
      delete: async (integrationId, id) => {
        await db.delete(conversations).where(and(eq(conversations.integrationId, integrationId), eq(conversations.id, id)))
      },
      participation: async (integrationId, conversationId, userId) =>
        participationOf(first(await participationQuery(userId, integrationId, eq(conversations.id, conversationId)))),
      participations: async (integrationId, conversationIds, userId) => {
        const found = new Map<string, Participation>()
        if (conversationIds.length === 0) return found
        const rows = await participationQuery(userId, integrationId, inArray(conversations.id, [...conversationIds]))
        for (const row of rows) found.set(row.conversation.id, participationOf(row))
        return found
      },
      pageOfParticipant: async (integrationId, userId, window) => {
        const page = keyset([conversations.createdAt, conversations.id], 'desc', window)
        const rows = await db
          .select({ conversation: conversations })
          .from(participants)
          .innerJoin(
            conversations,
            and(eq(conversations.integrationId, participants.integrationId), eq(conversations.id, participants.conversationId)),
          )
          .where(and(eq(participants.integrationId, integrationId), eq(participants.userId, userId), page.where))
          .orderBy(...page.orderBy)
          .limit(window.limit)
        return rows.map((row) => row.conversation)
      },
    },

    participants: {
      insert: async (row) =>
        (await db.insert(participants).values(row).onConflictDoNothing().returning({ userId: participants.userId })).length > 0,
      exists: async (integrationId, conversationId, userId) =>
        (
          await db
            .select({ userId: participants.userId })
            .from(participants)
            .where(participantOf({ integrationId, conversationId, userId }))
        ).length > 0,
      delete: async (integrationId, conversationId, userId) =>
        (
          await db
            .delete(participants)
            .where(participantOf({ integrationId, conversationId, userId }))
            .returning({ userId: participants.userId })
        ).length > 0,
      conversationsOf: async (integrationId, userId) =>
        db
          .select({ conversationId: participants.conversationId, ownerId: conversations.ownerId })
          .from(participants)
          .innerJoin(
            conversations,
            and(eq(conversations.integrationId, participants.integrationId), eq(conversations.id, participants.conversationId)),
          )
          .where(and(eq(participants.integrationId, integrationId), eq(participants.userId, userId))),
      pages: async (integrationId, conversationIds, window) => {
        if (conversationIds.length === 0) return new Map()
        const rows: ParticipantRecord[] =
          conversationIds.length === 1
            ? ((await participantPage(integrationId, conversationIds[0] as string, window)) as ParticipantRecord[])
            : ((
                await db.execute<ParticipantRecord>(
                  unionOfPages(conversationIds, (conversationId) => participantPage(integrationId, conversationId, window)),
                )
              ).rows as ParticipantRecord[])
        const groups = groupBy(conversationIds, rows, (row) => row.conversationId)
        return new Map([...groups].map(([id, group]) => [id, group.map(entryOf)]))
      },
    },

    messages: {
      insert: async (row) => {
        await db.insert(messages).values(row)
      },
      updatePayload: async (integrationId, id, payload) =>
        first(
          await db
            .update(messages)
            .set({ payload })
            .where(and(eq(messages.integrationId, integrationId), eq(messages.id, id)))
            .returning(),
        ),
      find: async (integrationId, id) =>
        first(await db.select().from(messages).where(and(eq(messages.integrationId, integrationId), eq(messages.id, id)))),
      delete: async (integrationId, id) => {
        await db.delete(messages).where(and(eq(messages.integrationId, integrationId), eq(messages.id, id)))
      },
      pages: async (integrationId, conversationIds, window) => {
        if (conversationIds.length === 0) return new Map()
        if (conversationIds.length === 1) {
          const conversationId = conversationIds[0] as string
          return new Map([[conversationId, await messagePage(integrationId, conversationId, window)]])
        }
        const result = await db.execute<MessageRecord>(
          unionOfPages(conversationIds, (conversationId) => messagePage(integrationId, conversationId, window)),
        )
        return groupBy(conversationIds, (result.rows as MessageRecord[]).map(messageOf), (row) => row.conversationId)
      },
      setFeedback: async (integrationId, id, feedback) =>
        first(
          await db
            .update(messages)
            // SQL NULL, as on SQLite: never the JSON text 'null'.
            .set({ feedback: feedback === null ? sql`NULL` : feedback })
            .where(and(eq(messages.integrationId, integrationId), eq(messages.id, id)))
            .returning(),
        ),
      update: async (integrationId, id, { payload, metadata }) =>
        first(
          await db
            .update(messages)
            .set({ payload, metadata: metadata === null ? sql`NULL` : metadata })
            .where(and(eq(messages.integrationId, integrationId), eq(messages.id, id)))
            .returning(),
        ),
    },

    files: {
      insert: async (row) => {
        await db.insert(files).values(row)
      },
      find: async (integrationId, id) =>
        first(await db.select().from(files).where(and(eq(files.integrationId, integrationId), eq(files.id, id)))),
      markUploaded: async (integrationId, id, at) =>
        (
          await db
            .update(files)
            .set({ uploadedAt: at })
            .where(and(eq(files.integrationId, integrationId), eq(files.id, id), isNull(files.uploadedAt)))
            .returning({ id: files.id })
        ).length > 0,
      sizeOfUser: async (integrationId, userId) =>
        Number(
          first(
            await db
              .select({ total: sql<string>`coalesce(sum(${files.size}), 0)` })
              .from(files)
              .where(and(eq(files.integrationId, integrationId), eq(files.userId, userId))),
          )?.total ?? 0,
        ),
      idsOfUser: async (integrationId, userId) =>
        (
          await db
            .select({ id: files.id })
            .from(files)
            .where(and(eq(files.integrationId, integrationId), eq(files.userId, userId)))
        ).map((row) => row.id),
      idsOfConversation: async (integrationId, conversationId) =>
        (
          await db
            .select({ id: files.id })
            .from(files)
            .where(and(eq(files.integrationId, integrationId), eq(files.conversationId, conversationId)))
        ).map((row) => row.id),
      idsOfIntegration: async (integrationId) =>
        (await db.select({ id: files.id }).from(files).where(eq(files.integrationId, integrationId))).map((row) => row.id),
    },

    events: {
      insert: async (row) => {
        await db.insert(events).values(row)
      },
      find: async (integrationId, id) =>
        first(await db.select().from(events).where(and(eq(events.integrationId, integrationId), eq(events.id, id)))),
    },

    bots: {
      insert: async (row) => {
        await db.insert(bots).values(row)
      },
      find: async (workspaceId, id) =>
        first(await db.select().from(bots).where(and(eq(bots.workspaceId, workspaceId), eq(bots.id, id)))),
      update: async (workspaceId, id, changes) =>
        first(
          await db
            .update(bots)
            .set(changes)
            .where(and(eq(bots.workspaceId, workspaceId), eq(bots.id, id)))
            .returning(),
        ),
      delete: async (workspaceId, id) =>
        (await db.delete(bots).where(and(eq(bots.workspaceId, workspaceId), eq(bots.id, id))).returning({ id: bots.id })).length > 0,
      integrationOf: async (botId) => first(await db.select().from(chatIntegrations).where(eq(chatIntegrations.botId, botId))),
      page: async (workspaceId, sort, window) => {
        const page = keyset([bots[sort.field], bots.id], sort.direction, window)
        return db
          .select()
          .from(bots)
          .where(and(eq(bots.workspaceId, workspaceId), page.where))
          .orderBy(...page.orderBy)
          .limit(window.limit)
      },
      ofIntegration: async (integrationId) =>
        first(
          await db
            .select({ bot: bots, integration: chatIntegrations })
            .from(chatIntegrations)
            .innerJoin(bots, eq(bots.id, chatIntegrations.botId))
            .where(eq(chatIntegrations.id, integrationId)),
        ),
      markUrlGone: async (id, url) => {
        await db.update(bots).set({ goneUrl: url }).where(eq(bots.id, id))
      },
    },

    botDeliveries: {
      insert: async (row) => {
        await db.insert(botDeliveries).values(row)
      },
      due: async (now, limit): Promise<DueDelivery[]> =>
        dueDelivery()
          .where(and(lte(botDeliveries.nextAttemptAt, now), unleased(now), deliverable))
          .orderBy(asc(botDeliveries.nextAttemptAt), asc(botDeliveries.seq))
          .limit(limit) as Promise<DueDelivery[]>,
      claim: async (now, limit, leaseUntil): Promise<DueDelivery[]> => {
        // The rows are locked, those another instance is claiming skipped; a row claimed and
        // committed meanwhile is re-checked against `unleased` once its lock is granted.
        const claimed = await db
          .select({ seq: botDeliveries.seq })
          .from(botDeliveries)
          .innerJoin(bots, eq(bots.id, botDeliveries.botId))
          .where(and(lte(botDeliveries.nextAttemptAt, now), unleased(now), deliverable))
          .orderBy(asc(botDeliveries.nextAttemptAt), asc(botDeliveries.seq))
          .limit(limit)
          .for('update', { of: botDeliveries, skipLocked: true })
        if (claimed.length === 0) return []
        const seqs = claimed.map((row) => row.seq)
        await db.update(botDeliveries).set({ leasedUntil: leaseUntil }).where(inArray(botDeliveries.seq, seqs))
        return (await dueDelivery()
          .where(inArray(botDeliveries.seq, seqs))
          .orderBy(asc(botDeliveries.nextAttemptAt), asc(botDeliveries.seq))) as DueDelivery[]
      },
      following: async (integrationId, conversationId, afterSeq, now) =>
        first(
          (await dueDelivery()
            .where(
              and(
                sql`${botDeliveries.seq} = (select min(next.seq) from ${botDeliveries} as next where next.integration_id = ${integrationId}
                  and next.conversation_id = ${conversationId} and next.seq > ${afterSeq})`,
                lte(botDeliveries.nextAttemptAt, now),
                deliveryOn,
              ),
            )) as DueDelivery[],
        ),
      nextDueAfter: async (now) => {
        // A delivery another instance holds comes due for the others when its lease runs out.
        const dueAt = sql<string>`greatest(${botDeliveries.nextAttemptAt}, coalesce(${botDeliveries.leasedUntil}, ''))`
        const [row] = await db
          .select({ at: min(dueAt) })
          .from(botDeliveries)
          .innerJoin(bots, eq(bots.id, botDeliveries.botId))
          .where(and(gt(dueAt, now), deliverable))
        return row?.at ?? undefined
      },
      reschedule: async (id, attempts, nextAttemptAt) =>
        (
          await db
            .update(botDeliveries)
            .set({ attempts, nextAttemptAt, leasedUntil: null })
            .where(eq(botDeliveries.id, id))
            .returning({ id: botDeliveries.id })
        ).length > 0,
      remove: async (id) =>
        (await db.delete(botDeliveries).where(eq(botDeliveries.id, id)).returning({ id: botDeliveries.id })).length > 0,
      backlog: async () => {
        const [row] = await db.select({ pending: count(), oldest: min(botDeliveries.createdAt) }).from(botDeliveries)
        return { pending: row?.pending ?? 0, oldestCreatedAt: row?.oldest ?? undefined }
      },
    },

    botStates: {
      find: async (botId, conversationId, userId) =>
        db
          .select()
          .from(botStates)
          .where(
            and(
              eq(botStates.botId, botId),
              or(
                and(eq(botStates.scope, 'conversation'), eq(botStates.scopeId, conversationId)),
                and(eq(botStates.scope, 'user'), eq(botStates.scopeId, userId)),
                and(eq(botStates.scope, 'bot'), eq(botStates.scopeId, '')),
              ),
            ),
          ),
      put: async (row) => {
        await db
          .insert(botStates)
          .values(row)
          .onConflictDoUpdate({
            target: [botStates.botId, botStates.scope, botStates.scopeId],
            set: { value: sql`excluded.value`, updatedAt: sql`excluded.updated_at` },
          })
      },
      findScope: async (botId, scope, scopeId) =>
        first(
          await db
            .select()
            .from(botStates)
            .where(and(eq(botStates.botId, botId), eq(botStates.scope, scope), eq(botStates.scopeId, scopeId))),
        ),
    },

    botApiKeys: {
      insert: async (row) => {
        await db.insert(botApiKeys).values(row)
      },
      byHash: async (keyHash) =>
        first(
          await db
            .select({ key: botApiKeys, bot: bots, integration: chatIntegrations })
            .from(botApiKeys)
            .innerJoin(bots, eq(bots.id, botApiKeys.botId))
            .innerJoin(chatIntegrations, eq(chatIntegrations.botId, bots.id))
            .where(eq(botApiKeys.keyHash, keyHash)),
        ),
      ofBot: async (botId) =>
        db
          .select()
          .from(botApiKeys)
          .where(eq(botApiKeys.botId, botId))
          .orderBy(asc(botApiKeys.createdAt), asc(botApiKeys.id)),
      delete: async (workspaceId, id) =>
        (
          await db
            .delete(botApiKeys)
            .where(
              and(
                eq(botApiKeys.id, id),
                inArray(botApiKeys.botId, db.select({ id: bots.id }).from(bots).where(eq(bots.workspaceId, workspaceId))),
              ),
            )
            .returning({ id: botApiKeys.id })
        ).length > 0,
    },

    botEvents: {
      insert: async (row) => {
        await db.insert(botEvents).values(row)
      },
    },

    botLogs: {
      insert: async (row) => {
        await db.insert(botLogs).values(row)
      },
      page: async (botId, filter, window) => {
        const page = keyset([botLogs.timestamp, botLogs.id], 'desc', window)
        return db
          .select()
          .from(botLogs)
          .where(
            and(
              eq(botLogs.botId, botId),
              gte(botLogs.timestamp, filter.timeStart),
              filter.timeEnd === undefined ? undefined : lte(botLogs.timestamp, filter.timeEnd),
              filter.conversationId === undefined ? undefined : eq(botLogs.conversationId, filter.conversationId),
              filter.userId === undefined ? undefined : eq(botLogs.userId, filter.userId),
              filter.level === undefined ? undefined : eq(botLogs.level, filter.level as 'info'),
              page.where,
            ),
          )
          .orderBy(...page.orderBy)
          .limit(window.limit)
      },
    },

    tenancy: {
      anyWorkspace: async () => {
        if (inUnit) await db.execute(sql`select pg_advisory_xact_lock(${bootstrapLock})`)
        return (await db.select({ id: workspaces.id }).from(workspaces).limit(1)).length > 0
      },
      insertWorkspace: async (row) => {
        await db.insert(workspaces).values(row)
      },
      insertAdminToken: async (row) => {
        await db.insert(adminTokens).values(row)
      },
      adminTokenByHash: async (tokenHash) => first(await db.select().from(adminTokens).where(eq(adminTokens.tokenHash, tokenHash))),
      insertChatIntegration: async (row) => {
        await db.insert(chatIntegrations).values(row)
      },
      chatIntegrationByWebhook: async (webhookId) =>
        first(await db.select().from(chatIntegrations).where(eq(chatIntegrations.webhookId, webhookId))),
      tenants: async () => ({
        workspaces: await db.select({ id: workspaces.id, name: workspaces.name }).from(workspaces).orderBy(asc(workspaces.createdAt)),
        adminTokens: await db
          .select({ id: adminTokens.id, workspaceId: adminTokens.workspaceId, createdAt: adminTokens.createdAt })
          .from(adminTokens)
          .orderBy(asc(adminTokens.createdAt), asc(adminTokens.id)),
        integrations: await db
          .select({ workspaceId: bots.workspaceId, botId: bots.id, botName: bots.name, webhookId: chatIntegrations.webhookId })
          .from(chatIntegrations)
          .innerJoin(bots, eq(bots.id, chatIntegrations.botId))
          .orderBy(asc(bots.createdAt), asc(bots.id)),
      }),
      deleteAdminToken: async (id) => {
        await db.delete(adminTokens).where(eq(adminTokens.id, id))
      },
      setPersonalEncryptionKey: async (integrationId, key) => {
        await db.update(chatIntegrations).set({ personalEncryptionKey: key }).where(eq(chatIntegrations.id, integrationId))
      },
    },
  }
}

