import { and, eq } from 'drizzle-orm'
import type { ChosenIdQueries } from '../store.ts'
import type { PgDb } from './queries.ts'
import { conversations, users } from './schema.ts'

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
