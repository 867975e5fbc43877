import type { Statement } from 'better-sqlite3'
import { binder, type Values } from '../placeholders.ts'
import { rowMapper, type SelectedField } from '../row-maker.ts'

/**
 * What drizzle's better-sqlite3 prepared query holds (drizzle-orm/better-sqlite3/session.js): its
 * statement, query, logger and selected fields are not part of its typed API.
 */
interface DrizzlePrepared {
  stmt: Statement
  query: { sql: string; params: unknown[] }
  logger: { logQuery(sql: string, params: unknown[]): void }
  fields?: SelectedField[]
  joinsNotNullableMap?: Record<string, boolean>
  customResultMapper?: unknown
}

/** drizzle's own prepared query, given each list's items under their placeholders' names (`list.i`) as well. */
function withListItems<T extends object>(prepared: T): T {
  const spread = (values: Values = {}) => {
    const named: Values = { ...values }
    for (const [name, value] of Object.entries(values)) if (Array.isArray(value)) value.forEach((item, i) => (named[`${name}.${i}`] = item))
    return named
  }
  const own = prepared as unknown as Record<'run' | 'all' | 'get' | 'values', (values: Values) => unknown>
  return Object.assign(Object.create(prepared), {
    run: (values?: Values) => own.run(spread(values)),
    all: (values?: Values) => own.all(spread(values)),
    get: (values?: Values) => own.get(spread(values)),
    values: (values?: Values) => own.values(spread(values)),
  }) as T
}

/**
 * A drizzle prepared query that runs as drizzle's does, with the work drizzle repeats on every run
 * done once when it is made: which parameter takes which value, and how a row becomes an object.
 * That repeated work is an entity check per parameter and per column, and the row bookkeeping
 * (its cost: docs/internals/performance.md, lab notes).
 */
export function runOften<T extends object>(prepared: T): T {
  const { stmt, query, logger, fields, joinsNotNullableMap, customResultMapper } = prepared as unknown as DrizzlePrepared
  // Deeper selections, and drizzle's relational queries, keep drizzle's own mapping.
  if (customResultMapper || fields?.some(({ path }) => path.length > 2)) return withListItems(prepared)
  const binders = query.params.map(binder)
  const bind = (values: Values = {}) => {
    const params = binders.map((read) => read(values))
    logger.logQuery(query.sql, params)
    return params
  }
  const map = fields && rowMapper(fields, joinsNotNullableMap)
  return Object.assign(Object.create(prepared), {
    run: (values?: Values) => stmt.run(...bind(values)),
    all: (values?: Values) =>
      map
        ? stmt
            .raw()
            .all(...bind(values))
            .map((row) => map(row as unknown[]))
        : stmt.all(...bind(values)),
    get: (values?: Values) => {
      if (!map) return stmt.get(...bind(values))
      const row = stmt.raw().get(...bind(values))
      return row === undefined ? undefined : map(row as unknown[])
    },
    values: (values?: Values) => stmt.raw().all(...bind(values)),
  }) as T
}

/** The fields a prepared query selects (none: it returns no rows). */
export const selectedFields = (prepared: object): SelectedField[] => (prepared as unknown as DrizzlePrepared).fields ?? []
