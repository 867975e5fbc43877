import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import * as schema from './schema.ts'

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database }

// src/db and dist/db are both two levels below the project root, so this holds built or not.
const migrationsFolder = resolve(dirname(fileURLToPath(import.meta.url)), '../../drizzle')

export interface DbOptions {
  /** Called with every SQL statement Drizzle runs (statement counts, debugging). */
  onQuery?: (sql: string, params: unknown[]) => void
}

export function openDb(databaseUrl: string, { onQuery }: DbOptions = {}): Db {
  if (databaseUrl !== ':memory:') mkdirSync(dirname(resolve(databaseUrl)), { recursive: true })
  const sqlite = new Database(databaseUrl)
  sqlite.pragma('journal_mode = WAL')
  // FULL: a commit is fsynced before the 200 goes out, so an acknowledged write survives a crash.
  sqlite.pragma('synchronous = FULL')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma('busy_timeout = 5000')
  const logger = onQuery ? { logQuery: onQuery } : undefined
  const db = drizzle(sqlite, { schema, logger }) as Db
  migrate(db, { migrationsFolder })
  return db
}

export function closeDb(db: Db): void {
  if (db.$client.open) db.$client.close()
}
