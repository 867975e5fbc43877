import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import type pg from 'pg'
import type { FileBytes } from '../file-bytes.ts'
import { type After, type Queries, type EngineStore, type Store, unitEffects } from '../store.ts'
import { databaseFileBytes } from './file-bytes.ts'
import { postgresQueries } from './queries.ts'
import { type PgDb, postgresRun, type Send } from './run.ts'
import { PostgresExecutor, type UnitRun } from './executor.ts'
import { codeOf, conflictOf, racedCodes } from './write-conflicts.ts'
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
  /** Connections that send reads together (connection.ts: ReadLanes), besides the pool; 2 by default, 0: reads on the pool. */
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

/** Errors after which a unit of work is run again from its start: nothing of it was committed. */
const retryable = new Set(['40001', '40P01'])
const maxAttempts = 5

/**
 * Requests' connections per instance. 20 served more writes than 10 while a busy conversation's
 * inserts waited for its outbox's head row; since they do not (migration 0011), 20 serves about as
 * many (+5 %) with a longer tail (docs/guides/several-instances.md).
 */
const defaultPoolSize = 10

/** Sessions kept for the next units (a session's queries, made once, cost a tenth of the process's CPU when made per unit). */
const maxFreeSessions = 64

/**
 * Read lanes per instance. One served as many pages as two (5,390 and 5,014 a second, against
 * 3,708 on the pool alone: docs/internals/performance.md); two keep reads moving past one that is
 * slow (a lane is picked by the fewest reads in flight), for one connection more.
 */
const defaultReadLanes = 2

/** A unit's queries, made once and used by one unit after another. */
interface Session {
  queries: Queries
  unit: UnitRun | undefined
}

/**
 * The storage API on PostgreSQL (node-postgres: the driver drizzle's migrator, pg-boss and most of
 * the ecosystem use, pinned exactly). Each statement is planned by the shape that builds it and sent
 * where src/db/unit.ts says, by the executor (executor.ts). Several instances may share the
 * database: migrations are applied under an advisory lock, bot deliveries are leased.
 */
export class PostgresStore implements EngineStore {
  readonly shared = true
  readonly pool: pg.Pool
  /** drizzle on the pool, for tools and tests that look at the tables directly (the storage API never runs through it). */
  readonly db: NodePgDatabase<typeof schema>
  readonly schema: string
  /** The bytes of uploaded files, in the database: every instance serves them. */
  readonly files: FileBytes
  private readonly executor: PostgresExecutor
  /** Statements that commit by themselves, each alone on the pool (writeStatement). */
  private readonly aloneQueries: Queries
  /** Reads, on lanes that send those of one turn together (connection.ts). */
  private readonly readQueries: Queries
  /** Sessions free for the next unit. */
  private readonly sessions: Session[] = []
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
    const { readLanes = defaultReadLanes } = options
    this.executor = new PostgresExecutor({
      databaseUrl,
      schema: schemaName,
      poolSize,
      readLanes,
      connectTimeoutMs,
      lost: availability.lost,
      back: availability.back,
    })
    this.pool = this.executor.pool
    this.db = drizzle(this.pool, { schema })
    // Every statement of the storage API, as its unit plans it (statement counts, debugging).
    this.logged = onQuery
      ? (send) => (planned) => {
          onQuery(planned.statement.text, planned.statement.values)
          return send(planned)
        }
      : (send) => send
    this.readQueries = postgresQueries(postgresRun(this.logged((planned) => this.executor.read(planned.statement))), { inUnit: false })
    this.aloneQueries = postgresQueries(postgresRun(this.logged((planned) => this.executor.alone(planned.statement))), { inUnit: false })
    this.files = databaseFileBytes(this.db as unknown as PgDb)
    this.onEffectError =
      onEffectError ??
      ((error) =>
        queueMicrotask(() => {
          throw error
        }))
  }

  private readonly logged: (send: Send) => Send

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
        const value = inTransaction ? await this.transaction((q) => work(q, effects.after)) : await work(this.aloneQueries, effects.after)
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

  /** `work` as one unit of work, its statements sent where its plan says (src/db/unit.ts). */
  private async transaction<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    const session = this.sessions.pop() ?? this.session()
    const unit = (session.unit = this.executor.unit())
    try {
      let value: T
      try {
        value = await work(session.queries)
      } catch (error) {
        await unit.abort()
        throw error
      }
      await unit.commit()
      return value
    } finally {
      session.unit = undefined
      if (this.sessions.length < maxFreeSessions) this.sessions.push(session)
    }
  }

  private session(): Session {
    const session: Session = { queries: undefined as unknown as Queries, unit: undefined }
    const send: Send = (planned) => {
      if (!session.unit) return Promise.reject(new Error('a statement was sent once its unit of work had ended'))
      return session.unit.send(planned)
    }
    session.queries = postgresQueries(postgresRun(this.logged(send)), { inUnit: true })
    return session
  }

  async check(): Promise<void> {
    if (this.closing) throw closedError()
    const { rows } = await this.db.execute<{ applied: string }>(sql`select count(*) as applied from ${sql.identifier(this.schema)}.__drizzle_migrations`)
    const expected = readMigrationFiles({ migrationsFolder }).length
    if (Number(rows[0]?.applied) < expected) throw new Error('the database migrations are not all applied')
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.units])
      await this.backgroundStore?.close()
      await this.executor.close()
    })()
    return this.closing
  }
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
