import type { KeysetWindow, Position } from '../db/store.ts'
import { invalidPayload } from './errors.ts'

/** The window the GraphQL connection asks for (plugin-relay's resolveCursorConnection arguments). */
export interface PageWindow {
  after?: string
  before?: string
  limit: number
  inverted: boolean
}

export type { SortDirection } from '../db/store.ts'

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
  if (!Array.isArray(parsed) || parsed.length !== arity + 1 || parsed[0] !== sort || !parsed.every((v) => typeof v === 'string')) {
    throw invalidPayload('nextToken is not a token this list issued')
  }
  return parsed.slice(1) as string[]
}

/**
 * The storage window for a connection's window: its cursors decoded into keyset positions of the
 * list `sort` (a cursor of another list is refused).
 */
export const keysetWindow = (sort: string, window: PageWindow): KeysetWindow => ({
  after: window.after === undefined ? undefined : position(sort, window.after),
  before: window.before === undefined ? undefined : position(sort, window.before),
  limit: window.limit,
  inverted: window.inverted,
})

const position = (sort: string, token: string): Position => {
  const [value, id] = decodeCursor(sort, token, 2) as [string, string]
  return [value, id]
}

export type Cursored<T> = T & { readonly cursor: string }

/**
 * Gives each row its cursor, which the connection hands out as the edge cursor. It is encoded when
 * read: most pages are asked for the cursor of their last row only.
 */
export const withCursors = <T extends object>(sort: string, rows: T[], key: (row: T) => readonly [string, string]): Cursored<T>[] =>
  rows.map((row) => new CursoredRow(row, sort, key) as unknown as Cursored<T>)

const encoding = Symbol('cursor encoding')

/** A row's columns with a lazy `cursor`, as a class: literals with a getter share no shape (docs/internals/performance.md). */
class CursoredRow<T extends object> {
  private readonly [encoding]: { sort: string; key: (row: T) => readonly [string, string] }
  constructor(row: T, sort: string, key: (row: T) => readonly [string, string]) {
    this[encoding] = { sort, key }
    Object.assign(this, row)
  }
  get cursor(): string {
    const { sort, key } = this[encoding]
    return encodeCursor(sort, key(this as unknown as T))
  }
}
