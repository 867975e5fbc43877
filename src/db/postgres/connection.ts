import { createHash } from 'node:crypto'
import type pg from 'pg'
import { storeClosed } from '../store.ts'
import type { Sql } from '../unit.ts'
import type { Answer, Sent } from './run.ts'

/*
 * Statements on a PostgreSQL connection, through node-postgres' public API (pinned exactly). Every
 * connection pipelines (the statements it is given leave without waiting for the answers before
 * them) and prepares each parameterized text once (parsed and planned once per connection).
 */

/** Every connection's: connecting (or waiting for a pooled one) gives up after `connectTimeoutMs`; keepalives find a peer gone silently. */
export const connectionSettings = (databaseUrl: string, schema: string, connectTimeoutMs: number): pg.ClientConfig => ({
  connectionString: databaseUrl,
  pipeline: true,
  options: `-c search_path=${schema}`,
  connectionTimeoutMillis: connectTimeoutMs,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
})

/** A connection names at most this many texts, which bounds what its server session keeps (texts that vary with a list's length); past that, the rest run unnamed. */
const perConnection = 256

/** The names each connection has given, which its server session holds. */
const given = new WeakMap<object, Set<string>>()

/** Names by text, remembered for the texts seen lately. */
const names = new Map<string, string>()

/** The name `client` prepares `statement` under, if it does (it has parameters, is not made for one call alone, and the connection has room). */
function preparedName(client: object, { text, values, unnamed }: Sent): string | undefined {
  if (unnamed || values.length === 0) return undefined
  let name = names.get(text)
  if (name === undefined) {
    if (names.size >= 4 * perConnection) names.clear()
    names.set(text, (name = `confab_${createHash('sha1').update(text).digest('base64url')}`))
  }
  let named = given.get(client)
  if (!named) given.set(client, (named = new Set()))
  if (!named.has(name)) {
    if (named.size >= perConnection) return undefined
    named.add(name)
  }
  return name
}

/** Sends one statement on `client`. */
export function send(client: pg.ClientBase, statement: Sent | Sql): Promise<Answer> {
  const { text, values, rowMode, types } = statement as Sent
  return client.query({ text, values, name: preparedName(client, statement), rowMode, types } as pg.QueryConfig) as Promise<Answer>
}

/**
 * Sends statements of a unit's transaction together, in one write and one round trip: the last one's
 * answer is theirs; one that fails aborts the transaction, and the first failure is the one told.
 */
export function sendAll(client: pg.ClientBase, sending: readonly (Sent | Sql)[]): Promise<Answer> {
  if (sending.length === 1) return send(client, sending[0] as Sent)
  corkedForTurn(client)
  return Promise.allSettled(sending.map((statement) => send(client, statement))).then((results) => {
    const failed = results.find((result) => result.status === 'rejected')
    if (failed) throw failed.reason
    return (results.at(-1) as PromiseFulfilledResult<Answer>).value
  })
}

/**
 * Holds the connection's writes until the end of this turn, where they leave as one: node-postgres
 * writes each message apart, a system call each (a quarter of Confab's CPU on a page:
 * docs/internals/performance.md). The one driver field read (`connection.stream`): drizzle-internals.test.ts.
 */
const corked = new WeakSet<object>()
function corkedForTurn(client: pg.ClientBase): void {
  const stream = (client as unknown as { connection?: { stream?: { cork?(): void; uncork(): void } } }).connection?.stream
  if (!stream?.cork || corked.has(stream)) return
  corked.add(stream)
  stream.cork()
  setImmediate(() => {
    corked.delete(stream)
    stream.uncork()
  })
}

interface Lane {
  client: Promise<pg.Client>
  /** Statements sent and not answered yet. */
  inFlight: number
}

/**
 * Reads sent together. A lane is a connection never in a transaction: the reads given to it in one
 * turn of the event loop leave in one write, each with its own Sync (its own implicit transaction,
 * its own error), and come back together. A read takes the lane with the fewest in flight; a lane
 * whose connection fails is made again by the next read (the reads on it fail with it).
 */
export class ReadLanes {
  private readonly lanes: (Lane | undefined)[]
  private closed = false

  constructor(
    private readonly open: () => pg.Client,
    count: number,
    /** Told when a lane's connection is made (the database answers again). */
    private readonly connected: () => void = () => {},
  ) {
    this.lanes = new Array(count).fill(undefined)
  }

  query(statement: Sent | Sql): Promise<Answer> {
    if (this.closed) return Promise.reject(storeClosed())
    const empty = this.lanes.indexOf(undefined)
    const lane = empty >= 0 ? (this.lanes[empty] = this.connect(empty)) : (this.lanes as Lane[]).reduce((best, l) => (l.inFlight < best.inFlight ? l : best))
    lane.inFlight++
    return lane.client
      .then((client) => {
        corkedForTurn(client)
        return send(client, statement)
      })
      .finally(() => lane.inFlight--)
  }

  private connect(i: number): Lane {
    const client = this.open()
    const connected = client.connect().then(() => {
      this.connected()
      return client
    })
    const lane: Lane = { client: connected, inFlight: 0 }
    const drop = () => {
      if (this.lanes[i] === lane) this.lanes[i] = undefined
    }
    client.on('error', drop)
    client.on('end', drop)
    lane.client.catch(drop)
    return lane
  }

  async close(): Promise<void> {
    this.closed = true
    const open = this.lanes.filter((lane): lane is Lane => lane !== undefined)
    this.lanes.fill(undefined)
    await Promise.allSettled(open.map(async (lane) => (await lane.client).end()))
  }
}
