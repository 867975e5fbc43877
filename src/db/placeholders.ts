import { is, Param, Placeholder, sql } from 'drizzle-orm'
import type { Built, Key, On, Query } from './query.ts'

/*
 * A statement made once per query shape and key, with placeholders where the call's values go
 * (src/db/sqlite/run.ts, src/db/postgres/run.ts): the placeholders it is built with, and how each
 * of its parameters is read from a call's values.
 */

export type Values = Record<string, unknown>

/**
 * The statements an engine makes of shapes: `make` is given a shape built once per key, with
 * placeholders for the values (`once` false: kept and reused by every call of that key), or built of
 * one call's values when its key is null (`once` true: made for that call alone).
 */
export function statementsByKey<S>(on: On, make: (query: Query<never, unknown>, built: Built, once: boolean) => S) {
  const made = new WeakMap<Query<never, unknown>, Map<Key, S>>()
  return <V>(query: Query<V, unknown>, values: V): S => {
    const shape = query as Query<never, unknown>
    const key = query.key ? query.key(values) : 0
    if (key === null) return make(shape, query.build(on, values, null), true)
    let byKey = made.get(shape)
    if (!byKey) made.set(shape, (byKey = new Map()))
    let statement = byKey.get(key)
    if (statement === undefined) byKey.set(key, (statement = make(shape, query.build(on, placeholdersFor(values as Values) as V, key), false)))
    return statement
  }
}

/** Placeholders standing for values of this structure: a list's items each (`name.i`), every other value whole. */
export function placeholdersFor(values: Values): Values {
  const result: Values = {}
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) result[name] = undefined
    else if (Array.isArray(value)) result[name] = value.map((_, i) => sql.placeholder(`${name}.${i}`))
    else result[name] = sql.placeholder(name)
  }
  return result
}

/** How drizzle's fillPlaceholders reads one parameter, decided once: each run then only looks its value up. */
export function binder(param: unknown): (values: Values) => unknown {
  if (is(param, Placeholder)) return valueOf(param.name)
  if (is(param, Param) && is(param.value, Placeholder)) {
    const { encoder } = param
    const read = valueOf(param.value.name)
    return (values) => encoder.mapToDriverValue(read(values))
  }
  return () => param
}

/** How a placeholder's value is found: by its name, or `list.i` for the i-th item of the list `list`. */
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
