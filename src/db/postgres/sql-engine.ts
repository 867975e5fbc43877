import type * as sqliteSchema from '../schema.ts'
import { sharedQueries } from '../shared-queries.ts'
import type { Queries, SharedQueries } from '../store.ts'
import type { PgDb } from './queries.ts'
import * as schema from './schema.ts'

/** The queries written once for both engines (src/db/shared-queries.ts), beside PostgreSQL's own, on a pool or a transaction. */
export const withSharedQueries = (queries: Queries, db: PgDb): Queries & SharedQueries => ({
  ...queries,
  ...sharedQueries({
    // The same table and column names as SQLite's, whose row shapes both engines return.
    tables: schema as unknown as typeof sqliteSchema,
    all: async (query) => (await db.execute(query)).rows,
    run: async (query) => (await db.execute(query)).rowCount ?? 0,
  }),
})
