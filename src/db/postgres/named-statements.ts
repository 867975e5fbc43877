import { createHash } from 'node:crypto'

/*
 * Prepared (named) statements on PostgreSQL, at the driver: each distinct parameterized SQL text
 * gets a name from its hash, and node-postgres parses it once per connection (Parse), then only
 * binds and executes it (no parse or plan of its text again on the server). drizzle builds the same
 * text for the same query shape, so every hot query is named without the queries naming themselves.
 * A connection names at most `perConnection` texts, which bounds what the server keeps for it
 * (texts that vary with a list's length, say); past that, the rest run unnamed, as before.
 */
const perConnection = 256

/** The names each connection (its pg client) has given, which its server session holds. */
const given = new WeakMap<object, Set<string>>()

/** Names by text, remembered for the texts seen lately: a hash per query is cheap, none is cheaper. */
const names = new Map<string, string>()

const nameOf = (text: string): string => {
  let name = names.get(text)
  if (name === undefined) {
    if (names.size >= 4 * perConnection) names.clear()
    name = `confab_${createHash('sha1').update(text).digest('base64url')}`
    names.set(text, name)
  }
  return name
}

/** Marks a query config that is sent unnamed, to be planned on every call (query.ts: plannedEachCall). */
export const plannedEachCall = Symbol('plannedEachCall')

/** The query config `config` as `client` sends it: named when it has parameters and the connection has room. */
export function named<T extends { text?: unknown; name?: unknown; [plannedEachCall]?: boolean }>(
  client: object,
  config: T,
  values: readonly unknown[] | undefined,
): T {
  if (config.name !== undefined || config[plannedEachCall] || typeof config.text !== 'string' || !values || values.length === 0) return config
  let names = given.get(client)
  if (!names) given.set(client, (names = new Set()))
  const name = nameOf(config.text)
  if (!names.has(name)) {
    if (names.size >= perConnection) return config
    names.add(name)
  }
  return { ...config, name }
}
