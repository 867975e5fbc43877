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
  if (is(param, Placeholder)) return valueOf(param.name)
  if (is(param, Param) && is(param.value, Placeholder)) {
    const { encoder } = param
    const read = valueOf(param.value.name)
    return (values) => encoder.mapToDriverValue(read(values))
  }
  return () => param
}

/** How a placeholder's value is found: by its name, or `list.i` for the i-th item of the list `list` (src/db/sqlite/run.ts). */
function valueOf(name: string): (values: Values) => unknown {
  const item = /^(.+)\.(\d+)$/.exec(name)
  if (item) {
    const list = item[1] as string
    const index = Number(item[2])
    return (values) => {
      const items = values[list]
      if (!Array.isArray(items) || index >= items.length) throw new Error(`No value for placeholder "${name}" was provided`)
      return items[index]
    }
  }
  return (values) => {
    if (!(name in values)) throw new Error(`No value for placeholder "${name}" was provided`)
    return values[name]
  }
}

/** What drizzle's base Column does with a value read: nothing. */
const asRead = Column.prototype.mapFromDriverValue

/**
 * The function that makes a row an object, derived from the columns it selects: one object literal
 * (one shape for every row) and a call site per column, where a loop over the columns would make
 * every decoder's call site see every column type (its cost: docs/internals/performance.md).
 * `fields` are the row's values in order; a key from `values` is taken from the call's values.
 */
function rowMaker(keys: readonly string[], sources: readonly ({ decoder: Decoder } | 'values')[]) {
  // A key is a property name of the literal, as the schema's keys all are.
  if (keys.some((key) => key === '__proto__')) throw new Error('a column may not be named __proto__')
  const decoders: (Decoder | undefined)[] = []
  let column = 0
  const parts = keys.map((key, i) => {
    const name = JSON.stringify(key)
    const source = sources[i] as { decoder: Decoder } | 'values'
    if (source === 'values') return `${name}: v[${name}]`
    const at = column++
    if (source.decoder.mapFromDriverValue === asRead) return `${name}: r[${at}]`
    decoders[at] = source.decoder
    return `${name}: r[${at}] === null ? null : d[${at}].mapFromDriverValue(r[${at}])`
  })
  const make = new Function('d', `return function row(r, v) { return { ${parts.join(', ')} } }`)
  return make(decoders) as (row: unknown[], values?: Values) => Record<string, unknown>
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
  // A table's columns (the hot queries' rows): one derived function.
  if (columns.every(({ object }) => object === undefined)) {
    return rowMaker(
      columns.map(({ key }) => key),
      columns.map(({ decoder }) => ({ decoder })),
    )
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
  let column = 0
  const sources = plan.keys.map((_, i) => (plan.fromValues[i] ? ('values' as const) : { decoder: decoders[column++] as Decoder }))
  return rowMaker(plan.keys, sources) as (row: unknown[], values: Values) => Record<string, unknown>
}
