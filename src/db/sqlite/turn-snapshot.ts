import type Database from 'better-sqlite3'

/**
 * One read transaction for the reads of a turn of the event loop, on a read-only connection.
 *
 * A statement run outside a transaction takes WAL's read lock and lets it go again (two `fcntl`
 * calls: docs/internals/performance.md, lab notes), and every GraphQL or REST read runs two such
 * statements (the participation, then the page). Reads that start in the same turn share one
 * snapshot instead, and it ends when the turn does, so a checkpoint is never held back longer.
 *
 * A snapshot is only reused while no commit has become durable since it opened (`durableCount`,
 * the durability clock's): a write is answered only once durable, so a read that starts after that
 * answer opens a new snapshot, which holds the write.
 */
export class TurnSnapshot {
  private openedAt: number | undefined
  /** `countOnOpen` read just before the snapshot under way was opened (undefined between snapshots). */
  openedUnder: number | undefined
  private ending = false
  private readonly begin: Database.Statement
  private readonly commit: Database.Statement

  constructor(
    private readonly connection: Database.Database,
    private readonly durableCount: () => number,
    /** When the turn is over: the next turn's reads take a new snapshot (tests hold it). */
    private readonly endOfTurn: (end: () => void) => void = setImmediate,
    /** A count read as each snapshot opens (the participations' generation: participation-cache.ts), as `openedUnder`. */
    private readonly countOnOpen?: () => number,
  ) {
    this.begin = connection.prepare('BEGIN')
    this.commit = connection.prepare('COMMIT')
  }

  /** Before a read's statements: the snapshot they share, or a new one if a commit became durable since. */
  enter(): void {
    const count = this.durableCount()
    if (this.openedAt === count) return
    this.end()
    this.openedUnder = this.countOnOpen?.()
    // A deferred BEGIN: the snapshot is taken by the first statement, after the counts were read.
    this.begin.run()
    this.openedAt = count
    if (this.ending) return
    this.ending = true
    this.endOfTurn(() => {
      this.ending = false
      this.end()
    })
  }

  /** Ends the snapshot (each turn, and before the connection closes). */
  end(): void {
    if (this.openedAt === undefined) return
    this.openedAt = undefined
    this.openedUnder = undefined
    if (this.connection.open && this.connection.inTransaction) this.commit.run()
  }
}
