import * as postgres from '../../src/db/postgres/schema.ts'
import * as sqlite from '../../src/db/sqlite/schema.ts'
import { onPostgres } from './engine.ts'

/**
 * The tables of the engine the suite runs on, for queries through `t.db` (typed as SQLite's; see
 * openTestStore). Await the queries: never .all()/.get()/.run(), which only SQLite has.
 */
export const tables = (onPostgres ? postgres : sqlite) as unknown as typeof sqlite
