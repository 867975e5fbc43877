import { createHash } from 'node:crypto'
import type pg from 'pg'
import type { Sql } from '../unit.ts'
import type { Answer, Sent } from './run.ts'

/*
 * PostgreSQL connections as the executor uses them, through node-postgres' public API (pinned to an
 * exact version): each connection pipelines (`pipeline: true`: the statements it is given leave
 * without waiting for the answers before them), and prepares each parameterized text once (a named
 * statement: the server parses and plans it once per connection, then only binds and executes it).
 */

/**
 * What every connection of the store is made with: a connection or a pool's wait for one gives up
 * after `connectTimeoutMs` (a database that does not answer, a failover to an address that drops
 * packets), and TCP keepalives find a peer gone silently on a connection left idle.
 */
export const connectionSettings = (databaseUrl: string, schemaName: string, connectTimeoutMs: number): pg.ClientConfig => ({
  connectionString: databaseUrl,
  pipeline: true,
  options: `-c search_path=${schemaName}`,
  connectionTimeoutMillis: connectTimeoutMs,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
})

/**
 * A connection names at most this many texts, which bounds what the server keeps for it (texts that
 * vary with a list's length); past that, the rest run unnamed.
 */
const perConnection = 256

/** The names each connection has given, which its server session holds. */
const given = new WeakMap<object, Set<string>>()

/** Names by text, remembered for the texts seen lately. */
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

/** The name `client` prepares `statement` under, if it does (it has parameters, is not made for one call alone, and the connection has room). */
function preparedName(client: object, statement: Sent): string | undefined {
  if (statement.unnamed || statement.values.length === 0) return undefined
  let named = given.get(client)
  if (!named) given.set(client, (named = new Set()))
  const name = nameOf(statement.text)
  if (!named.has(name)) {
    if (named.size >= perConnection) return undefined
    named.add(name)
  }
  return name
}

/** Sends one statement on `client`. */
export function send(client: pg.ClientBase, statement: Sent | Sql): Promise<Answer> {
  const { text, values, rowMode, types } = statement as Sent
  const name = preparedName(client, statement)
  return client.query({ text, values, name, rowMode, types } as pg.QueryConfig) as Promise<Answer>
}

/**
 * Sends statements on `client` together, in one write and one round trip (the connection
 * pipelines them): the last one's answer is theirs. They run inside the unit's transaction (a BEGIN
 * is the first of them, or was sent before), so one that fails aborts it and those after it fail
 * too: the first failure is the one told.
 */
export function sendAll(client: pg.ClientBase, sending: readonly (Sent | Sql)[]): Promise<Answer> {
  if (sending.length === 1) return send(client, sending[0] as Sent)
  corkedForTurn(client)
  const answers = sending.map((statement) => send(client, statement))
  return Promise.allSettled(answers).then((results) => {
    const failed = results.find((result) => result.status === 'rejected')
    if (failed) throw failed.reason
    return (results.at(-1) as PromiseFulfilledResult<Answer>).value
  })
}

/**
 * Holds the connection's writes until the end of this turn of the event loop, where they leave as
 * one: node-postgres writes each message of each statement apart, and a write on a socket is a
 * system call that also runs the server's receive path (a quarter of Confab's CPU on a page:
 * docs/internals/performance.md). The one driver field read (`connection.stream`, a net.Socket);
 * test/storage/drizzle-internals.test.ts fails if it changes.
 */
const corked = new WeakSet<object>()
export function corkedForTurn(client: pg.ClientBase): void {
  const stream = (client as unknown as { connection?: { stream?: { cork?(): void; uncork(): void } } }).connection?.stream
  if (!stream?.cork || corked.has(stream)) return
  corked.add(stream)
  stream.cork()
  setImmediate(() => {
    corked.delete(stream)
    stream.uncork()
  })
}

/*
 * Reads sent together. A lane is a connection that is never in a transaction: the reads given to it
 * in one turn of the event loop leave in one write, each with its own Sync (its own implicit
 * transaction, its own error), and come back together; a read takes the lane with the fewest in flight.
 */

interface Lane {
  client: Promise<pg.Client>
  /** Statements sent and not answered yet. */
  inFlight: number
}

export class ReadLanes {
  private readonly lanes: (Lane | undefined)[]
  private closed = false

  constructor(
    private readonly open: () => pg.Client,
    count: number,
    /** Told when a lane's connection is made (the store tells when the database answers again). */
    private readonly connected: () => void = () => {},
  ) {
    this.lanes = new Array(count).fill(undefined)
  }

  /** Sends a statement on the lane with the fewest in flight. */
  query(statement: Sent | Sql): Promise<Answer> {
    if (this.closed) return Promise.reject(new Error('the store is closed'))
    const lane = this.pick()
    lane.inFlight++
    return lane.client
      .then((client) => {
        corkedForTurn(client)
        return send(client, statement)
      })
      .finally(() => lane.inFlight--)
  }

  private pick(): Lane {
    let best = -1
    for (let i = 0; i < this.lanes.length; i++) {
      const lane = this.lanes[i]
      if (!lane) return (this.lanes[i] = this.connect(i))
      if (best === -1 || lane.inFlight < (this.lanes[best] as Lane).inFlight) best = i
    }
    return this.lanes[best] as Lane
  }

  private connect(i: number): Lane {
    const client = this.open()
    const lane: Lane = {
      client: client.connect().then(() => {
        this.connected()
        return client
      }),
      inFlight: 0,
    }
    // A lane whose connection fails is replaced on the next read; the statements on it fail with it.
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
