import { createHash } from 'node:crypto'
import pg from 'pg'
import { storeClosed } from '../store.ts'
import { isDatabaseUnavailable } from '../unavailable.ts'
import { blamed, CommitGroups, type Planned, type Sql, UnitPlan } from './unit.ts'
import type { Answer, Send, Sent } from './run.ts'

/*
 * How a unit's statements reach PostgreSQL (unit.ts says when each leaves): reads on the read
 * lanes, a unit's transaction on a pooled connection taken when it first sends something that must
 * run on it, commit groups and statements that commit by themselves alone on the pool; through
 * node-postgres' public API (pinned exactly). Every connection pipelines (the statements it is given
 * leave without waiting for the answers before them) and prepares each parameterized text once.
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
function send(client: pg.ClientBase, statement: Sent | Sql): Promise<Answer> {
  const { text, values, rowMode, types } = statement as Sent
  return client.query({ text, values, name: preparedName(client, statement), rowMode, types } as pg.QueryConfig) as Promise<Answer>
}

/**
 * Sends statements of a unit's transaction together, in one write and one round trip: the last one's
 * answer is theirs; one that fails aborts the transaction, and the first failure is the one told.
 */
function sendAll(client: pg.ClientBase, sending: readonly (Sent | Sql)[]): Promise<Answer> {
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

/** Answered with nothing sent (a held insert, a unit that wrote nothing). */
const noRows: Answer = { rows: [], rowCount: null }

export class PostgresExecutor {
  readonly pool: pg.Pool
  private readonly lanes: ReadLanes
  private readonly groups = new CommitGroups((statement) => this.alone(statement))
  private available = true

  /** `onAvailability` is told once each way: the first connection error after the database answered, the first connection made after that. */
  constructor(settings: pg.ClientConfig, poolSize: number, readLanes: number, onAvailability?: (available: boolean, error?: unknown) => void) {
    const told = (available: boolean, error?: unknown) => {
      if (this.available === available || (!available && !isDatabaseUnavailable(error))) return
      this.available = available
      onAvailability?.(available, error)
    }
    const lost = (error: unknown) => told(false, error)
    this.pool = new pg.Pool({ ...settings, max: poolSize })
    // An idle connection the server dropped must not crash the process: the pool replaces it. One that
    // fails while a unit holds it emits 'error' on itself, which the pool listens to only while it is
    // idle: each connection gets a listener of its own. Its statements fail with the error (503).
    this.pool.on('error', lost)
    this.pool.on('connect', (client) => {
      client.on('error', lost)
      told(true)
    })
    this.lanes = new ReadLanes(
      () => new pg.Client(settings).on('error', lost) as pg.Client,
      readLanes,
      () => told(true),
    )
  }

  /** A statement outside any unit: a read on a lane, with the reads of its turn; any other alone on the pool. */
  outside({ kind, statement }: Planned<Sent>): Promise<Answer> {
    return kind === 'read' ? this.lanes.query(statement) : this.alone(statement)
  }

  /** One statement that commits by itself, on a pooled connection (a unit of one statement, a commit group). */
  private async alone(statement: Sent | Sql): Promise<Answer> {
    const client = await this.pool.connect()
    try {
      return await send(client, statement)
    } finally {
      client.release()
    }
  }

  /**
   * Runs `work` as one unit of work, each statement it sends going where the unit's plan says
   * (unit.ts), then commits it; rolls it back (its held inserts dropped unsent) if it throws.
   */
  async unit<T>(work: (send: Send) => Promise<T>): Promise<T> {
    const plan = new UnitPlan<Sent>()
    let connection: Promise<pg.PoolClient> | undefined
    const connected = () => (connection ??= this.pool.connect())
    const release = (broken: boolean) =>
      void connection?.then(
        (client) => client.release(broken),
        () => undefined,
      )
    const send: Send = (planned) => {
      const step = plan.step(planned)
      if (step.go === 'hold') return Promise.resolve(noRows)
      if (step.go === 'read') return this.lanes.query(planned.statement)
      const sent = connected().then((client) => sendAll(client, step.sending))
      return step.held.length === 0 ? sent : sent.catch((error: unknown) => Promise.reject(blamed(error, step.held)))
    }
    let value: T
    try {
      value = await work(send)
    } catch (error) {
      const rollback = plan.abort()
      let broken = false
      if (rollback.length > 0 && connection) await sendAll(await connection, rollback).catch(() => (broken = true))
      release(broken)
      throw error
    }
    const ending = plan.end()
    try {
      if (ending.go === 'group') await this.groups.commit(ending.held)
      else if (ending.go === 'unit') await sendAll(await connected(), ending.sending)
    } catch (error) {
      // A COMMIT whose connection failed: its outcome is unknown, the connection is not reused.
      // Any other failure ended the transaction (PostgreSQL answers the COMMIT of an aborted one with a ROLLBACK).
      release(isDatabaseUnavailable(error))
      throw ending.go === 'unit' ? blamed(error, ending.held) : error
    }
    release(false)
    return value
  }

  async close(): Promise<void> {
    await this.lanes.close()
    await this.pool.end()
  }
}
