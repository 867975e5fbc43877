import { randomBytes } from 'node:crypto'
import * as postgresTables from '../../src/db/postgres/schema.ts'
import * as sqliteTables from '../../src/db/sqlite/schema.ts'
import { isPostgresUrl } from '../../src/db/open.ts'
import { PostgresStore } from '../../src/db/postgres/store.ts'
import type { SqliteDb } from '../../src/db/sqlite/connection.ts'
import { openSqliteStore } from '../../src/db/sqlite/store.ts'
import type { EngineStore, Store } from '../../src/db/store.ts'

/**
 * The engine the suite runs on: SQLite (a private temporary file per app) by default, PostgreSQL
 * when TEST_DATABASE_URL is `postgres://…`, each app then on a schema of its own, dropped after.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined
export const onPostgres = TEST_DATABASE_URL !== undefined && isPostgresUrl(TEST_DATABASE_URL)

export interface TestStore {
  store: EngineStore
  /**
   * Resolves once the database is ready (the PostgreSQL schema made and migrated), rejecting loudly
   * if it is not; undefined when it is ready at once (SQLite), so that a first write is submitted
   * synchronously, ahead of any other.
   */
  opened: Promise<void> | undefined
  /**
   * The engine's drizzle handle, to look at the tables directly. Typed as SQLite's so that tests
   * import the tables of src/db/sqlite/schema.ts; on PostgreSQL it is the PostgreSQL handle, and the
   * tables a test names are mapped by `tables` in test/helpers/tables.ts. Use it with `await`
   * only (never .all()/.get()/.run(), which only SQLite has).
   */
  db: SqliteDb
  /** The tables to query `db` with: the engine's (typed as SQLite's). */
  tables: typeof sqliteTables
  /** Rows of a raw SQL query, `?` placeholders (rewritten as $n on PostgreSQL). */
  query<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T[]>
  /** Closes the store (and drops the PostgreSQL schema). */
  dispose(): Promise<void>
  /** Another store on the same database, as another instance's (PostgreSQL only); its dispose closes it alone. */
  another(): TestStore
}

let counter = 0

/**
 * A store for one test app, on the suite's engine; `databaseUrl` forces one: an SQLite file, or a
 * PostgreSQL server (`postgres://…`, a schema of its own there).
 */
export function openTestStore(options: { databaseUrl?: string; onQuery?: (sql: string) => void; beforeSync?: () => void } = {}): TestStore {
  const postgresUrl =
    options.databaseUrl === undefined ? (onPostgres ? TEST_DATABASE_URL : undefined) : isPostgresUrl(options.databaseUrl) ? options.databaseUrl : undefined
  if (postgresUrl === undefined) {
    const store = openSqliteStore(options.databaseUrl ?? ':memory:', { onQuery: options.onQuery, beforeSync: options.beforeSync })
    return {
      store,
      opened: undefined,
      db: store.db,
      tables: sqliteTables,
      query: async <T>(sql: string, ...params: unknown[]) => {
        const statement = store.db.$client.prepare(sql)
        if (statement.reader) return statement.all(...params) as T[]
        statement.run(...params)
        return []
      },
      dispose: () => store.close(),
      another: () => {
        throw new Error('one process owns an SQLite database: another instance needs PostgreSQL')
      },
    }
  }
  const schema = `test_${process.pid}_${++counter}_${randomBytes(4).toString('hex')}`
  return postgresTestStore(postgresUrl, schema, options.onQuery)
}

/** A store on `schema` (migrated first when no `migrated` is given: the first instance's), dropped by the first's dispose. */
function postgresTestStore(postgresUrl: string, schema: string, onQuery?: (sql: string) => void, migrated?: Promise<void>): TestStore {
  const pg = new PostgresStore(postgresUrl, { schema, poolSize: 4, onQuery })
  const opened = (migrated ?? pg.migrate()).catch((error: unknown) => {
    throw new Error(`${postgresUrl}: PostgreSQL is required and did not answer: ${String(error)}`, {
      cause: error,
    })
  })
  const gate =
    <A extends unknown[], T>(run: (...args: A) => Promise<T>) =>
    async (...args: A) => {
      await opened
      return run(...args)
    }
  /** `on`, its calls waiting for the migrations. */
  const gated = (on: Store): EngineStore =>
    ({
      files: {
        stage: gate((bytes) => on.files.stage(bytes)),
        read: gate((id) => on.files.read(id)),
        remove: gate((ids) => on.files.remove(ids)),
      },
      shared: true,
      check: gate(() => on.check()),
      read: gate((work) => on.read(work)),
      write: gate((work) => on.write(work)),
      writeStatement: gate((work) => on.writeStatement!(work)),
      close: () => on.close(),
    }) as EngineStore
  // The delivery worker's pool, as a server has it (PostgresStore.background).
  const store: EngineStore = { ...gated(pg), background: () => gated(pg.background()) }
  const query = async <T>(sql: string, ...params: unknown[]) => {
    await opened
    let n = 0
    return (
      await pg.pool.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      )
    ).rows as T[]
  }
  return {
    store,
    opened,
    db: pg.db as unknown as SqliteDb,
    tables: postgresTables as unknown as typeof sqliteTables,
    query,
    another: () => postgresTestStore(postgresUrl, schema, undefined, opened),
    dispose: async () => {
      await opened.catch(() => undefined)
      await pg.close()
      if (migrated) return
      const { Client } = (await import('pg')).default
      const admin = new Client({ connectionString: postgresUrl })
      await admin.connect()
      try {
        await admin.query(`drop schema if exists "${schema}" cascade`)
      } finally {
        await admin.end()
      }
    },
  }
}
