import pg from 'pg'
import { isDatabaseUnavailable } from '../unavailable.ts'
import { blamed, CommitGroups, type Planned, type Sql, UnitPlan } from '../unit.ts'
import { ReadLanes, send, sendAll } from './connection.ts'
import type { Answer, Send, Sent } from './run.ts'

/*
 * How a unit's statements reach PostgreSQL (src/db/unit.ts says when each leaves): reads on the read
 * lanes, a unit's transaction on a pooled connection taken when it first sends something that must
 * run on it, commit groups and statements that commit by themselves alone on the pool.
 */

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
   * (src/db/unit.ts), then commits it; rolls it back (its held inserts dropped unsent) if it throws.
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
