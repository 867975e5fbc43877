import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import * as schema from '../schema.ts'

export type SqliteDb = BetterSQLite3Database<typeof schema> & { $client: Database.Database }

// src/db/sqlite and dist/db/sqlite are both three levels below the project root, so this holds built or not.
const migrationsFolder = resolve(dirname(fileURLToPath(import.meta.url)), '../../../drizzle')

export type QueryLog = (sql: string, params: unknown[]) => void

const withDrizzle = (connection: Database.Database, onQuery: QueryLog | undefined): SqliteDb =>
  drizzle(connection, { schema, logger: onQuery ? { logQuery: onQuery } : undefined }) as SqliteDb

/** The one connection that writes: WAL, every commit fsynced, migrations applied. */
export function openWriter(path: string, onQuery?: QueryLog): SqliteDb {
  const connection = new Database(path)
  connection.pragma('journal_mode = WAL')
  // FULL: a commit is fsynced before it returns, so an acknowledged write survives a crash or a
  // power loss. Group commit makes that one fsync per batch of requests, not one per request.
  connection.pragma('synchronous = FULL')
  connection.pragma('foreign_keys = ON')
  connection.pragma('busy_timeout = 5000')
  const db = withDrizzle(connection, onQuery)
  migrate(db, { migrationsFolder })
  return db
}

/**
 * A read-only connection beside the writer: in WAL mode it reads the last committed state and is
 * never blocked by the writer, so a batch's uncommitted rows are never seen.
 */
export function openReader(path: string, onQuery?: QueryLog): SqliteDb {
  const connection = new Database(path, { readonly: true, fileMustExist: true })
  connection.pragma('busy_timeout = 5000')
  return withDrizzle(connection, onQuery)
}
