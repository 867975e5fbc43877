import type { Statement } from 'better-sqlite3'
import { Column, getTableName, is, Param, Placeholder, SQL } from 'drizzle-orm'

/**
 * What drizzle's better-sqlite3 prepared query holds (drizzle-orm/better-sqlite3/session.js): its
 * statement, query, logger and selected fields are not part of its typed API.
 */
interface DrizzlePrepared {
  stmt: Statement
  query: { sql: string; params: unknown[] }
  logger: { logQuery(sql: string, params: unknown[]): void }
  fields?: { path: string[]; field: unknown }[]
  joinsNotNullableMap?: Record<string, boolean>
  customResultMapper?: unknown
}

type Values = Record<string, unknown>
type Decoder = { mapFromDriverValue(value: unknown): unknown }

/** How drizzle's fillPlaceholders reads one parameter, decided once: each run then only looks its value up. */
function binder(param: unknown): (values: Values) => unknown {
  if (is(param, Placeholder)) {
    const { name } = param
    return (values) => {
      if (!(name in values)) throw new Error(`No value for placeholder "${name}" was provided`)
      return values[name]
    }
  }
  if (is(param, Param) && is(param.value, Placeholder)) {
    const { encoder } = param
    const { name } = param.value
    return (values) => {
      if (!(name in values)) throw new Error(`No value for placeholder "${name}" was provided`)
      return encoder.mapToDriverValue(values[name])
    }
  }
  return () => param
}

/** The decoder drizzle's mapResultRow picks for a selected field. */
function decoderOf(field: unknown): Decoder {
  if (is(field, Column)) return field
  // An SQL expression's decoder (`.mapWith()`) is internal to drizzle; so is an aliased one's.
  if (is(field, SQL)) return (field as unknown as { decoder: Decoder }).decoder
  return (field as { sql: { decoder: Decoder } }).sql.decoder
}

/**
 * drizzle's mapResultRow for fields one or two deep (a table's columns, or the tables of a join),
 * with the choices it makes per field on every row made once: which decoder, which object, and
 * which joined object is null when its first column is (drizzle's rule for a left join that matched
 * nothing).
 */
function rowMapper(fields: NonNullable<DrizzlePrepared['fields']>, joins: DrizzlePrepared['joinsNotNullableMap']) {
  const columns = fields.map(({ path, field }) => ({ object: path.length === 2 ? path[0] : undefined, key: path.at(-1) as string, decoder: decoderOf(field) }))
  const nullable: { object: string; firstColumn: number }[] = []
  if (joins) {
    const objects = new Map<string, { firstColumn: number; table: string | false }>()
    fields.forEach(({ path, field }, index) => {
      if (path.length !== 2 || !is(field, Column)) return
      const table = getTableName(field.table)
      const seen = objects.get(path[0] as string)
      if (!seen) objects.set(path[0] as string, { firstColumn: index, table })
      else if (seen.table !== table) seen.table = false
    })
    for (const [object, { firstColumn, table }] of objects) {
      if (table !== false && !joins[table]) nullable.push({ object, firstColumn })
    }
  }
  return (row: unknown[]) => {
    const result: Record<string, unknown> = {}
    for (let i = 0; i < columns.length; i++) {
      const { object, key, decoder } = columns[i] as (typeof columns)[number]
      const raw = row[i]
      const value = raw === null ? null : decoder.mapFromDriverValue(raw)
      if (object === undefined) result[key] = value
      else ((result[object] ??= {}) as Record<string, unknown>)[key] = value
    }
    for (const { object, firstColumn } of nullable) if (row[firstColumn] === null) result[object] = null
    return result
  }
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
  if (customResultMapper || fields?.some(({ path }) => path.length > 2)) return prepared
  const binders = query.params.map(binder)
  const bind = (values: Values = {}) => {
    const params = binders.map((read) => read(values))
    logger.logQuery(query.sql, params)
    return params
  }
  const map = fields && rowMapper(fields, joinsNotNullableMap)
  return Object.assign(Object.create(prepared), {
    run: (values?: Values) => stmt.run(...bind(values)),
    all: (values?: Values) => (map ? stmt.raw().all(...bind(values)).map((row) => map(row as unknown[])) : stmt.all(...bind(values))),
    get: (values?: Values) => {
      if (!map) return stmt.get(...bind(values))
      const row = stmt.raw().get(...bind(values))
      return row === undefined ? undefined : map(row as unknown[])
    },
    values: (values?: Values) => stmt.raw().all(...bind(values)),
  }) as T
}

/**
 * The rows of a prepared query whose selection leaves out columns its call names (see Given in
 * src/db/query.ts), made whole straight from SQLite's positional values: one object per row, its
 * keys in the table's order, the left-out ones from the call's values.
 */
export function wholeRows(prepared: object, plan: { keys: readonly string[]; fromValues: readonly boolean[] }) {
  const { fields = [] } = prepared as unknown as DrizzlePrepared
  const decoders = fields.map(({ field }) => decoderOf(field))
  const { keys, fromValues } = plan
  return (row: unknown[], values: Values) => {
    const result: Record<string, unknown> = {}
    for (let i = 0, j = 0; i < keys.length; i++) {
      const key = keys[i] as string
      if (fromValues[i]) result[key] = values[key]
      else {
        const raw = row[j]
        result[key] = raw === null ? null : (decoders[j] as Decoder).mapFromDriverValue(raw)
        j++
      }
    }
    return result
  }
}
