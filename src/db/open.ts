import type { Store } from './store.ts'
import { openSqliteStore, type SqliteStoreOptions } from './sqlite/store.ts'

export type StoreOptions = SqliteStoreOptions

/**
 * The store DATABASE_URL names, migrated and ready: an SQLite file path (or `:memory:`), the
 * embedded default. (Async, as a server engine's would be.)
 */
export async function openStore(databaseUrl: string, options: StoreOptions = {}): Promise<Store> {
  return openSqliteStore(databaseUrl, options)
}
