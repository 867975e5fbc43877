import { sql } from 'drizzle-orm'
import { queriesOf } from '../queries/index.ts'
import { locking, query, type Run } from '../query.ts'
import type { Queries } from '../store.ts'
import { postgresDeliveries } from './delivery-claim.ts'
import { integrationVersionQueries } from './integration-versions.ts'
import { participationAndPageInOne } from '../queries/participation-page.ts'

/** The advisory lock key that serializes first-start bootstraps of several instances ("confab-b"). */
const bootstrapLock = 0x636f6e66_61622d62n

/** A transaction-scoped advisory lock: a locking read, inside its unit's transaction. */
const bootstrap = locking(query(() => sql`select pg_advisory_xact_lock(${sql.raw(String(bootstrapLock))})`))

/**
 * Every named query of the storage API on PostgreSQL, as `run` runs their shapes (a read, a unit of
 * work: `inUnit`). Beside the deliveries (delivery-claim.ts) and the page read with its participation
 * in one statement (src/db/queries/participation-page.ts), one differs from SQLite's: `anyWorkspace` inside a unit
 * of work takes a transaction-scoped advisory lock first, so that N instances starting at once on an
 * empty database make one first tenant, not N.
 */
export function postgresQueries(run: Run, { inUnit }: { inUnit: boolean }): Queries {
  const common = queriesOf(run, postgresDeliveries(run))
  const queries = {
    ...common,
    conversations: { ...common.conversations, ...participationAndPageInOne(run) },
    integrationVersions: integrationVersionQueries(run),
  }
  if (!inUnit) return queries
  return {
    ...queries,
    tenancy: {
      ...queries.tenancy,
      anyWorkspace: async () => {
        await run.run(bootstrap, {})
        return queries.tenancy.anyWorkspace()
      },
    },
  }
}
