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

/**
 * The configs named, by the config they were made from and the text they send: made once. Each has
 * no property of its own (they are its prototype's), as node-postgres copies a config's own
 * properties, descriptor by descriptor, for every query it is given.
 */
const namedConfigs = new WeakMap<object, Map<string, object>>()

function namedConfig<T extends object>(config: T, text: string, name: string): T {
  let byText = namedConfigs.get(config)
  if (!byText) namedConfigs.set(config, (byText = new Map()))
  let made = byText.get(text)
  if (made === undefined) {
    if (byText.size >= 4 * perConnection) byText.clear()
    made = Object.create({ ...config, text, name }) as object
    byText.set(text, made)
  }
  return made as T
}

/**
 * The query config `config`, sending `text`, as `client` sends it: named when it has parameters
 * and the connection has room.
 */
export function named<T extends { text?: unknown; name?: unknown; [plannedEachCall]?: boolean }>(
  client: object,
  config: T,
  values: readonly unknown[] | undefined,
  text: string,
): T {
  if (config.name !== undefined || config[plannedEachCall] || !values || values.length === 0) return { ...config, text }
  let names = given.get(client)
  if (!names) given.set(client, (names = new Set()))
  const name = nameOf(text)
  if (!names.has(name)) {
    if (names.size >= perConnection) return { ...config, text }
    names.add(name)
  }
  return namedConfig(config, text, name)
}
