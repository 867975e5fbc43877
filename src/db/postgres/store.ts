import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import pg from 'pg'
import type { FileBytes } from '../file-bytes.ts'
import { type After, type Queries, type Store, unitEffects } from '../store.ts'
import { databaseFileBytes } from './file-bytes.ts'
import { postgresQueries } from './queries.ts'
import type { PgDb } from './run.ts'
import { bare, type Statement } from './deferred-writes.ts'
import { LoneStatements } from './lone-statements.ts'
import { describedOnce } from './described-once.ts'
import { named } from './named-statements.ts'
import { ReadLanes } from './read-lanes.ts'
import { type UnitConnection, UnitSession, type UnitSessionOptions } from './unit-session.ts'
import { conflictOf, racedCodes } from './write-conflicts.ts'
import { isDatabaseUnavailable } from '../unavailable.ts'
import * as schema from './schema.ts'

// src/db/postgres and dist/db/postgres are both three levels below the project root.
const migrationsFolder = resolve(dirname(fileURLToPath(import.meta.url)), '../../../drizzle/postgres')

/** The advisory lock key under which one instance at a time applies migrations ("confab-m"). */
const migrationLock = 0x636f6e66_61622d6dn

export interface PostgresStoreOptions {
  /** Connections in the pool (DATABASE_POOL_SIZE); 10 by default (docs/guides/several-instances.md: measured). */
  poolSize?: number
  /** The schema the tables live in (its own per test); `public` by default. Created if missing. */
  schema?: string
  /** Where an `after` effect that throws is reported: its unit has committed and cannot fail any more. */
  onEffectError?: (error: unknown) => void
  /** Called with every SQL statement run (statement counts, debugging). */
  onQuery?: (sql: string, params: unknown[]) => void
  /** Connections that send reads together (read-lanes.ts), besides the pool; 2 by default, 0: reads on the pool. */
  readLanes?: number
  /**
   * How long a unit may wait for a connection, new or from the pool (DATABASE_CONNECT_TIMEOUT_SECONDS):
   * past it, it fails as the database being unavailable (503), rather than waiting longer than its
   * request may. 5 s by default.
   */
  connectTimeoutMs?: number
  /** Told when the database stops answering (a connection lost after it answered) and when a connection is made again. */
  onAvailability?: (available: boolean, error?: unknown) => void
}

/** DATABASE_CONNECT_TIMEOUT_SECONDS' default. */
export const defaultConnectTimeoutMs = 5_000

/**
 * What every connection of the store is made with: a connection or a pool's wait for one gives up
 * after `connectTimeoutMs` (a database that does not answer, a failover to an address that drops
 * packets), and TCP keepalives find a peer gone silently on a connection left idle.
 */
const connectionSettings = (databaseUrl: string, schemaName: string, connectTimeoutMs: number, onError: (error: unknown) => void) => ({
  connectionString: databaseUrl,
  pipeline: true,
  options: `-c search_path=${schemaName}`,
  connectionTimeoutMillis: connectTimeoutMs,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
  onConnectionError: onError,
})

/**
 * A pg client that prepares drizzle's parameterized queries (named-statements.ts), and whose
 * string parameters never carry U+0000: PostgreSQL's text cannot hold it (SQLite's can), so it is
 * sent as U+FFFD, the replacement character. A lookup by such a value finds nothing (as no stored
 * id has it) instead of failing; a stored name keeps every other character. JSON columns are not
 * concerned: their text escapes it (`\u0000`), which `json` keeps.
 */
class NulSafeClient extends pg.Client {
  constructor(config: pg.ClientConfig & { onConnectionError?: (error: unknown) => void }) {
    super(config)
    // A connection that fails while a unit holds it (the server crashed, restarts or fails over)
    // emits 'error', which the pool listens to only while it is idle: without a listener of its own
    // the process would end. Its queries fail with the error (503); the pool drops it once released.
    const told = config.onConnectionError
    this.on('error', (error) => told?.(error))
  }

  override query(...args: unknown[]): never {
    return this.send(args)
  }

  /**
   * A unit's statements, given by deferred-writes.ts (the last one's answer is theirs). Several go
   * at once, in one round trip (the connection pipelines them: `pipeline` below). They run inside
   * the unit's transaction (a BEGIN is the first of them, or was sent before), so one that fails
   * aborts it and those after it fail too: the first failure is the one told. Corked, they leave in
   * one write, where node-postgres writes each query apart: a write on a socket is a system call
   * that also runs the server's receive path, and the server reads them all at once.
   */
  sendAll(config: object, sending: readonly Statement[]): Promise<unknown> {
    if (sending.length === 1) {
      const [only] = sending as [Statement]
      return this.sendStatement(config, only.text, only.values)
    }
    const { stream } = this.connection
    stream.cork()
    let answers: Promise<unknown>[]
    try {
      answers = sending.map(({ text: sql, values }, i) => this.sendStatement(i === sending.length - 1 ? config : bare, sql, values))
    } finally {
      stream.uncork()
    }
    return Promise.allSettled(answers).then((results) => {
      const failed = results.find((result) => result.status === 'rejected')
      if (failed) throw failed.reason
      return (results.at(-1) as PromiseFulfilledResult<unknown>).value
    })
  }

  /** One statement of drizzle's (its config, as sent with `text`), prepared once per connection (named-statements.ts). */
  private sendStatement(config: object, text: string, values: unknown[], callback?: unknown): never {
    const sent = named(this, config, values, text)
    const query = super.query as (...a: unknown[]) => never
    // Described on its first execution only (described-once.ts): node-postgres answers such a query
    // object through its callback, not a promise.
    const once = describedOnce(sent, withoutNuls(values))
    if (once) {
      if (callback !== undefined) {
        once.callback = callback as typeof once.callback
        return query.call(this, once)
      }
      return new Promise((resolve, reject) => {
        once.callback = (error, result) => (error ? reject(error) : resolve(result))
        query.call(this, once)
      }) as never
    }
    return callback === undefined ? query.call(this, sent, withoutNuls(values)) : query.call(this, sent, withoutNuls(values), callback)
  }

  private send(args: unknown[]): never {
    const [first, second, callback] = args
    if (Array.isArray(second)) {
      // drizzle's queries (a config and its values; the pool's reads add a callback).
      if (first && typeof first === 'object') return this.sendStatement(first, (first as { text: string }).text, second, callback)
      args[1] = withoutNuls(second)
    } else if (first && typeof first === 'object' && Array.isArray((first as { values?: unknown }).values)) {
      const config = first as { values: unknown[] }
      args[0] = { ...config, values: withoutNuls(config.values) }
    }
    return (super.query as (...a: unknown[]) => never)(...args)
  }
}

const withoutNul = (value: unknown) => (typeof value === 'string' && value.includes('\0') ? value.replaceAll('\0', '\uFFFD') : value)

/** The values as sent: the same array when none carries U+0000 (most), as a copy per query was garbage. */
const withoutNuls = (values: unknown[]): unknown[] => {
  for (let i = 0; i < values.length; i++) {
    const value = values[i]
    if (typeof value === 'string' && value.includes('\0')) return values.map(withoutNul)
  }
  return values
}

/** Errors after which a unit of work is run again from its start: nothing of it was committed. */
const retryable = new Set(['40001', '40P01'])
const maxAttempts = 5

/**
 * Requests' connections per instance. 20 served more writes than 10 while a busy conversation's
 * inserts waited for its outbox's head row; since they do not (migration 0011), 20 serves about as
 * many (+5 %) with a longer tail (docs/guides/several-instances.md).
 */
const defaultPoolSize = 10

/**
 * Unit sessions kept for the next units: a unit waits for no connection before its first write, so
 * more run at once than the pool holds; past this many, a session is made for the unit and dropped.
 */
const maxFreeSessions = 64

/**
 * Read lanes per instance. One served as many pages as two (5,390 and 5,014 a second, against
 * 3,708 on the pool alone: docs/internals/performance.md); two keep reads moving past one that is
 * slow (a lane is picked by the fewest reads in flight), for one connection more.
 */
const defaultReadLanes = 2

/**
 * The storage API on PostgreSQL (node-postgres: the driver drizzle's migrator, pg-boss and most of
 * the ecosystem use, with a plain connection pool and no hidden statement cache). A unit of work is
 * one transaction on one pooled connection, its BEGIN sent with its first write and its held inserts
 * with its next statement (deferred-writes.ts); reads run on the pool. Several instances may share the
 * database: migrations are applied under an advisory lock, bot deliveries are leased.
 */
export class PostgresStore implements Store {
  readonly shared = true
  readonly pool: pg.Pool
  /** The pool as drizzle sees it, for tools and tests that look at the tables directly. */
  readonly db: NodePgDatabase<typeof schema>
  readonly schema: string
  /** The bytes of uploaded files, in the database: every instance serves them. */
  readonly files: FileBytes
  /** The pool's queries, for statements that commit by themselves (writeStatement). */
  private readonly poolQueries: Queries
  /** Reads, on lanes that send those of one turn together (read-lanes.ts). */
  private readonly readQueries: Queries
  private readonly lanes: ReadLanes | undefined
  /** Units that end with their held inserts only, written together (lone-statements.ts). */
  private readonly lone: LoneStatements
  private readonly sessionOptions: UnitSessionOptions
  /** Sessions free for the next unit (unit-session.ts), as many as units ran at once (up to `maxFreeSessions`). */
  private readonly sessions: UnitSession[] = []
  private readonly logger: { logQuery(query: string, params: unknown[]): void } | undefined
  private readonly onEffectError: (error: unknown) => void
  private readonly units = new Set<Promise<unknown>>()
  private closing: Promise<void> | undefined
  private backgroundStore: PostgresStore | undefined

  constructor(
    private readonly databaseUrl: string,
    private readonly options: PostgresStoreOptions = {},
  ) {
    const { poolSize = defaultPoolSize, schema: schemaName = 'public', onEffectError, onQuery, connectTimeoutMs = defaultConnectTimeoutMs } = options
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schemaName)) throw new Error(`not a schema name: "${schemaName}"`)
    this.schema = schemaName
    const availability = availabilityOf(options.onAvailability)
    // A connection sends the statements it is given at once without waiting for each answer
    // (node-postgres' pipeline mode): a unit's BEGIN goes with its first write, its held inserts
    // with the statement after them. Queries that keep a portal open (cursors) are refused in it.
    const settings = connectionSettings(databaseUrl, schemaName, connectTimeoutMs, availability.lost)
    this.pool = new pg.Pool({ ...settings, max: poolSize, Client: NulSafeClient as never })
    // An idle connection the server dropped must not crash the process: the pool replaces it.
    this.pool.on('error', availability.lost)
    this.pool.on('connect', availability.back)
    // Transaction control is not a statement of the storage API (SQLite's group commit does not log it either).
    const logQuery = onQuery && ((query: string, params: unknown[]) => void (/^(begin|commit|rollback)\b/i.test(query) || onQuery(query, params)))
    this.logger = logQuery ? { logQuery } : undefined
    this.db = drizzle(this.pool, { schema, logger: this.logger })
    this.poolQueries = postgresQueries(this.db as unknown as PgDb, { inUnit: false })
    const { readLanes = defaultReadLanes } = options
    if (readLanes > 0) {
      this.lanes = new ReadLanes(() => new NulSafeClient(settings), readLanes, availability.back)
      this.readQueries = postgresQueries(drizzle(this.lanes as never, { schema, logger: this.logger }) as unknown as PgDb, { inUnit: false })
    } else {
      this.readQueries = this.poolQueries
    }
    this.files = databaseFileBytes(this.db as unknown as PgDb)
    this.lone = new LoneStatements(async (statement) => {
      const client = (await this.pool.connect()) as unknown as NulSafeClient & pg.PoolClient
      try {
        return await client.sendAll(bare, [statement])
      } finally {
        client.release()
      }
    })
    this.sessionOptions = {
      connect: () => this.pool.connect() as unknown as Promise<UnitConnection>,
      lanes: this.lanes,
      lone: this.lone,
      logger: this.logger,
    }
    this.onEffectError =
      onEffectError ??
      ((error) =>
        queueMicrotask(() => {
          throw error
        }))
  }

  /** Creates the schema if needed and applies the migrations not applied yet, one instance at a time. */
  async migrate(): Promise<void> {
    const client = await this.pool.connect()
    try {
      await client.query(`select pg_advisory_lock(${migrationLock})`)
      try {
        await client.query(`create schema if not exists ${quoteIdentifier(this.schema)}`)
        const db = drizzle(client)
        // drizzle-kit names the public schema in foreign keys; the tables go to the pool's schema.
        const migrations = readMigrationFiles({ migrationsFolder }).map((migration) => ({
          ...migration,
          sql: migration.sql.map((statement) => statement.replaceAll('"public".', '')),
        }))
        const { dialect, session } = db as unknown as {
          dialect: { migrate(m: unknown, s: unknown, c: unknown): Promise<void> }
          session: unknown
        }
        await dialect.migrate(migrations, session, { migrationsSchema: this.schema })
      } finally {
        await client.query(`select pg_advisory_unlock(${migrationLock})`)
      }
    } finally {
      client.release()
    }
  }

  read<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(closedError())
    return work(this.readQueries)
  }

  /**
   * The same database on a pool of its own, a third the size of this one (at least 2), made on first
   * use and closed with this store: the delivery worker's statements would otherwise wait in this
   * pool's queue behind every request's, and the bot fall behind whatever the load.
   */
  background(): Store {
    if (this.closing) return this
    this.backgroundStore ??= new PostgresStore(this.databaseUrl, {
      ...this.options,
      poolSize: Math.max(2, Math.ceil((this.options.poolSize ?? defaultPoolSize) / 3)),
      // The worker reads little (a bot's state, the deliveries behind one under way): one lane.
      readLanes: Math.min(1, this.options.readLanes ?? defaultReadLanes),
      // The database's comings and goings are told once, by this store.
      onAvailability: undefined,
    })
    return this.backgroundStore
  }

  write<T>(work: (q: Queries, after: After) => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(closedError())
    return this.tracked(this.runUnit(work, true))
  }

  /**
   * One statement commits by itself: sent on the pool, without BEGIN and COMMIT (two round trips of
   * three), and as atomic as the same statement in a transaction of its own.
   */
  writeStatement<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(closedError())
    return this.tracked(this.runUnit(work, false))
  }

  /** A unit under way, which close() lets finish. */
  private tracked<T>(unit: Promise<T>): Promise<T> {
    this.units.add(unit)
    void unit.catch(() => undefined).finally(() => this.units.delete(unit))
    return unit
  }

  private async runUnit<T>(work: (q: Queries, after: After) => Promise<T>, inTransaction: boolean): Promise<T> {
    let reran = false
    for (let attempt = 1; ; attempt++) {
      const effects = unitEffects()
      try {
        const value = inTransaction ? await this.transaction((q) => work(q, effects.after)) : await work(this.poolQueries, effects.after)
        effects.run(this.onEffectError)
        return value
      } catch (error) {
        effects.close()
        if (attempt < maxAttempts && retryable.has(codeOf(error))) continue
        // Another instance's write broke a constraint (a row deleted or made meanwhile): run once
        // more, where the unit's own checks see what it committed and answer 404 or 409.
        if (!reran && racedCodes.has(codeOf(error))) {
          reran = true
          continue
        }
        throw conflictOf(error) ?? error
      }
    }
  }

  /**
   * `work` as one unit of work: one transaction, whose BEGIN goes with its first write and whose
   * inserts go with its next statement (deferred-writes.ts), on a pooled connection taken when it
   * must be (unit-session.ts: a unit that only reads, then only inserts, takes none of its own).
   */
  private async transaction<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    const session = this.sessions.pop() ?? new UnitSession(this.sessionOptions)
    let broken = false
    try {
      await session.query('begin', [])
      try {
        const value = await work(session.queries)
        await session.query('commit', [])
        return value
      } catch (error) {
        await session.query('rollback', []).catch(() => (broken = true))
        throw error
      }
    } finally {
      // A connection that cannot roll back is left out of the pool.
      session.release(broken)
      if (this.sessions.length < maxFreeSessions) this.sessions.push(session)
    }
  }

  async check(): Promise<void> {
    if (this.closing) throw closedError()
    const { rows } = await this.db.execute<{ applied: string }>(
      sql`select count(*) as applied from ${sql.identifier(this.schema)}.__drizzle_migrations`,
    )
    const expected = readMigrationFiles({ migrationsFolder }).length
    if (Number(rows[0]?.applied) < expected) throw new Error('the database migrations are not all applied')
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.units])
      await this.backgroundStore?.close()
      await this.lanes?.close()
      await this.pool.end()
    })()
    return this.closing
  }
}

const codeOf = (error: unknown): string => {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string') return code
  }
  return ''
}

/**
 * Tells `told` of the database's comings and goings once each: the first connection error after it
 * answered, and the first connection made after that (not every request's failure meanwhile).
 */
function availabilityOf(told: ((available: boolean, error?: unknown) => void) | undefined) {
  let available = true
  return {
    lost: (error: unknown) => {
      if (!available || !isDatabaseUnavailable(error)) return
      available = false
      told?.(false, error)
    },
    back: () => {
      if (available) return
      available = true
      told?.(true)
    },
  }
}

const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`

const closedError = () => new Error('the store is closed')

/** A PostgreSQL store, migrated. */
export async function openPostgresStore(databaseUrl: string, options?: PostgresStoreOptions): Promise<PostgresStore> {
  const store = new PostgresStore(databaseUrl, options)
  try {
    await store.migrate()
  } catch (error) {
    await store.close()
    throw error
  }
  return store
}
