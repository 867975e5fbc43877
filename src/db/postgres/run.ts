import { getTableName, is, SQL, type Table } from 'drizzle-orm'
import { drizzle, type NodePgQueryResultHKT } from 'drizzle-orm/node-postgres'
import { PgDialect, type PgDatabase, PgInsertBase, PgSelectBase } from 'drizzle-orm/pg-core'
import { binder, placeholdersFor, type Values } from '../placeholders.ts'
import type { Built, Key, On, Query, Run } from '../query.ts'
import { rowMapper, type SelectedField, wholeRows } from '../row-maker.ts'
import type { InsertShape, Planned, Sql, StatementKind } from '../unit.ts'
import * as tables from './schema.ts'

/** A PostgreSQL drizzle handle, as the shapes that say something PostgreSQL's own way see it. */
export type PgDb = PgDatabase<NodePgQueryResultHKT, typeof tables>

/**
 * drizzle as a query builder only: shapes are built on it, and their SQL, parameters and selected
 * fields read from drizzle's prepared query (never executed through it); statements are sent by the
 * executor (executor.ts).
 */
const builder = drizzle.mock({ schema: tables })
const dialect = new PgDialect()
const on: On = { db: builder as unknown as On['db'], t: tables }

/** A statement as the executor sends it: its SQL and values, with node-postgres' per-query choices drizzle made. */
export interface Sent extends Sql {
  /** Rows as arrays (made objects by `rows` below), with drizzle's type parsers (timestamps kept as text). */
  rowMode?: 'array'
  types?: unknown
  /** Made for one call alone (a raw statement): never prepared. */
  unnamed?: boolean
}

/** What the server answered. */
export interface Answer {
  rows: unknown[]
  rowCount: number | null
}

/** Sends a planned statement where its context says (a read, a unit, a statement alone: store.ts). */
export type Send = (planned: Planned<Sent>) => Promise<Answer>

/**
 * What drizzle's node-postgres prepared query holds (drizzle-orm/node-postgres/session.js), not part
 * of its typed API (drizzle is pinned; test/storage/drizzle-internals.test.ts fails if it changes).
 */
interface DrizzlePgPrepared {
  queryConfig: { text: string; rowMode: 'array'; types: unknown }
  rawQueryConfig: { text: string; types: unknown }
  params: unknown[]
  fields?: SelectedField[]
  joinsNotNullableMap?: Record<string, boolean>
}

/** A shape's statement for one key: its SQL, how its parameters are read, how its rows are made. */
interface Compiled {
  kind: StatementKind
  text: string
  rowMode?: 'array'
  types?: unknown
  unnamed: boolean
  params: ((values: Values) => unknown)[]
  rows: ((row: unknown[], values: Values) => unknown) | undefined
  insert?: InsertShape
}

/** Statements by shape and key, shared by every store of the process (the schema is the connection's search path). */
const statements = new WeakMap<Query<never, unknown>, Map<Key, Compiled>>()

function compiledOf<V, R>(query: Query<V, R>, values: V): Compiled {
  const key = query.key ? query.key(values) : 0
  if (key === null) return compile(query, query.build(on, values, null))
  let byKey = statements.get(query as Query<never, unknown>)
  if (!byKey) statements.set(query as Query<never, unknown>, (byKey = new Map()))
  let made = byKey.get(key)
  if (!made) byKey.set(key, (made = compile(query, query.build(on, placeholdersFor(values as Values) as V, key))))
  return made
}

function compile(query: Query<never, unknown>, built: Built): Compiled {
  if (is(built, SQL)) {
    const { sql: text, params } = dialect.sqlToQuery(built)
    return { kind: query.kind ?? 'write', text, unnamed: true, params: params.map(binder), rows: undefined }
  }
  const prepared = (built as unknown as { prepare(name?: string): DrizzlePgPrepared }).prepare(undefined)
  const { fields, joinsNotNullableMap } = prepared
  if (fields?.some(({ path }) => path.length > 2)) throw new Error('a shape selects fields more than two deep, which its rows cannot be made of')
  const config = fields ? prepared.queryConfig : prepared.rawQueryConfig
  return {
    kind: query.kind ?? kindOf(built, fields !== undefined),
    text: config.text,
    rowMode: fields ? 'array' : undefined,
    types: config.types,
    unnamed: false,
    params: prepared.params.map(binder),
    rows: fields && (query.given ? wholeRows(fields, query.given.plan(on.t)) : rowMapper(fields, joinsNotNullableMap)),
    insert: is(built, PgInsertBase) ? insertShape(built, config.text) : undefined,
  }
}

/** What a builder's statement is: a select reads, an insert that returns nothing is held, anything else writes. */
function kindOf(built: Built, returnsRows: boolean): StatementKind {
  if (is(built, PgSelectBase)) return 'read'
  if (is(built, PgInsertBase) && !returnsRows) return 'insert'
  return 'write'
}

/** drizzle's insert builder's config (its typed API does not show it; pinned as above). */
interface InsertConfig {
  table: Table
  values: unknown[] | undefined
  onConflict?: unknown
  select?: unknown
}

/** The table an insert writes and, for a plain insert of one row, its text cut before the row's tuple. */
function insertShape(built: Built, text: string): InsertShape {
  const { table, values, onConflict, select } = (built as unknown as { config: InsertConfig }).config
  const shape: InsertShape = { table: getTableName(table) }
  const at = text.lastIndexOf(' values (')
  if (!onConflict && !select && values?.length === 1 && at > 0) shape.row = { head: text.slice(0, at + 8), tuple: text.slice(at + 8) }
  return shape
}

/** U+0000, which PostgreSQL's text cannot hold (SQLite's can), is sent as U+FFFD: a lookup by it finds nothing instead of failing. */
const withoutNul = (value: unknown) => (typeof value === 'string' && value.includes('\0') ? value.replaceAll('\0', '\uFFFD') : value)

function planned(compiled: Compiled, values: Values): Planned<Sent> {
  const params = new Array(compiled.params.length)
  for (let i = 0; i < params.length; i++) params[i] = withoutNul((compiled.params[i] as (v: Values) => unknown)(values))
  const { kind, text, rowMode, types, unnamed, insert } = compiled
  return { kind, statement: { text, values: params, rowMode, types, unnamed }, insert }
}

/** A statement made for one call alone (a union of pages, an erasure): rows as objects, decoded by the caller. */
const plannedRaw = (statement: SQL, kind: StatementKind): Planned<Sent> => {
  const { sql: text, params } = dialect.sqlToQuery(statement)
  return { kind, statement: { text, values: params.map(withoutNul), unnamed: true } }
}

/**
 * The shapes of src/db/queries/ on PostgreSQL: each built once per key with placeholders (as on
 * SQLite), then planned with each call's values and given to `send`, which runs it where its
 * context says (store.ts). Building a shape's SQL was most of the CPU a createMessage cost on
 * PostgreSQL (docs/internals/performance.md).
 */
export function postgresRun(send: Send): Run {
  const rows = async <V, R>(query: Query<V, R>, values: V): Promise<R[]> => {
    const compiled = compiledOf(query, values)
    const answer = await send(planned(compiled, values as Values))
    const make = compiled.rows
    return (make ? answer.rows.map((row) => make(row as unknown[], values as Values)) : answer.rows) as R[]
  }
  return {
    on,
    one: async (query, values) => (await rows(query, values))[0],
    all: rows,
    run: async (query, values) => {
      await send(planned(compiledOf(query, values), values as Values))
    },
    raw: async (statement) => (await send(plannedRaw(statement, 'read'))).rows as Record<string, unknown>[],
    exec: async (statement) => (await send(plannedRaw(statement, 'write'))).rowCount ?? 0,
  }
}
