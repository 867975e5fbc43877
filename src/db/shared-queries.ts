import { erasureQueries } from './erasure.ts'
import { retentionQueries } from './retention.ts'
import type { SqlEngine } from './sql-engine.ts'
import type { SharedQueries } from './store.ts'
import { userRecordQueries } from './user-records.ts'

/** The queries written once for both engines, on one engine's connection (or transaction). */
export const sharedQueries = (engine: SqlEngine): SharedQueries => ({
  erasure: erasureQueries(engine),
  userRecords: userRecordQueries(engine),
  retention: retentionQueries(engine),
})
