import pg from 'pg'
import { isDatabaseUnavailable } from '../unavailable.ts'
import { blamed, CommitGroups, type Held, type Planned, type Sql, UnitPlan } from '../unit.ts'
import { connectionSettings, ReadLanes, send, sendAll } from './connection.ts'
import type { Answer, Send, Sent } from './run.ts'

/*
 * How a unit's statements reach PostgreSQL (src/db/unit.ts says when each leaves): reads on the read
 * lanes (connection.ts), a unit's transaction on a pooled connection taken when it first sends
 * something that must run on it, the units that end with held inserts only in commit groups on the
 * pool, and a unit of one statement alone on the pool.
 */

export interface ExecutorOptions {
  databaseUrl: string
  schema: string
  poolSize: number
  /** Connections that send reads together, besides the pool; 0: reads on the pool. */
  readLanes: number
  connectTimeoutMs: number
  /** Told of a connection error (the database went away), and of each connection made. */
  lost(error: unknown): void
  back(): void
}

/** Answered with nothing sent (a held insert, a unit that wrote nothing). */
const noRows: Answer = { rows: [], rowCount: null }

/** One unit of work on the executor: its statements, then its end. */
export interface UnitRun {
  send: Send
  /** Commits what the unit wrote (nothing, a group's statement, or its transaction's COMMIT). */
  commit(): Promise<void>
  /** Rolls the unit back (its held inserts are dropped) and gives its connection back. */
  abort(): Promise<void>
}

export class PostgresExecutor {
  readonly pool: pg.Pool
  private readonly lanes: ReadLanes | undefined
  private readonly groups: CommitGroups

  constructor(options: ExecutorOptions) {
    const settings = connectionSettings(options.databaseUrl, options.schema, options.connectTimeoutMs)
    this.pool = new pg.Pool({ ...settings, max: options.poolSize })
    // An idle connection the server dropped must not crash the process: the pool replaces it. One that
    // fails while a unit holds it emits 'error' on itself, which the pool listens to only while it is
    // idle: each connection gets a listener of its own. Its statements fail with the error (503).
    this.pool.on('error', options.lost)
    this.pool.on('connect', (client) => {
      client.on('error', options.lost)
      options.back()
    })
    if (options.readLanes > 0) {
      this.lanes = new ReadLanes(
        () => {
          const client = new pg.Client(settings)
          client.on('error', options.lost)
          return client
        },
        options.readLanes,
        options.back,
      )
    }
    this.groups = new CommitGroups((statement) => this.alone(statement))
  }

  /** A read outside any unit: on a lane (with the reads of its turn), or on the pool. */
  read(statement: Sent): Promise<Answer> {
    return this.lanes ? this.lanes.query(statement) : this.alone(statement)
  }

  /** One statement that commits by itself, on a pooled connection (a unit of one statement, a commit group). */
  async alone(statement: Sent | Sql): Promise<Answer> {
    const client = await this.pool.connect()
    try {
      return await send(client, statement)
    } finally {
      client.release()
    }
  }

  /** Commits the held inserts of a unit that sent nothing else, grouped with those of the units ending with it. */
  commitGroup(held: readonly Held[]): Promise<void> {
    return this.groups.commit(held)
  }

  /** A unit of work: its plan decides where each statement goes (src/db/unit.ts). */
  unit(): UnitRun {
    const plan = new UnitPlan<Sent>()
    let connection: Promise<pg.PoolClient> | undefined
    const connected = () => (connection ??= this.pool.connect())
    const release = (broken: boolean) => {
      const taken = connection
      connection = undefined
      void taken?.then(
        (client) => client.release(broken),
        () => undefined,
      )
    }
    return {
      send: (planned: Planned<Sent>) => {
        const step = plan.step(planned)
        if (step.go === 'hold') return Promise.resolve(noRows)
        if (step.go === 'read') return this.read(planned.statement)
        const sent = connected().then((client) => sendAll(client, step.sending))
        return step.held.length === 0 ? sent : sent.catch((error: unknown) => Promise.reject(blamed(error, step.held)))
      },
      commit: async () => {
        const ending = plan.end()
        try {
          if (ending.go === 'group') await this.commitGroup(ending.held)
          else if (ending.go === 'unit') await sendAll(await connected(), ending.sending)
        } catch (error) {
          // A COMMIT whose connection failed: its outcome is unknown, the connection is not reused.
          // Any other failure ended the transaction (PostgreSQL answers the COMMIT of an aborted one with a ROLLBACK).
          release(isDatabaseUnavailable(error))
          throw ending.go === 'unit' ? blamed(error, ending.held) : error
        }
        release(false)
      },
      abort: async () => {
        const sending = plan.abort()
        let broken = false
        if (sending.length > 0 && connection) await sendAll(await connection, sending).catch(() => (broken = true))
        release(broken)
      },
    }
  }

  async close(): Promise<void> {
    await this.lanes?.close()
    await this.pool.end()
  }
}
