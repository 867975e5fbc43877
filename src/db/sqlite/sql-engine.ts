import * as schema from '../schema.ts'
import { sharedQueries } from '../shared-queries.ts'
import type { Queries, SharedQueries } from '../store.ts'
import type { SqliteDb } from './connection.ts'

/** The queries written once for both engines (src/db/shared-queries.ts), beside SQLite's own, on one connection. */
export const withSharedQueries = (queries: Queries, db: SqliteDb): Queries & SharedQueries => ({
  ...queries,
  ...sharedQueries({
    tables: schema,
    all: async (query) => db.all(query),
    run: async (query) => db.run(query).changes,
  }),
})
