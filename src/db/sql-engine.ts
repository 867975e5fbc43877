import { type Column, getTableColumns, type SQL, sql, type Table } from 'drizzle-orm'
import type * as schema from './schema.ts'
import type { KeysetWindow, SortDirection } from './store.ts'

/**
 * What a query written once for both engines runs on: the engine's own tables (the same names and
 * columns on both, see src/db/postgres/schema.ts) and two ways to run a `sql` template. Statements
 * built from these render in the engine's dialect; only what both dialects say the same way is
 * written with them (row values, subqueries, LIMIT).
 */
export interface SqlEngine {
  /** The engine's tables, typed as SQLite's (PostgreSQL's have the same names, columns and row shapes). */
  tables: typeof schema
  /** The rows a statement returns, as the driver gives them (column names as the database has them). */
  all(query: SQL): Promise<Record<string, unknown>[]>
  /** Runs a statement; how many rows it changed. */
  run(query: SQL): Promise<number>
}

/**
 * Rows as the table's row type: each column read from its database name and decoded as the column
 * decodes it (JSON text on SQLite, 0/1 booleans), so that a raw row reads back as a drizzle select's.
 */
export function rowsOf<T extends Table>(table: T, records: Record<string, unknown>[]): T['$inferSelect'][] {
  const columns = Object.entries(getTableColumns(table))
  return records.map((record) => {
    const row: Record<string, unknown> = {}
    for (const [key, column] of columns) {
      const value = record[column.name]
      row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value)
    }
    return row as T['$inferSelect']
  })
}

/**
 * The WHERE and ORDER BY of a keyset window over (sort column, id column) of a list sorted
 * `direction`, written once for both engines (a row-value comparison, never an OFFSET).
 */
export function keysetWhere(columns: readonly [Column, Column], direction: SortDirection, window: KeysetWindow) {
  const [first, second] = columns
  const beyond = ([a, b]: readonly [string, string], forward: boolean): SQL =>
    (direction === 'asc') === forward ? sql`(${first}, ${second}) > (${a}, ${b})` : sql`(${first}, ${second}) < (${a}, ${b})`
  const conditions = [window.after && beyond(window.after, true), window.before && beyond(window.before, false)].filter(
    (condition): condition is SQL => condition !== undefined,
  )
  const order = (direction === 'asc') !== window.inverted ? sql`asc` : sql`desc`
  return {
    where: conditions.length === 0 ? sql`1 = 1` : sql.join(conditions, sql` and `),
    orderBy: sql`${first} ${order}, ${second} ${order}`,
  }
}
