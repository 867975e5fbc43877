import type { KeysetWindow } from '../../db/store.ts'
import { keysetWindow, withCursors } from '../paging.ts'

/** The bot API lists 20 a page; one row more tells whether there is a next page. */
const pageSize = 20

/** The storage window of a bot API list page after `nextToken`, a cursor of the list `sort`. */
export const botApiWindow = (sort: string, nextToken: string | undefined): KeysetWindow =>
  keysetWindow(sort, { after: nextToken, limit: pageSize + 1, inverted: false })

/** A page of the rows read for `botApiWindow`, and its `meta.nextToken` (left out on the last page). */
export function botApiPage<T extends object>(sort: string, rows: T[], key: (row: T) => readonly [string, string]) {
  const page = withCursors(sort, rows.slice(0, pageSize), key)
  const last = page.at(-1)
  return { page, meta: rows.length > pageSize && last ? { nextToken: last.cursor } : {} }
}
