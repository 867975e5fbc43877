import { closeSync, fdatasync, openSync } from 'node:fs'
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import { migrationsFolder } from '../migrations.ts'
import type { QueryLog } from '../store.ts'
import * as schema from './schema.ts'
import { Database } from './driver.ts'

export type SqliteDb = BetterSQLite3Database<typeof schema> & { $client: Database }

/**
 * Every bound parameter written `+?` rather than `?`. SQLite 3.54 (better-sqlite3 13.2.0's) marks a
 * statement that joins or orders to be planned again whenever its bindings are cleared, for each
 * `column = ?` the planner looks at; better-sqlite3 clears them after every call, so each call of
 * such a statement parsed and planned it anew (about 9 µs more for a two-join participation read, 10×
 * its run). The unary plus is a no-op on a value (a parameter has no affinity either way, and an index
 * is used the same) that the planner does not look through (sqlite3ExprIsInteger).
 */
const unplannedParam = () => '+?'

function withDrizzle(connection: Database, onQuery: QueryLog | undefined): SqliteDb {
  const db = drizzle(connection, { schema, logger: onQuery ? { logQuery: onQuery } : undefined }) as SqliteDb
  // drizzle reads escapeParam off its dialect each time it writes a statement's SQL.
  ;(db as unknown as { dialect: { escapeParam: (num: number) => string } }).dialect.escapeParam = unplannedParam
  return db
}

/**
 * The one connection that writes: WAL, migrations applied. Its commits write the WAL without an
 * fsync (synchronous = NORMAL, which still syncs around checkpoints): the store makes each batch
 * durable with an fdatasync of the WAL (`walSync`) off the event loop before anything of it is
 * answered, which is what synchronous = FULL would do on the event loop.
 */
export function openWriter(path: string, onQuery?: QueryLog): SqliteDb {
  const connection = new Database(path)
  connection.pragma('journal_mode = WAL')
  connection.pragma('synchronous = NORMAL')
  connection.pragma('foreign_keys = ON')
  connection.pragma('busy_timeout = 5000')
  // A group commit's savepoint journals go beyond SQLite's 64 KiB in memory: keep the rest in
  // memory too, not in a temporary file written write by write (docs/internals/performance.md).
  connection.pragma('temp_store = MEMORY')
  const db = withDrizzle(connection, onQuery)
  migrate(db, { migrationsFolder: migrationsFolder('sqlite') })
  return db
}

/**
 * The durability barrier of a WAL database: fdatasync of its `-wal` file, on the thread pool. It
 * covers every frame written before it starts, so every COMMIT that returned by then. The file
 * lives as long as a connection is open (a checkpoint rewinds it, never removes it).
 */
export function walSync(path: string): { sync: () => Promise<void>; close: () => void } {
  let fd: number | undefined
  return {
    sync: () =>
      new Promise<void>((resolve, reject) => {
        fd ??= openSync(`${path}-wal`, 'r+')
        fdatasync(fd, (error) => (error ? reject(error) : resolve()))
      }),
    close: () => {
      if (fd !== undefined) closeSync(fd)
      fd = undefined
    },
  }
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
