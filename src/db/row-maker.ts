import { Column, getTableName, is, SQL } from 'drizzle-orm'
import type { Values } from './placeholders.ts'

/*
 * Rows made objects from the positional values a driver returns, as drizzle's mapResultRow makes
 * them, with its choices per column made once per statement (src/db/sqlite/statement.ts,
 * src/db/postgres/run.ts).
 */

/** A selected field as drizzle's prepared queries list them. */
export interface SelectedField {
  path: string[]
  field: unknown
}

type Decoder = { mapFromDriverValue(value: unknown): unknown }

/** What drizzle's base Column does with a value read: nothing. */
const asRead = Column.prototype.mapFromDriverValue

/**
 * The function that makes a row an object, derived from the columns it selects: one object literal
 * (one shape for every row) and a call site per column, where a loop over the columns would make
 * every decoder's call site see every column type (its cost: docs/internals/performance.md).
 * `r` is the row's values in order, `v` the call's values (for the keys taken from them).
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
 * nothing). A join's rows are made by one derived function too, each object a literal.
 */
export function rowMapper(fields: readonly SelectedField[], joins: Record<string, boolean> | undefined) {
  const columns = fields.map(({ path, field }) => ({ object: path.length === 2 ? path[0] : undefined, key: path.at(-1) as string, decoder: decoderOf(field) }))
  const nullable = new Set<string>()
  if (joins) {
    const objects = new Map<string, string | false>()
    fields.forEach(({ path, field }) => {
      if (path.length !== 2 || !is(field, Column)) return
      const table = getTableName(field.table)
      const seen = objects.get(path[0] as string)
      if (seen === undefined) objects.set(path[0] as string, table)
      else if (seen !== table) objects.set(path[0] as string, false)
    })
    for (const [object, table] of objects) if (table !== false && !joins[table]) nullable.add(object)
  }
  // A table's columns (the hot queries' rows).
  if (columns.every(({ object }) => object === undefined)) {
    return rowMaker(
      columns.map(({ key }) => key),
      columns.map(({ decoder }) => ({ decoder })),
    )
  }
  return joinRowMaker(columns, nullable)
}

/** rowMaker for the rows of a join: `{ table: { column… } | null, expression… }`, in the order drizzle makes them. */
function joinRowMaker(columns: readonly { object: string | undefined; key: string; decoder: Decoder }[], nullable: ReadonlySet<string>) {
  if (columns.some(({ object, key }) => object === '__proto__' || key === '__proto__')) throw new Error('a column may not be named __proto__')
  const decoders: (Decoder | undefined)[] = []
  const value = (at: number, decoder: Decoder) => {
    if (decoder.mapFromDriverValue === asRead) return `r[${at}]`
    decoders[at] = decoder
    return `r[${at}] === null ? null : d[${at}].mapFromDriverValue(r[${at}])`
  }
  const objects = new Map<string, { first: number; parts: string[] }>()
  const parts: (string | { object: string })[] = []
  columns.forEach(({ object, key, decoder }, at) => {
    const part = `${JSON.stringify(key)}: ${value(at, decoder)}`
    if (object === undefined) return void parts.push(part)
    let made = objects.get(object)
    if (!made) {
      objects.set(object, (made = { first: at, parts: [] }))
      parts.push({ object })
    }
    made.parts.push(part)
  })
  const literal = parts.map((part) => {
    if (typeof part === 'string') return part
    const { first, parts: inner } = objects.get(part.object) as { first: number; parts: string[] }
    const made = `{ ${inner.join(', ')} }`
    return `${JSON.stringify(part.object)}: ${nullable.has(part.object) ? `r[${first}] === null ? null : ${made}` : made}`
  })
  const make = new Function('d', `return function row(r) { return { ${literal.join(', ')} } }`)
  return make(decoders) as (row: unknown[]) => Record<string, unknown>
}

/**
 * The rows of a prepared query whose selection leaves out columns its call names (see Given in
 * src/db/query.ts), made whole straight from the driver's positional values: one object per row, its
 * keys in the table's order, the left-out ones from the call's values.
 */
export function wholeRows(fields: readonly SelectedField[], plan: { keys: readonly string[]; fromValues: readonly boolean[] }) {
  const decoders = fields.map(({ field }) => decoderOf(field))
  let column = 0
  const sources = plan.keys.map((_, i) => (plan.fromValues[i] ? ('values' as const) : { decoder: decoders[column++] as Decoder }))
  return rowMaker(plan.keys, sources) as (row: unknown[], values: Values) => Record<string, unknown>
}
