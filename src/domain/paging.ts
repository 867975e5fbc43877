import { and, asc, desc, sql, type SQL } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import { invalidPayload } from './errors.ts'

/** The window the GraphQL connection asks for (plugin-relay's resolveCursorConnection arguments). */
export interface PageWindow {
  after?: string
  before?: string
  limit: number
  inverted: boolean
}

export type SortDirection = 'asc' | 'desc'

/**
 * A cursor is the keyset position of a row: the values of its sort columns, tagged with the sort it
 * belongs to so that a token from one ordering cannot be replayed against another.
 */
export function encodeCursor(sort: string, values: readonly string[]): string {
  return Buffer.from(JSON.stringify([sort, ...values])).toString('base64url')
}

export function decodeCursor(sort: string, token: string, arity: number): string[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'))
  } catch {
    parsed = undefined
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== arity + 1 ||
    parsed[0] !== sort ||
    !parsed.every((v) => typeof v === 'string')
  ) {
    throw invalidPayload('nextToken is not a token this list issued')
  }
  return parsed.slice(1) as string[]
}

/**
 * Keyset pagination over a (sortColumn, idColumn) pair: the WHERE for the window and the ORDER BY
 * that walks it. Never OFFSET, so a page costs the same wherever it is in the list.
 */
export function keyset(
  sort: string,
  columns: readonly [SQLiteColumn, SQLiteColumn],
  window: PageWindow,
  direction: SortDirection = 'asc',
): { where: SQL | undefined; orderBy: SQL[] } {
  const [first, second] = columns
  const bound = (token: string, forward: boolean) => {
    const [a, b] = decodeCursor(sort, token, 2)
    const ascending = (direction === 'asc') === forward
    return ascending ? sql`(${first}, ${second}) > (${a}, ${b})` : sql`(${first}, ${second}) < (${a}, ${b})`
  }
  const conditions = [
    window.after === undefined ? undefined : bound(window.after, true),
    window.before === undefined ? undefined : bound(window.before, false),
  ]
  const walkAscending = (direction === 'asc') !== window.inverted
  const order = walkAscending ? asc : desc
  return { where: and(...conditions), orderBy: [order(first), order(second)] }
}

export type Cursored<T> = T & { cursor: string }

/** Stamps each row with its cursor, which the connection hands out as the edge cursor. */
export const withCursors = <T>(sort: string, rows: T[], key: (row: T) => readonly [string, string]): Cursored<T>[] =>
  rows.map((row) => ({ ...row, cursor: encodeCursor(sort, key(row)) }))
