import { and, eq, inArray, type SQL, type Table } from 'drizzle-orm'
import { byShape, keyset, limitOf, type On, query, rowValues, type Run, windowValues, type WindowValues } from '../query.ts'
import type { ConversationRow, UserRow } from '../schema.ts'
import type { ConversationQueries, Participation } from '../store.ts'
import { idsKey } from './users.ts'

type Id = { integrationId: string; id: string }

const find = query(({ db, t: { conversations } }, v: Id) =>
  db
    .select()
    .from(conversations)
    .where(and(eq(conversations.integrationId, v.integrationId), eq(conversations.id, v.id))),
)

const insert = query(({ db, t: { conversations } }, row: ConversationRow) =>
  db.insert(conversations).values(rowValues(conversations, row)).onConflictDoNothing().returning(),
)

const remove = query(({ db, t: { conversations } }, v: Id) =>
  db.delete(conversations).where(and(eq(conversations.integrationId, v.integrationId), eq(conversations.id, v.id))),
)

/** Conversations, each with the caller's user row when the caller participates in it. */
export const participationOf = (
  { db, t: { conversations, participants, users } }: On,
  v: { integrationId: string; userId: string },
  which: (id: typeof conversations.id) => SQL,
  /** Columns read beside them (PostgreSQL's integration version: src/db/postgres/queries.ts; a page of messages). */
  beside: Record<string, SQL> = {},
  /** How the conversation's and the user's columns are read (as they are, by default). */
  read: <T extends Table>(table: T) => T | Record<string, SQL> = (table) => table,
) =>
  db
    .select({ conversation: read(conversations), participant: read(users), ...beside } as { conversation: typeof conversations; participant: typeof users })
    .from(conversations)
    .leftJoin(
      participants,
      and(eq(participants.integrationId, conversations.integrationId), eq(participants.conversationId, conversations.id), eq(participants.userId, v.userId)),
    )
    .leftJoin(users, and(eq(users.integrationId, participants.integrationId), eq(users.id, participants.userId)))
    .where(and(eq(conversations.integrationId, v.integrationId), which(conversations.id)))

type Of = { integrationId: string; userId: string }

/** The caller's participation in one conversation and in a list of them, with the columns `beside` names (PostgreSQL's integration version). */
export const participationShapes = (beside?: (on: On, v: Of) => Record<string, SQL>) => ({
  participation: query((on, v: Of & { conversationId: string }) => participationOf(on, v, (id) => eq(id, v.conversationId), beside?.(on, v))),
  participations: query(
    (on, v: Of & { conversationIds: string[] }) => participationOf(on, v, (id) => inArray(id, v.conversationIds), beside?.(on, v)),
    (v) => idsKey(v.conversationIds),
  ),
})

const { participation, participations } = participationShapes()

const pageOfParticipant = query(({ db, t: { conversations, participants } }, v: { integrationId: string; userId: string } & WindowValues, key) => {
  const page = keyset([conversations.createdAt, conversations.id], 'desc', v, key)
  return db
    .select({ conversation: conversations })
    .from(participants)
    .innerJoin(conversations, and(eq(conversations.integrationId, participants.integrationId), eq(conversations.id, participants.conversationId)))
    .where(and(eq(participants.integrationId, v.integrationId), eq(participants.userId, v.userId), page.where))
    .orderBy(...page.orderBy)
    .limit(limitOf(v.limit))
}, byShape)

type ParticipationRow = { conversation: ConversationRow; participant: UserRow | null }

export const toParticipation = (row: ParticipationRow | undefined): Participation => ({
  conversation: row?.conversation,
  participant: row?.participant ?? undefined,
})

/** The participations found, by conversation id. */
export const participationsFound = (rows: readonly ParticipationRow[]) => new Map(rows.map((row) => [row.conversation.id, toParticipation(row)]))

/** The conversation queries but the page read with its participation (participation-page.ts, which builds on these). */
export const conversationQueries = (run: Run): Omit<ConversationQueries, 'participationWithPage'> => ({
  find: (integrationId, id) => run.one(find, { integrationId, id }),
  insert: (row) => run.one(insert, row),
  delete: (integrationId, id) => run.run(remove, { integrationId, id }),
  participation: async (integrationId, conversationId, userId) => toParticipation(await run.one(participation, { integrationId, conversationId, userId })),
  participations: async (integrationId, conversationIds, userId) =>
    conversationIds.length === 0
      ? new Map()
      : participationsFound(await run.all(participations, { integrationId, userId, conversationIds: [...conversationIds] })),
  pageOfParticipant: async (integrationId, userId, window) =>
    (await run.all(pageOfParticipant, { integrationId, userId, ...windowValues(window) })).map((row) => row.conversation),
})
