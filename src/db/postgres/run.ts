import type { SQL } from 'drizzle-orm'
import type { NodePgQueryResultHKT } from 'drizzle-orm/node-postgres'
import type { PgDatabase } from 'drizzle-orm/pg-core'
import { binder, placeholdersFor, type Values } from '../placeholders.ts'
import type { Built, Key, On, Query, Run } from '../query.ts'
import { rowMapper, type SelectedField, wholeRows } from '../row-maker.ts'
import type { SqliteDb } from '../sqlite/connection.ts'
import { holdInsert } from './deferred-writes.ts'
import { plannedEachCall } from './named-statements.ts'
import * as tables from './schema.ts'

/** A pool or a transaction: the named queries run the same on both. */
export type PgDb = PgDatabase<NodePgQueryResultHKT, typeof tables>

/**
 * What drizzle's node-postgres prepared query holds (drizzle-orm/node-postgres/session.js), not part
 * of its typed API: the configs it sends (with rows as arrays, or as objects), its parameters
 * (placeholders where the values go) and its selected fields.
 */
interface DrizzlePgPrepared {
  queryConfig: { text: string }
  rawQueryConfig: { text: string }
  params: unknown[]
  fields?: SelectedField[]
  joinsNotNullableMap?: Record<string, boolean>
  customResultMapper?: unknown
}

/** A shape's statement for one key: what node-postgres is sent, how its parameters are read, how its rows are made. */
interface Statement {
  /** drizzle's config (its type parsers; rows as arrays when there are rows to make). */
  config: { text: string }
  params: ((values: Values) => unknown)[]
  rows: ((row: unknown[], values: Values) => unknown) | undefined
}

/** A pg pool or client, as drizzle's session holds it. */
interface Sender {
  query(config: object, values: unknown[]): Promise<{ rows: unknown[] }>
}

/**
 * Statements by shape and key, shared by every pool, transaction and store of the process: the SQL
 * of a shape does not depend on the connection (the schema is the connection's search path).
 * Undefined: made per call (drizzle's own mapping, or no builder to prepare).
 */
const statements = new WeakMap<Query<never, unknown>, Map<Key, Statement | undefined>>()

function statementOf<V, R>(on: On, query: Query<V, R>, values: V): Statement | undefined {
  const key = query.key ? query.key(values) : 0
  if (key === null) return undefined
  let byKey = statements.get(query as Query<never, unknown>)
  if (!byKey) statements.set(query as Query<never, unknown>, (byKey = new Map()))
  if (byKey.has(key)) return byKey.get(key)
  const built = query.build(on, placeholdersFor(values as Values) as V, key) as Built & { prepare?(name?: string): unknown }
  let made: Statement | undefined
  if (typeof built.prepare === 'function') {
    const prepared = built.prepare(undefined) as DrizzlePgPrepared
    const { fields, customResultMapper } = prepared
    if (!customResultMapper && !fields?.some(({ path }) => path.length > 2)) {
      const config = fields ? prepared.queryConfig : prepared.rawQueryConfig
      made = {
        // Unnamed: named-statements.ts names it per connection, unless it is planned on every call.
        config: query.plannedEachCall ? ({ ...config, [plannedEachCall]: true } as typeof config) : config,
        params: prepared.params.map(binder),
        rows: fields && (query.given ? wholeRows(fields, query.given.plan(on.t)) : rowMapper(fields, prepared.joinsNotNullableMap)),
      }
    }
  }
  byKey.set(key, made)
  return made
}

/**
 * The shapes of src/db/queries/ on a PostgreSQL pool or transaction: each built once per key with
 * placeholders (as on SQLite), then sent with the call's values as a parameterized query
 * (node-postgres; named per connection, so that the server plans it once). Building a shape's SQL
 * was most of the CPU a createMessage cost on PostgreSQL (docs/internals/performance.md). The
 * handle and tables are PostgreSQL's, seen through SQLite's types (the reference dialect).
 */
export function postgresRun(db: PgDb, { holdInserts = false }: { holdInserts?: boolean } = {}): Run {
  const on: On = { db: db as unknown as SqliteDb, t: tables }
  // The pool or the unit's connection (a transaction's session holds it), and drizzle's logger.
  const session = (db as unknown as { session: { client: Sender; logger: { logQuery(text: string, params: unknown[]): void } } }).session
  const paramsOf = (statement: Statement, values: Values) => {
    const params = statement.params.map((read) => read(values))
    session.logger.logQuery(statement.config.text, params)
    return params
  }
  const rows = async <V, R>(query: Query<V, R>, values: V): Promise<R[]> => {
    const statement = statementOf(on, query, values)
    if (!statement) {
      const found = await (query.build(on, values, null) as unknown as Promise<R[]>)
      const { given } = query
      return given ? found.map((row) => given.whole(on.t, row as Values, values as Values) as R) : found
    }
    const record = values as Values
    const { rows: found } = await session.client.query(statement.config, paramsOf(statement, record))
    const make = statement.rows
    return (make ? found.map((row) => make(row as unknown[], record)) : found) as R[]
  }
  return {
    on,
    one: async (query, values) => (await rows(query, values))[0],
    all: rows,
    run: async (query, values) => {
      if (holdInserts) {
        // Nothing is read back: an insert goes with the unit's next statement (deferred-writes.ts).
        const statement = statementOf(on, query, values)
        const { sql: text, params } = statement
          ? { sql: statement.config.text, params: statement.params.map((read) => read(values as Values)) }
          : (query.build(on, values, null) as unknown as { toSQL(): { sql: string; params: unknown[] } }).toSQL()
        if (holdInsert(session.client, text, params)) return session.logger.logQuery(text, params)
      }
      await rows(query, values)
    },
    raw: async (statement: SQL) => (await db.execute<Record<string, unknown>>(statement)).rows,
    exec: async (statement: SQL) => (await db.execute(statement)).rowCount ?? 0,
  }
}
