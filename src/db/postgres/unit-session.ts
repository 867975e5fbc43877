import { drizzle } from 'drizzle-orm/node-postgres'
import type { Queries } from '../store.ts'
import { bare, heldAtCommit, inUnit, noRows, readsAlone, sendingOf, type Statement } from './deferred-writes.ts'
import type { LoneStatements } from './lone-statements.ts'
import { postgresQueries } from './queries.ts'
import type { ReadLanes } from './read-lanes.ts'
import type { PgDb } from './run.ts'
import * as schema from './schema.ts'

/** A pooled connection, as a unit uses it (store.ts: NulSafeClient). */
export interface UnitConnection {
  query(config: unknown, values?: unknown): Promise<unknown>
  /** Statements sent together, the last one's answer theirs (deferred-writes.ts gives them). */
  sendAll(config: object, sending: readonly Statement[]): Promise<unknown>
  /** Back to the pool; out of it when broken. */
  release(broken?: boolean): void
}

export interface UnitSessionOptions {
  connect(): Promise<UnitConnection>
  lanes: ReadLanes | undefined
  lone: LoneStatements
  logger: { logQuery(query: string, params: unknown[]): void } | undefined
}

/**
 * One unit of work at a time, as drizzle's client: what the unit sends goes where it must
 * (deferred-writes.ts decides what is sent, and when). A pooled connection is taken only for a
 * statement that must run on the unit's own connection (BEGIN and what follows it): the reads before
 * the unit's first write go on the read lanes, and a unit whose only writes are inserts held to its
 * end commits them with those of the units ending with it (lone-statements.ts). So a createMessage
 * holds no connection while it reads, and shares its one statement. A session is used by one unit
 * after another (its queries, made once, cost a tenth of the process's CPU when made per unit).
 */
export class UnitSession {
  readonly queries: Queries
  private connection: Promise<UnitConnection> | undefined

  constructor(private readonly options: UnitSessionOptions) {
    this.queries = postgresQueries(drizzle(this as never, { schema, logger: options.logger }) as unknown as PgDb, { inUnit: true })
  }

  /** node-postgres' query, as drizzle and the store call it: a config (or a text) and its values. */
  query(first: unknown, values?: unknown): Promise<unknown> {
    const text = typeof first === 'string' ? first : (first as { text?: unknown } | null)?.text
    if (typeof text !== 'string' || !Array.isArray(values)) return this.connected().then((c) => c.query(first, values))
    const held = heldAtCommit(this, text)
    if (held) return this.options.lone.commit(held)
    const sending = sendingOf(this, text, values)
    if (sending === undefined) {
      const { lanes } = this.options
      if (lanes && readsAlone(this, text)) return lanes.query(first, values)
      // A ROLLBACK after the unit ended (its COMMIT failed) where it took no connection: nothing to end.
      if (this.connection === undefined && !inUnit(this) && /^rollback\b/i.test(text)) return Promise.resolve(noRows)
      return this.connected().then((c) => c.query(first, values))
    }
    if (sending.length === 0) return Promise.resolve(noRows)
    const config = typeof first === 'string' ? bare : (first as object)
    return this.connected().then((c) => c.sendAll(config, sending))
  }

  private connected(): Promise<UnitConnection> {
    return (this.connection ??= this.options.connect())
  }

  /** The unit is over: the connection it took (if any) goes back to the pool, or out of it when broken. */
  release(broken: boolean): void {
    const connection = this.connection
    this.connection = undefined
    void connection?.then(
      (c) => c.release(broken),
      () => undefined,
    )
  }
}
