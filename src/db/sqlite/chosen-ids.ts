import { and, eq, sql } from 'drizzle-orm'
import { conversations, users } from '../schema.ts'
import type { ChosenIdQueries } from '../store.ts'
import type { SqliteDb } from './connection.ts'
import { runOften } from './statement.ts'

const p = sql.placeholder

/** The chosen-id marks (the chat integration's `fid` tags) as SQLite statements, prepared on first use. */
export function sqliteChosenIds(db: SqliteDb): ChosenIdQueries {
  const marking = (table: typeof users | typeof conversations) => {
    let made: ReturnType<typeof prepare> | undefined
    const prepare = () =>
      runOften(
        db
          .update(table)
          .set({ idChosen: true })
          .where(and(eq(table.integrationId, p('integrationId')), eq(table.id, p('id'))))
          .prepare(),
      )
    return async (integrationId: string, id: string) => {
      ;(made ??= prepare()).run({ integrationId, id })
    }
  }
  return { markUser: marking(users), markConversation: marking(conversations) }
}
