import { getTableName, is, Table } from 'drizzle-orm'
import type { TestApp } from './app.ts'

/** Every table of the app's engine, by name, read from its drizzle schema: a table added later is in it. */
export const tableNames = (t: TestApp): string[] =>
  (Object.values(t.tables) as unknown[])
    .filter((value): value is Table => is(value, Table))
    .map((table) => getTableName(table))
    .sort()

/**
 * The rows of every table that hold any of `needles` anywhere (any column, JSON inside included),
 * by table: what a deletion must leave none of.
 */
export async function rowsHolding(t: TestApp, needles: readonly string[]): Promise<Record<string, unknown[]>> {
  const found: Record<string, unknown[]> = {}
  for (const name of tableNames(t)) {
    const rows = await t.query(`select * from "${name}"`)
    const holding = rows.filter((row) => {
      const text = JSON.stringify(row, (_key, value) => (typeof value === 'bigint' ? String(value) : value))
      return needles.some((needle) => text.includes(needle))
    })
    if (holding.length > 0) found[name] = holding
  }
  return found
}
