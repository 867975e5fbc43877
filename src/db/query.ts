import { and, asc, type Column, desc, getTableColumns, is, Param, Placeholder, type SQL, sql, type SQLWrapper, type Table } from 'drizzle-orm'
import type { Tables } from './schema.ts'
import type { SqliteDb } from './sqlite/connection.ts'
import type { KeysetWindow, SortDirection } from './store.ts'

/*
 * A named query is said once, as a shape (src/db/queries/): what it selects, joins, filters and
 * orders, built from its values. Each engine runs the same shapes (src/db/sqlite/run.ts,
 * src/db/postgres/run.ts): each builds a shape once per `key` with placeholders standing for the
 * values and keeps the statement (SQLite's prepared, PostgreSQL's text and parameters). The
 * handle and tables are each engine's own, typed as SQLite's (the reference dialect).
 */

/** What a statement is, as the shape that builds it knows (PostgreSQL's unit plan sends each by it: src/db/postgres/unit.ts). */
export type StatementKind =
  /** A select that locks nothing. */
  | 'read'
  /** A read that takes a lock (an advisory lock): inside the unit's transaction. */
  | 'lockingRead'
  /** An insert that returns nothing: held until the unit's next statement. */
  | 'insert'
  /** Anything else that writes (an update, a delete, an insert that returns rows, a select with a data-modifying CTE). */
  | 'write'

/** What a shape is built on: an engine's drizzle handle and its tables. */
export interface On {
  db: SqliteDb
  t: Tables
}

/** A shape's built statement, as drizzle makes it (a select, insert, update or delete). */
export type Built = SQLWrapper

/** The rows a built statement returns (none for a write without RETURNING). */
export type RowOf<B> = B extends { all(...args: never[]): (infer R)[] } ? R : unknown

/**
 * A query's shape. `key` tells apart the values whose SQL differs (which bounds a window has, how
 * many ids a list holds, which columns an update sets): the calls of one key share one statement,
 * and must share the structure of their values (the same fields set, lists of the same length);
 * null: the statement is made for this call alone. The values are a flat record: a list (an array)
 * among them is bound item by item, every other value whole (a JSON column's object too).
 */
export interface Query<V, R> {
  build(on: On, values: V, key: Key | null): Built
  key?(values: V): Key | null
  /** Columns its rows leave out, taken from the values (see Given). */
  given?: Given
  /**
   * What its statement is, when its builder does not say (src/db/postgres/unit.ts): a select with a
   * data-modifying CTE writes (`writing`), a lock is a locking read (`locking`). Otherwise a select
   * reads, an insert that returns nothing is an `insert`, anything else writes.
   */
  kind?: StatementKind
  /** The rows it returns (a type only). */
  readonly rows?: R
}

export type Key = string | number

/** A query's shape, typed by the rows it returns. */
export const query = <V, B extends Built>(build: (on: On, values: V, key: Key | null) => B, key?: (values: V) => Key | null): Query<V, RowOf<B>> => ({
  build,
  key,
})

/** A query's shape whose rows leave out the columns `given` names, typed by the whole rows. */
export const queryGiven = <V, R>(given: Given, build: (on: On, values: V, key: Key | null) => Built, key?: (values: V) => Key | null): Query<V, R> => ({
  build,
  key,
  given,
})

/** `shape`, whose select writes (a data-modifying CTE): it runs inside its unit's transaction. */
export const writing = <V, R>(shape: Query<V, R>): Query<V, R> => ({ ...shape, kind: 'write' })

/** `shape`, a read that takes a lock: it runs inside its unit's transaction. */
export const locking = <V, R>(shape: Query<V, R>): Query<V, R> => ({ ...shape, kind: 'lockingRead' })

/** The key of an update that sets some columns: which ones (a field left undefined sets none). */
export const columnsKey = (changes: Record<string, unknown>) =>
  Object.keys(changes)
    .filter((column) => changes[column] !== undefined)
    .sort()
    .join()

/** The columns an update of key `columnsKey` sets, from its values. */
export const setOf = <T>(values: T, key: Key | null): Partial<T> =>
  Object.fromEntries(
    String(key)
      .split(',')
      .map((column) => [column, values[column as keyof T]]),
  ) as Partial<T>

/** How an engine runs a query's shape. */
export interface Run {
  /** The engine's handle and tables. */
  readonly on: On
  one<V, R>(query: Query<V, R>, values: V): Promise<R | undefined>
  all<V, R>(query: Query<V, R>, values: V): Promise<R[]>
  run<V>(query: Query<V, unknown>, values: V): Promise<void>
  /** Rows of a statement made for this call alone, undecoded (see decodeAs). */
  raw(statement: SQL): Promise<Record<string, unknown>[]>
  /** Runs a write made for this call alone (never of bots or chat integrations: the tenancy cache hears only of shapes); how many rows it changed. */
  exec(statement: SQL): Promise<number>
}

/**
 * A LIMIT. SQLite plans with the value bound to a bare `LIMIT ?` (which is what drizzle makes of any
 * limit), so binding one marks a prepared statement to be prepared again: every run of a page cost a
 * prepare. A limit inside an expression is not planned with.
 */
export const limitOf = (limit: number): number => (is(limit, Placeholder) ? sql`cast(${limit} as integer)` : limit) as unknown as number

/** A constant LIMIT, written out (see limitOf). */
export const fixedLimit = (limit: number): number => sql.raw(String(Math.trunc(limit))) as unknown as number

const jsonOrNull = (value: unknown) => (value === null ? null : JSON.stringify(value))

/** A nullable JSON value: SQL NULL when null, never the JSON text 'null' (as the column's own encoder makes of it). */
export function nullableJson<T>(value: T | null): T {
  if (is(value, Placeholder)) return sql`${new Param(value, { mapToDriverValue: jsonOrNull })}` as T
  return (value === null ? sql`NULL` : value) as T
}

/** A keyset window as a page query takes it: its bounds and limit, and its shape (which bounds it has, which way it walks). */
export const windowValues = ({ after, before, limit, inverted }: KeysetWindow) => ({
  after,
  before,
  limit,
  shape: (after ? 1 : 0) | (before ? 2 : 0) | (inverted ? 4 : 0),
})

export type WindowValues = ReturnType<typeof windowValues>

/** The key of a page query: its window's shape. */
export const byShape = (values: { shape: number }) => values.shape

/**
 * The WHERE and ORDER BY of a keyset window over (sort column, id column) of a list sorted
 * `direction`: a row-value comparison that walks the index, never an OFFSET.
 */
export function keyset(
  columns: readonly [SQLWrapper, SQLWrapper],
  direction: SortDirection,
  { after, before }: { after?: readonly [unknown, unknown]; before?: readonly [unknown, unknown] },
  key: Key | null,
) {
  const [first, second] = columns
  const beyond = ([a, b]: readonly [unknown, unknown], forward: boolean): SQL =>
    (direction === 'asc') === forward ? sql`(${first}, ${second}) > (${a}, ${b})` : sql`(${first}, ${second}) < (${a}, ${b})`
  const shape = Number(key)
  const where = and(shape & 1 ? beyond(after!, true) : undefined, shape & 2 ? beyond(before!, false) : undefined)
  const order = (direction === 'asc') !== ((shape & 4) !== 0) ? asc : desc
  return { where, orderBy: [order(first), order(second)] }
}

/** A column under the name a raw row carries it by, decoded as the column is. */
export const named = (column: Column, name: string) => sql`${column}`.mapWith(column).as(name)

/**
 * One statement of many keyset pages (lists of many conversations at once: GraphQL views), each
 * walking its conversation's index to its LIMIT. SQLite allows 500 terms in a compound select; the
 * loaders stay below that.
 */
export const unionOfPages = (ids: readonly string[], pageOf: (id: string) => SQLWrapper): SQL =>
  sql.join(
    ids.map((id, i) => sql`select * from (${pageOf(id)}) as ${sql.identifier(`page${i}`)}`),
    sql` union all `,
  )

/** A table's columns under their own keys, for a raw query whose rows `decodeAs` reads. */
export const selectAs = (columns: Record<string, Column>) => Object.fromEntries(Object.entries(columns).map(([key, column]) => [key, named(column, key)]))

/** Rows of a raw query (`selectAs`), each value decoded as its column's engine does (JSON, booleans). */
export function decodeAs<R>(columns: Record<string, Column>): (row: Record<string, unknown>) => R {
  const entries = Object.entries(columns)
  return (row) => {
    const result: Record<string, unknown> = {}
    for (const [key, column] of entries) {
      const value = row[key]
      result[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value)
    }
    return result as R
  }
}

export const columnsOf = <T extends Table>(table: T) => getTableColumns(table)

export const groupBy = <T>(ids: readonly string[], rows: T[], idOf: (row: T) => string): Map<string, T[]> => {
  const groups = new Map<string, T[]>(ids.map((id) => [id, []]))
  for (const row of rows) groups.get(idOf(row))?.push(row)
  return groups
}

/**
 * The values of an insert or update, as a table's columns take them: a nullable JSON column's null
 * is SQL NULL (nullableJson). Fields left undefined are left out (their column's default).
 */
export function rowValues<T extends object>(table: Table, values: T): T {
  const columns = getTableColumns(table) as Record<string, Column>
  const result: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue
    const column = columns[key]
    result[key] = column && column.dataType === 'json' && !column.notNull ? nullableJson(value) : value
  }
  return result as T
}

/**
 * The rows of a query that leave out columns its call names (a page's integration and conversation
 * ids: SQLite then makes no strings for them): which of the table's columns, in its order, come
 * from the call's values. The engines make whole rows of them (SQLite straight from its positional
 * values: statement.ts), the same for both engines' tables (their columns have the same keys).
 */
export class Given {
  private made: { keys: string[]; fromValues: boolean[] } | undefined

  constructor(
    private readonly columnsOf: (t: Tables) => Record<string, Column>,
    readonly given: readonly string[],
  ) {}

  /** The columns a query selects: the table's, but the given ones. */
  selected<C extends Record<string, Column>>(t: Tables): C {
    return Object.fromEntries(Object.entries(this.columnsOf(t)).filter(([key]) => !this.given.includes(key))) as C
  }

  /** The row's keys in the table's order, and which of them come from the values. */
  plan(t: Tables) {
    if (!this.made) {
      const keys = Object.keys(this.columnsOf(t))
      this.made = { keys, fromValues: keys.map((key) => this.given.includes(key)) }
    }
    return this.made
  }

  /** A row made whole from the selected columns (an object) and the call's values. */
  whole(t: Tables, row: Record<string, unknown>, values: Record<string, unknown>): Record<string, unknown> {
    const { keys, fromValues } = this.plan(t)
    const result: Record<string, unknown> = {}
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string
      result[key] = fromValues[i] ? values[key] : row[key]
    }
    return result
  }
}
