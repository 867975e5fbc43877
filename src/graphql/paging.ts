import { resolveCursorConnection, type DefaultConnectionArguments } from '@pothos/plugin-relay'
import { invalidPayload } from '../domain/errors.ts'
import type { PageWindow } from '../domain/paging.ts'

export const defaultPageSize = 20
export const maxPageSize = 100

/** Runs a domain list verb for a connection's arguments, refusing page sizes outside 1–100. */
export function pageConnection<T extends { cursor: string }>(
  args: DefaultConnectionArguments,
  list: (window: PageWindow) => T[] | Promise<T[]>,
) {
  for (const [name, size] of [
    ['first', args.first],
    ['last', args.last],
  ] as const) {
    if (size != null && (size < 1 || size > maxPageSize)) {
      throw invalidPayload(`${name} (page size) must be from 1 to ${maxPageSize}, got ${size}`)
    }
  }
  return resolveCursorConnection<Promise<T[]>>(
    { args, toCursor: (item) => item.cursor, defaultSize: defaultPageSize, maxSize: maxPageSize },
    async (window) => list(window),
  )
}
