import { and, asc, desc, type SQL, sql } from 'drizzle-orm'
import type { PgColumn } from 'drizzle-orm/pg-core'
import type { KeysetWindow, Position, SortDirection } from '../store.ts'

/**
 * The WHERE and ORDER BY of a keyset window over (sort column, id column) of a list sorted
 * `direction`: a row-value comparison that walks the index, never an OFFSET (as src/db/sqlite/keyset.ts).
 */
export function keyset(columns: readonly [PgColumn, PgColumn], direction: SortDirection, window: KeysetWindow) {
  const [first, second] = columns
  const beyond = ([a, b]: Position, forward: boolean): SQL =>
    (direction === 'asc') === forward ? sql`(${first}, ${second}) > (${a}, ${b})` : sql`(${first}, ${second}) < (${a}, ${b})`
  const where = and(window.after && beyond(window.after, true), window.before && beyond(window.before, false))
  const order = (direction === 'asc') !== window.inverted ? asc : desc
  return { where, orderBy: [order(first), order(second)] }
}
