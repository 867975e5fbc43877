import type { SQL } from 'drizzle-orm'
import type { NodePgQueryResultHKT } from 'drizzle-orm/node-postgres'
import type { PgDatabase } from 'drizzle-orm/pg-core'
import type { On, Query, Run } from '../query.ts'
import type { SqliteDb } from '../sqlite/connection.ts'
import { holdInsert } from './deferred-writes.ts'
import * as tables from './schema.ts'

/** A pool or a transaction: the named queries run the same on both. */
export type PgDb = PgDatabase<NodePgQueryResultHKT, typeof tables>

/**
 * The shapes of src/db/queries/ on a PostgreSQL pool or transaction: built with the values on
 * every call and sent as a parameterized query (node-postgres; the server plans it). The handle and
 * tables are PostgreSQL's, seen through SQLite's types (the reference dialect): a shape awaits
 * nothing itself, so the same builder calls make PostgreSQL statements here.
 */
export function postgresRun(db: PgDb, { holdInserts = false }: { holdInserts?: boolean } = {}): Run {
  const on: On = { db: db as unknown as SqliteDb, t: tables }
  // A unit's connection (a transaction's session holds it) and drizzle's logger, for the inserts it holds.
  const session = (db as unknown as { session: { client: object; logger: { logQuery(text: string, params: unknown[]): void } } }).session
  const rows = async <V, R>(query: Query<V, R>, values: V): Promise<R[]> => {
    const found = await (query.build(on, values, query.key ? query.key(values) : 0) as unknown as Promise<R[]>)
    const { given } = query
    return given ? found.map((row) => given.whole(on.t, row as Record<string, unknown>, values as Record<string, unknown>) as R) : found
  }
  return {
    on,
    one: async (query, values) => (await rows(query, values))[0],
    all: rows,
    run: async (query, values) => {
      if (holdInserts) {
        // Nothing is read back: an insert goes with the unit's next statement (deferred-writes.ts).
        const built = query.build(on, values, query.key ? query.key(values) : 0) as unknown as { toSQL(): { sql: string; params: unknown[] } }
        const { sql: text, params } = built.toSQL()
        if (holdInsert(session.client, text, params)) return session.logger.logQuery(text, params)
        await built
        return
      }
      await rows(query, values)
    },
    raw: async (statement: SQL) => (await db.execute<Record<string, unknown>>(statement)).rows,
    exec: async (statement: SQL) => (await db.execute(statement)).rowCount ?? 0,
  }
}
