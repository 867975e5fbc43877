import { sql } from 'drizzle-orm'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import type pg from 'pg'
import type { FileBytes } from '../file-bytes.ts'
import { migrationsFolder } from '../migrations.ts'
import { type After, type EngineOptions, type EngineStore, type Queries, reportLater, type Store, storeClosed, unitEffects } from '../store.ts'
import { connectionSettings, PostgresExecutor } from './executor.ts'
import { databaseFileBytes } from './file-bytes.ts'
import { postgresQueries } from './queries.ts'
import { type PgDb, postgresRun, type Send } from './run.ts'
import * as schema from './schema.ts'
import { codeOf, conflictOf, racedCodes } from './write-conflicts.ts'

/** The advisory lock key under which one instance at a time applies migrations ("confab-m"). */
const migrationLock = 0x636f6e66_61622d6dn

export interface PostgresStoreOptions extends EngineOptions {
  /** Connections in the pool (DATABASE_POOL_SIZE): 10 by default (20 served about as many writes, +5 %, with a longer tail: docs/guides/several-instances.md). */
  poolSize?: number
  /** The schema the tables live in (its own per test); `public` by default. Created if missing. */
  schema?: string
  /** How long a unit may wait for a connection, new or pooled (DATABASE_CONNECT_TIMEOUT_SECONDS), 5 s by default: then it fails as the database being unavailable (503). */
  connectTimeoutMs?: number
  /** Told when the database stops answering and when it answers again, once each. */
  onAvailability?: (available: boolean, error?: unknown) => void
}

/** Errors after which a unit of work is run again from its start (a serialization failure, a deadlock): nothing of it was committed. */
const retryable = new Set(['40001', '40P01'])
const maxAttempts = 5

/** Read lanes: one served as many pages as two (5,390 and 5,014 a second, 3,708 on the pool alone); two keep reads moving past a slow one. */
const defaultReadLanes = 2

/** Sessions kept for the next units (a session's queries, made once, cost a tenth of the process's CPU when made per unit). */
const maxFreeSessions = 64

/** A unit's queries, made once and used by one unit after another: they send where the unit under way says. */
type Session = { queries: Queries; send?: Send }

/**
 * The storage API on PostgreSQL, which several instances may share (docs/internals/storage.md, "How a
 * unit runs on each engine"): each statement planned by its shape, sent by the executor.
 */
export class PostgresStore implements EngineStore {
  readonly shared = true
  readonly pool: pg.Pool
  /** drizzle on the pool, for tools and tests that look at the tables directly (the storage API never runs through it). */
  readonly db: NodePgDatabase<typeof schema>
  /** The bytes of uploaded files, in the database: every instance serves them. */
  readonly files: FileBytes
  readonly schema: string
  private readonly executor: PostgresExecutor
  private readonly send: (send: Send) => Send
  /** Statements outside any unit: reads on the lanes, any other alone on the pool, committing by itself (writeStatement). */
  private readonly outside: Queries
  private readonly sessions: Session[] = []
  private readonly units = new Set<Promise<unknown>>()
  private closing: Promise<void> | undefined
  private backgroundStore: PostgresStore | undefined

  constructor(
    private readonly databaseUrl: string,
    private readonly options: PostgresStoreOptions = {},
    readLanes = defaultReadLanes,
  ) {
    const { poolSize = 10, schema: schemaName = 'public', onQuery, connectTimeoutMs = 5_000, onAvailability } = options
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schemaName)) throw new Error(`not a schema name: "${schemaName}"`)
    this.schema = schemaName
    this.executor = new PostgresExecutor(connectionSettings(databaseUrl, schemaName, connectTimeoutMs), poolSize, readLanes, onAvailability)
    this.pool = this.executor.pool
    this.db = drizzle(this.pool, { schema })
    this.send = onQuery
      ? (send) => (planned) => {
          onQuery(planned.statement.text, planned.statement.values)
          return send(planned)
        }
      : (send) => send
    this.outside = postgresQueries(postgresRun(this.send((planned) => this.executor.outside(planned))), { inUnit: false })
    this.files = databaseFileBytes(this.db as unknown as PgDb)
  }

  /** Creates the schema if needed and applies the migrations not applied yet, one instance at a time. */
  async migrate(): Promise<void> {
    const client = await this.pool.connect()
    try {
      await client.query(`select pg_advisory_lock(${migrationLock})`)
      try {
        await client.query(`create schema if not exists "${this.schema}"`)
        // drizzle-kit names the public schema in foreign keys; the tables go to the connection's schema.
        const migrations = readMigrationFiles({ migrationsFolder: migrationsFolder('postgres') }).map((m) => ({
          ...m,
          sql: m.sql.map((s) => s.replaceAll('"public".', '')),
        }))
        const { dialect, session } = drizzle(client) as unknown as { dialect: { migrate(...args: unknown[]): Promise<void> }; session: unknown }
        await dialect.migrate(migrations, session, { migrationsSchema: this.schema })
      } finally {
        await client.query(`select pg_advisory_unlock(${migrationLock})`)
      }
    } finally {
      client.release()
    }
  }

  read<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(storeClosed())
    return work(this.outside)
  }

  /**
   * The same database on a pool of its own (a third the size, one read lane), closed with this one:
   * the delivery worker's statements would otherwise queue behind every request's.
   */
  background(): Store {
    if (this.closing) return this
    const poolSize = Math.max(2, Math.ceil((this.options.poolSize ?? 10) / 3))
    // The database's comings and goings are told once, by this store.
    this.backgroundStore ??= new PostgresStore(this.databaseUrl, { ...this.options, poolSize, onAvailability: undefined }, 1)
    return this.backgroundStore
  }

  write<T>(work: (q: Queries, after: After) => Promise<T>): Promise<T> {
    return this.tracked(work, true)
  }

  /** One statement commits by itself: sent on the pool without BEGIN and COMMIT, as atomic as in a transaction of its own. */
  writeStatement<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    return this.tracked(work, false)
  }

  /** A unit, which close() lets finish. */
  private tracked<T>(work: (q: Queries, after: After) => Promise<T>, inTransaction: boolean): Promise<T> {
    if (this.closing) return Promise.reject(storeClosed())
    const unit = this.runUnit(work, inTransaction)
    this.units.add(unit)
    void unit.catch(() => undefined).finally(() => this.units.delete(unit))
    return unit
  }

  private async runUnit<T>(work: (q: Queries, after: After) => Promise<T>, inTransaction: boolean): Promise<T> {
    let reran = false
    for (let attempt = 1; ; attempt++) {
      const effects = unitEffects()
      try {
        const value = inTransaction ? await this.transaction((q) => work(q, effects.after)) : await work(this.outside, effects.after)
        effects.run(this.options.onEffectError ?? reportLater)
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

  /** `work` as one unit of work, on a session free for it. */
  private async transaction<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    const session = this.sessions.pop() ?? this.session()
    try {
      return await this.executor.unit((send) => {
        session.send = send
        return work(session.queries)
      })
    } finally {
      session.send = undefined
      if (this.sessions.length < maxFreeSessions) this.sessions.push(session)
    }
  }

  private session(): Session {
    const session: Session = { queries: undefined as unknown as Queries }
    const send: Send = (planned) => session.send?.(planned) ?? Promise.reject(new Error('a statement was sent once its unit of work had ended'))
    session.queries = postgresQueries(postgresRun(this.send(send)), { inUnit: true })
    return session
  }

  async check(): Promise<void> {
    if (this.closing) throw storeClosed()
    const { rows } = await this.db.execute<{ applied: string }>(sql`select count(*) as applied from ${sql.identifier(this.schema)}.__drizzle_migrations`)
    if (Number(rows[0]?.applied) < readMigrationFiles({ migrationsFolder: migrationsFolder('postgres') }).length)
      throw new Error('the database migrations are not all applied')
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
