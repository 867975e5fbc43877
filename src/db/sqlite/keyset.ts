import { and, asc, desc, type SQL, sql } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import type { KeysetWindow, SortDirection } from '../store.ts'
import { runOften } from './statement.ts'

/** Two bound values: a position's own, or the placeholders a prepared statement takes them by. */
type Pair = readonly [unknown, unknown]

export interface Bounds {
  after?: Pair
  before?: Pair
  inverted: boolean
}

/**
 * The WHERE and ORDER BY of a keyset window over (sort column, id column) of a list sorted
 * `direction`: a row-value comparison that walks the index, never an OFFSET.
 */
export function keyset(columns: readonly [SQLiteColumn, SQLiteColumn], direction: SortDirection, bounds: Bounds) {
  const [first, second] = columns
  const beyond = ([a, b]: Pair, forward: boolean): SQL =>
    (direction === 'asc') === forward ? sql`(${first}, ${second}) > (${a}, ${b})` : sql`(${first}, ${second}) < (${a}, ${b})`
  const where = and(bounds.after && beyond(bounds.after, true), bounds.before && beyond(bounds.before, false))
  const order = (direction === 'asc') !== bounds.inverted ? asc : desc
  return { where, orderBy: [order(first), order(second)] }
}

/** A window's shape: which bounds it has and which way it walks. Each shape is one prepared statement. */
export type Shape = number

export const shapeOf = (window: KeysetWindow): Shape =>
  (window.after ? 1 : 0) | (window.before ? 2 : 0) | (window.inverted ? 4 : 0)

/** The bounds of a shape as placeholders, filled by `boundValues` when the statement runs. */
export const placeholderBounds = (shape: Shape): Bounds => ({
  after: shape & 1 ? [sql.placeholder('after0'), sql.placeholder('after1')] : undefined,
  before: shape & 2 ? [sql.placeholder('before0'), sql.placeholder('before1')] : undefined,
  inverted: (shape & 4) !== 0,
})

export const boundValues = (window: KeysetWindow) => ({
  after0: window.after?.[0],
  after1: window.after?.[1],
  before0: window.before?.[0],
  before1: window.before?.[1],
  limit: window.limit,
})

/** Prepared statements made on first use, one per key (a window's shape, with a sort where lists have several). */
export function preparedBy<K, S extends object>(make: (key: K) => S): (key: K) => S {
  const made = new Map<K, S>()
  return (key) => {
    let statement = made.get(key)
    if (statement === undefined) {
      statement = runOften(make(key))
      made.set(key, statement)
    }
    return statement
  }
}
