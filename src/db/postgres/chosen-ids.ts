import { and, eq } from 'drizzle-orm'
import type { NodePgQueryResultHKT } from 'drizzle-orm/node-postgres'
import type { PgDatabase } from 'drizzle-orm/pg-core'
import type { ChosenIdQueries } from '../store.ts'
import { conversations, users } from './schema.ts'
import type * as schema from './schema.ts'

/** A pool or a transaction (queries.ts's PgDb, named here so that neither file imports the other). */
type PgDb = PgDatabase<NodePgQueryResultHKT, typeof schema>

/** The chosen-id marks (the chat integration's `fid` tags) as PostgreSQL statements. */
export function postgresChosenIds(db: PgDb): ChosenIdQueries {
  const marking = (table: typeof users | typeof conversations) => async (integrationId: string, id: string) => {
    await db
      .update(table)
      .set({ idChosen: true })
      .where(and(eq(table.integrationId, integrationId), eq(table.id, id)))
  }
  return { markUser: marking(users), markConversation: marking(conversations) }
}
