import { isDatabaseUnavailable } from '../unavailable.ts'
import { type Held, heldStatement, maxHeldValues, noRows, type Statement } from './deferred-writes.ts'

/*
 * Units whose only writes are inserts held to their end (a createMessage: its message, bot event
 * and delivery) commit as one statement by themselves (deferred-writes.ts). Those that end while
 * another group is being written, or in the same turn of the event loop, are written together: one
 * statement of all their rows, one commit and one WAL flush, one write on one pooled connection,
 * where each was all of these on its own (a write on a loopback socket, which wakes a PostgreSQL
 * process, was a third of Confab's CPU on a createMessage: docs/internals/performance.md). One group
 * is written at a time: two groups whose rows share the outbox's heads in different orders could
 * deadlock, and while one is written the next grows, as PostgreSQL's own group commit does.
 *
 * A group that fails (a conversation deleted meanwhile breaks one row's foreign key) is written
 * again unit by unit, so that each unit has its own outcome: the others commit, the one that broke
 * fails as it would have alone (and is run again, or answers 404/409: store.ts).
 */

interface Waiting {
  held: readonly Held[]
  values: number
  resolve(result: unknown): void
  reject(error: unknown): void
}

export class LoneStatements {
  private waiting: Waiting[] = []
  private writing = false
  private scheduled = false

  /** `send` commits one statement by itself (on a pooled connection, outside any transaction). */
  constructor(private readonly send: (statement: Statement) => Promise<unknown>) {}

  /** Commits the unit's held inserts, with those of the units ending with it. */
  commit(held: readonly Held[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let values = 0
      for (const h of held) values += h.values.length
      this.waiting.push({ held, values, resolve, reject })
      this.schedule()
    })
  }

  private schedule(): void {
    if (this.writing || this.scheduled) return
    this.scheduled = true
    // The end of this turn: the units that end in it (their reads answered together) join the group.
    setImmediate(() => {
      this.scheduled = false
      void this.writeNext()
    })
  }

  private async writeNext(): Promise<void> {
    const group = this.nextGroup()
    if (group.length === 0) return
    this.writing = true
    try {
      if (group.length === 1) await this.writeAlone(group[0] as Waiting)
      else {
        let failure: { error: unknown } | undefined
        try {
          await this.send(heldStatement(group.flatMap(({ held }) => held)))
        } catch (error) {
          failure = { error }
        }
        if (!failure) for (const unit of group) unit.resolve(noRows)
        // The connection failed, not a row: the statement may have committed (its answer was lost),
        // and writing its units again could write them twice. Each fails as unavailable (503).
        else if (isDatabaseUnavailable(failure.error)) for (const unit of group) unit.reject(failure.error)
        else await Promise.all(group.map((unit) => this.writeAlone(unit)))
      }
    } finally {
      this.writing = false
      if (this.waiting.length > 0) this.schedule()
    }
  }

  private writeAlone(unit: Waiting): Promise<void> {
    return this.send(heldStatement(unit.held)).then(unit.resolve, unit.reject)
  }

  /** The units waiting, in order, as many as one statement's parameters allow (at least one). */
  private nextGroup(): Waiting[] {
    let values = 0
    let count = 0
    for (const unit of this.waiting) {
      if (count > 0 && values + unit.values > maxHeldValues) break
      values += unit.values
      count++
    }
    return this.waiting.splice(0, count)
  }
}
