import { and, eq, sql, type SQL } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import { query, type Run } from '../query.ts'
import type { MessageQueries, UserQueries } from '../store.ts'

/*
 * Lists of ids on PostgreSQL, bound as one array parameter (`= any($n::text[])`) where drizzle's
 * inArray writes one per id: one statement serves lists of every length, prepared once per
 * connection. With one parameter per id, each length was a text of its own, and past 32 ids
 * (maxListedIds) a statement drizzle built on every call, which PostgreSQL then parsed and planned:
 * under a stream of messages, a settlement reads and removes its run of 30–50 deliveries so
 * (docs/internals/performance.md).
 */

/** `column = any(:name)`, the call's value `name` a list of ids (passed as a PostgreSQL text[]). */
export const anyOf = (column: SQLiteColumn, name: string): SQL<boolean> => sql`${column} = any(${sql.placeholder(name)}::text[])`

type Ids = { integrationId: string; ids: string[] }

const messagesById = query((on, v: Ids) =>
  on.db.select().from(on.t.messages).where(and(eq(on.t.messages.integrationId, v.integrationId), anyOf(on.t.messages.id, 'ids'))),
)

const usersById = query((on, v: Ids) =>
  on.db.select().from(on.t.users).where(and(eq(on.t.users.integrationId, v.integrationId), anyOf(on.t.users.id, 'ids'))),
)

/** The storage API's lookups of many ids, each one statement whatever their number. */
export const postgresIdLists = (run: Run): { messages: Pick<MessageQueries, 'findMany'>; users: Pick<UserQueries, 'findMany'> } => ({
  messages: { findMany: async (integrationId, ids) => (ids.length === 0 ? [] : run.all(messagesById, { integrationId, ids: [...ids] })) },
  users: { findMany: async (integrationId, ids) => (ids.length === 0 ? [] : run.all(usersById, { integrationId, ids: [...ids] })) },
})
