import type { PostgresStoreOptions } from './postgres/store.ts'
import type { EngineStore } from './store.ts'
import { openSqliteStore, type SqliteStoreOptions } from './sqlite/store.ts'

export const isPostgresUrl = (url: string) => /^postgres(ql)?:\/\//i.test(url)

export type StoreOptions = SqliteStoreOptions & PostgresStoreOptions

/**
 * The store DATABASE_URL names, migrated and ready: `postgres://…` (or `postgresql://…`) for
 * PostgreSQL, which several instances may share; otherwise an SQLite file path (or `:memory:`), the
 * embedded default.
 */
export async function openStore(databaseUrl: string, options: StoreOptions = {}): Promise<EngineStore> {
  if (isPostgresUrl(databaseUrl)) {
    const { poolSize, schema, onEffectError, onQuery, connectTimeoutMs, onAvailability } = options
    // Imported when asked for: pg is not loaded by the embedded default, which starts sooner without it.
    const { openPostgresStore } = await import('./postgres/store.ts')
    return openPostgresStore(databaseUrl, { poolSize, schema, onEffectError, onQuery, connectTimeoutMs, onAvailability })
  }
  return openSqliteStore(databaseUrl, options)
}
