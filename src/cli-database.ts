// Which database a command of the command line works on: the one the server uses, found from the same
// settings, never a new one made by mistake.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { type Config, defaultDatabaseUrl } from './config.ts'
import { isPostgresUrl, openStore } from './db/open.ts'
import { DatabaseInUseError } from './db/sqlite/process-lock.ts'
import { ReplicaStore } from './db/sqlite/replica-store.ts'
import type { Store } from './db/store.ts'

/**
 * The SQLite file DATABASE_URL names, resolved as the server resolves it (from the folder it runs in:
 * `npm start` and `npm run confab` both run in the package's folder), once it is known to exist: a
 * command given the wrong folder or DATABASE_URL says so instead of creating an empty database there.
 */
export function existingSqliteFile({ databaseUrl }: Pick<Config, 'databaseUrl'>, env: NodeJS.ProcessEnv = process.env): string {
  const path = resolve(databaseUrl)
  if (existsSync(path)) return path
  const named = env.DATABASE_URL
    ? `DATABASE_URL=${env.DATABASE_URL}`
    : env.DATABASE_URL_FILE
      ? `DATABASE_URL from DATABASE_URL_FILE=${env.DATABASE_URL_FILE}`
      : `DATABASE_URL is unset, so ${defaultDatabaseUrl} from the folder the command runs in (${process.cwd()})`
  throw new Error(`no database at ${path} (${named}): set DATABASE_URL to the database the server uses; the server's first start creates it`)
}

/**
 * The store to read from. On SQLite, with a server using the file, a read-only connection beside it
 * (WAL lets it read the last commit without taking the server's lock or blocking it); otherwise the
 * store, its migrations applied. PostgreSQL is shared by nature.
 */
export async function openForReading(config: Pick<Config, 'databaseUrl'>): Promise<Store> {
  if (isPostgresUrl(config.databaseUrl) || config.databaseUrl === ':memory:') return openStore(config.databaseUrl)
  const path = existingSqliteFile(config)
  try {
    return await openStore(path)
  } catch (error) {
    if (!(error instanceof DatabaseInUseError)) throw error
    // The server holds the lock and has migrated the file: its reads are ours too.
    return new ReplicaStore({ path, durability: new SharedArrayBuffer(8), tenancy: new SharedArrayBuffer(4), participations: new SharedArrayBuffer(4) })
  }
}

/** The store to change: on SQLite, only with no server using the file (its lock; it keeps what it has read). */
export async function openForWriting(config: Pick<Config, 'databaseUrl'>): Promise<Store> {
  if (isPostgresUrl(config.databaseUrl) || config.databaseUrl === ':memory:') return openStore(config.databaseUrl)
  try {
    return await openStore(existingSqliteFile(config))
  } catch (error) {
    if (error instanceof DatabaseInUseError) {
      throw new DatabaseInUseError(`${error.message} (showing the credentials works beside a running server; changing them on SQLite does not)`)
    }
    throw error
  }
}
