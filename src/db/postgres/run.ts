import { getTableName, is, SQL, type Table } from 'drizzle-orm'
import { drizzle, type NodePgQueryResultHKT } from 'drizzle-orm/node-postgres'
import { PgDialect, type PgDatabase, PgInsertBase, PgSelectBase } from 'drizzle-orm/pg-core'
import { binder, statementsByKey, type Values } from '../placeholders.ts'
import type { Built, On, Query, Run, StatementKind } from '../query.ts'
import { rowMapper, type SelectedField, wholeRows } from '../row-maker.ts'
import type { InsertShape, Planned, Sql } from './unit.ts'
import * as tables from './schema.ts'

/** A PostgreSQL drizzle handle, as the shapes that say something PostgreSQL's own way see it. */
export type PgDb = PgDatabase<NodePgQueryResultHKT, typeof tables>

/** A statement as the executor sends it, with node-postgres' per-query choices drizzle made. */
export interface Sent extends Sql {
  /** Rows as arrays (made objects by the statement's row maker), with drizzle's type parsers (timestamps kept as text). */
  rowMode?: 'array'
  types?: unknown
  /** Made for one call alone: never prepared. */
  unnamed?: boolean
}

/** What the server answered. */
export interface Answer {
  rows: unknown[]
  rowCount: number | null
}

/** Sends a planned statement where its context says (a read, a unit, a statement alone: store.ts). */
export type Send = (planned: Planned<Sent>) => Promise<Answer>

/** What drizzle's node-postgres prepared query holds, not part of its typed API (drizzle is pinned; test/storage/drizzle-internals.test.ts). */
interface DrizzlePgPrepared {
  queryConfig: { text: string; rowMode: 'array'; types: unknown }
  rawQueryConfig: { text: string; types: unknown }
  params: unknown[]
  fields?: SelectedField[]
  joinsNotNullableMap?: Record<string, boolean>
}

/** drizzle's insert builder's config (its typed API does not show it; pinned as above). */
interface InsertConfig {
  table: Table
  values: unknown[] | undefined
  onConflict?: unknown
  select?: unknown
}

/** A shape's statement for one key: its SQL, how its parameters are read, how its rows are made. */
interface Compiled {
  kind: StatementKind
  sent: Omit<Sent, 'values'>
  params: ((values: Values) => unknown)[]
  rows: ((row: unknown[], values: Values) => unknown) | undefined
  insert?: InsertShape
}

// drizzle as a query builder only (`mock`: it never executes anything); the executor sends what it builds.
const on: On = { db: drizzle.mock({ schema: tables }) as unknown as On['db'], t: tables }
const dialect = new PgDialect()

/** Statements by shape and key, shared by every store of the process (the schema is the connection's search path). */
const compiledOf = statementsByKey<Compiled>(on, (query, built) => {
  if (is(built, SQL)) return { kind: query.kind ?? 'write', ...raw(built), rows: undefined }
  const prepared = (built as unknown as { prepare(name?: string): DrizzlePgPrepared }).prepare(undefined)
  const { fields, joinsNotNullableMap } = prepared
  if (fields?.some(({ path }) => path.length > 2)) throw new Error('a shape selects fields more than two deep, which its rows cannot be made of')
  const { text, types } = fields ? prepared.queryConfig : prepared.rawQueryConfig
  const isInsert = is(built, PgInsertBase)
  return {
    // What the builder's statement is: a select reads, an insert that returns nothing is held, anything else writes.
    kind: query.kind ?? (is(built, PgSelectBase) ? 'read' : isInsert && !fields ? 'insert' : 'write'),
    sent: { text, rowMode: fields ? 'array' : undefined, types },
    params: prepared.params.map(binder),
    rows: fields && (query.given ? wholeRows(fields, query.given.plan(on.t)) : rowMapper(fields, joinsNotNullableMap)),
    insert: isInsert ? insertShape(built, text) : undefined,
  }
})

/** A statement made for one call alone (a union of pages, an erasure): never prepared, rows as objects. */
function raw(statement: SQL) {
  const { sql: text, params } = dialect.sqlToQuery(statement)
  return { sent: { text, unnamed: true }, params: params.map(binder) }
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

function planned({ kind, sent, params, insert }: Pick<Compiled, 'kind' | 'sent' | 'params' | 'insert'>, values: Values): Planned<Sent> {
  const bound = new Array(params.length)
  for (let i = 0; i < bound.length; i++) bound[i] = withoutNul((params[i] as (v: Values) => unknown)(values))
  return { kind, statement: { text: sent.text, values: bound, rowMode: sent.rowMode, types: sent.types, unnamed: sent.unnamed }, insert }
}

/**
 * The shapes of src/db/queries/, planned with each call's values and given to `send` (building a
 * shape's SQL per call was most of a createMessage's CPU: docs/internals/performance.md).
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
    raw: async (statement) => (await send(planned({ kind: 'read', ...raw(statement) }, {}))).rows as Record<string, unknown>[],
    exec: async (statement) => (await send(planned({ kind: 'write', ...raw(statement) }, {}))).rowCount ?? 0,
  }
}
