import type Database from 'better-sqlite3'
import { type After, unitEffects } from '../store.ts'
import type { DurabilityClock } from './durability.ts'

type Work<Q, T> = (q: Q, after: After) => Promise<T>

interface Unit<Q> {
  work: Work<Q, unknown>
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

type Outcome = { ok: true; value: unknown; effects: ReturnType<typeof unitEffects> } | { ok: false; error: unknown }

/** Why a unit that ran without fault still failed: the transaction that held it did not commit. */
export class BatchFailed extends Error {
  constructor(cause: unknown) {
    super('the transaction holding this unit of work did not commit', { cause })
    this.name = 'BatchFailed'
  }
}

export interface GroupCommitOptions {
  /** Where an `after` effect that throws is reported: its unit has committed and cannot fail any more. */
  onEffectError: (error: unknown) => void
  /** Told the number of units each commit made durable, and the seconds from its BEGIN to their durability (metrics, tests). */
  onCommit?: (units: number, seconds: number) => void
  /**
   * Makes everything committed so far durable, off the event loop (the WAL's fdatasync on the
   * thread pool), for a connection that does not sync as it commits (synchronous = NORMAL). A
   * batch's units settle once the sync after its COMMIT is done; the next batch runs meanwhile.
   * Without it, the COMMIT itself must be durable (synchronous = FULL).
   */
  sync?: () => Promise<void>
  /** Told of each COMMIT before it runs and once it is durable, for the read replicas on other threads. */
  durability?: DurabilityClock
  /** Told right after each COMMIT has run or failed, before its sync: what it changed is visible to other connections. */
  onTransactionEnd?: () => void
}

/**
 * Group commit on one SQLite connection. Units of work submitted by concurrent requests queue up
 * and run one after another inside one `BEGIN IMMEDIATE … COMMIT`, so that a single fsync
 * (synchronous = FULL) makes all of them durable. Each unit runs inside its own SAVEPOINT: a unit
 * that throws is rolled back alone, never its neighbours. Promises settle, and `after` effects run,
 * only once the COMMIT holding them has returned; a COMMIT that fails fails every unit of its batch.
 *
 * A batch is flushed on setImmediate after its first unit arrives, so the units of every request
 * the event loop has read by then share it; while a batch runs and commits, the next one collects.
 * With a `sync`, the fsync leaves the event loop: batch N+1 runs while batch N's sync is under way,
 * and batches still settle in order.
 */
export class GroupCommit<Q> {
  private queue: Unit<Q>[] = []
  private scheduled = false
  private running = false
  private drained: (() => void)[] = []
  /** Resolves once every batch committed so far has settled (synced, when syncing). */
  private settled: Promise<void> = Promise.resolve()
  /** The sync under way, if any: it covers every commit made so far. */
  private syncing: Promise<void> | undefined
  private readonly begin: Database.Statement
  private readonly commit: Database.Statement
  private readonly rollback: Database.Statement
  private readonly savepoint: Database.Statement
  private readonly release: Database.Statement
  private readonly rollbackTo: Database.Statement

  constructor(
    private readonly connection: Database.Database,
    private readonly q: Q,
    private readonly options: GroupCommitOptions,
  ) {
    this.begin = connection.prepare('BEGIN IMMEDIATE')
    this.commit = connection.prepare('COMMIT')
    this.rollback = connection.prepare('ROLLBACK')
    this.savepoint = connection.prepare('SAVEPOINT unit')
    this.release = connection.prepare('RELEASE unit')
    this.rollbackTo = connection.prepare('ROLLBACK TO unit')
  }

  submit<T>(work: Work<Q, T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
      this.schedule()
    })
  }

  /** Resolves once every unit submitted so far has settled. */
  idle(): Promise<void> {
    if (!this.running && !this.scheduled && this.queue.length === 0) return this.settled
    return new Promise((resolve) => this.drained.push(resolve))
  }

  /**
   * Resolves once what has been committed so far is durable: a read waits for it before it is
   * answered, so that nothing a crash could still undo is ever shown (failed syncs included).
   */
  durable(): Promise<void> | undefined {
    return this.syncing
  }

  private schedule() {
    if (this.scheduled || this.running) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      this.running = true
      void this.flush().finally(() => {
        this.running = false
        if (this.queue.length > 0) this.schedule()
        else void this.settled.then(() => this.queue.length === 0 && !this.running && !this.scheduled && this.wakeIdle())
      })
    })
  }

  private wakeIdle() {
    for (const done of this.drained.splice(0)) done()
  }

  private async flush() {
    const batch = this.queue.splice(0)
    try {
      await this.run(batch)
    } catch (error) {
      // The connection itself failed (closed, or a ROLLBACK that could not run): no unit of the
      // batch is known to be durable. Rejecting a unit already settled changes nothing.
      if (this.connection.open && this.connection.inTransaction) this.rollback.run()
      for (const unit of batch) unit.reject(error)
    }
  }

  private async run(batch: Unit<Q>[]) {
    const began = performance.now()
    const outcomes: Outcome[] = []
    try {
      this.begin.run()
    } catch (error) {
      for (const unit of batch) unit.reject(error)
      return
    }
    for (const [index, unit] of batch.entries()) {
      const outcome = await this.runUnit(unit)
      outcomes.push(outcome)
      if (!this.connection.inTransaction) {
        // SQLite rolled the whole transaction back (a disk or lock failure): the units done so far
        // are lost, and the ones not yet run go first into the next batch.
        const cause = outcome.ok ? new Error('the transaction was rolled back') : outcome.error
        const lost = batch.slice(0, index + 1)
        this.afterSettled(this.settled, () => this.settle(lost, outcomes, new BatchFailed(cause)))
        this.queue.unshift(...batch.slice(index + 1))
        return
      }
    }
    let failure: BatchFailed | undefined
    const { sync, durability } = this.options
    const seq = durability?.committing()
    try {
      this.commit.run()
    } catch (error) {
      failure = new BatchFailed(error)
      if (this.connection.inTransaction) this.rollback.run()
    }
    this.options.onTransactionEnd?.()
    if (!sync || failure) {
      if (seq !== undefined) durability?.durable(seq)
      this.afterSettled(this.settled, () => this.finish(batch, outcomes, failure, began))
      return
    }
    const synced = sync().then(
      () => undefined,
      (error: unknown) => new BatchFailed(error),
    )
    if (seq !== undefined) void synced.then(() => durability?.durable(seq))
    const syncing = synced.then(() => undefined)
    this.syncing = syncing
    void syncing.then(() => {
      if (this.syncing === syncing) this.syncing = undefined
    })
    // Batches settle in the order they committed, whichever sync returns first.
    this.afterSettled(Promise.all([this.settled, synced]), ([, syncFailure]) => this.finish(batch, outcomes, syncFailure, began))
  }

  /** Settles a batch after `before`; the chain never rejects, so that one fault cannot hold every later batch. */
  private afterSettled<T>(before: Promise<T>, settle: (value: T) => void) {
    this.settled = before.then(settle).catch(this.options.onEffectError)
  }

  private finish(batch: Unit<Q>[], outcomes: Outcome[], failure: BatchFailed | undefined, began: number) {
    this.settle(batch, outcomes, failure)
    if (!failure) this.options.onCommit?.(outcomes.filter((outcome) => outcome.ok).length, (performance.now() - began) / 1000)
  }

  private async runUnit(unit: Unit<Q>): Promise<Outcome> {
    const effects = unitEffects()
    try {
      this.savepoint.run()
      const value = await unit.work(this.q, effects.after)
      this.release.run()
      return { ok: true, value, effects }
    } catch (error) {
      if (this.connection.inTransaction) {
        this.rollbackTo.run()
        this.release.run()
      }
      return { ok: false, error }
    } finally {
      effects.close()
    }
  }

  /** Settles units after their batch: failed ones with their own error, the others with the batch's fate. */
  private settle(units: Unit<Q>[], outcomes: Outcome[], failure: BatchFailed | undefined) {
    units.forEach((unit, index) => {
      const outcome = outcomes[index] as Outcome
      if (!outcome.ok) return unit.reject(outcome.error)
      if (failure) return unit.reject(failure)
      outcome.effects.run(this.options.onEffectError)
      unit.resolve(outcome.value)
    })
  }
}
