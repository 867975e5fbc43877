/**
 * How far the commits of one SQLite file are durable, in memory that the threads of the process
 * share: the writer counts each COMMIT before it runs and marks it durable once the sync after it
 * is done; a read replica on another thread reads the WAL on its own connection, so it asks the
 * clock before answering. The count goes up before the COMMIT, so a replica that saw a commit's
 * rows always finds it counted, and waits for its sync, as the writer's own reads do.
 */
/** `a >= b` for counts that wrap around at 2^31. */
const notBefore = (a: number, b: number) => ((a - b) | 0) >= 0

export class DurabilityClock {
  /** [0]: commits started, [1]: commits durable; both only grow (wrapping after 2^31, compared as such). */
  private readonly counts: Int32Array

  constructor(readonly memory: SharedArrayBuffer = new SharedArrayBuffer(8)) {
    this.counts = new Int32Array(memory)
  }

  /** A COMMIT is about to run; its number, for `durable` once it is synced (or failed). */
  committing(): number {
    return (Atomics.add(this.counts, 0, 1) + 1) | 0
  }

  /** Everything up to commit `seq` is durable, or will never be shown (its COMMIT or sync failed, as the writer's reads do). */
  durable(seq: number): void {
    for (;;) {
      const now = Atomics.load(this.counts, 1)
      if (notBefore(now, seq)) return
      if (Atomics.compareExchange(this.counts, 1, now, seq) === now) break
    }
    Atomics.notify(this.counts, 1)
  }

  /** How many commits are durable (or failed): every write answered so far is counted in it. */
  durableCount(): number {
    return Atomics.load(this.counts, 1)
  }

  /** Resolves once every commit started so far is durable: a replica's read waits for it before it is answered. */
  async settled(): Promise<void> {
    const target = Atomics.load(this.counts, 0)
    for (;;) {
      const now = Atomics.load(this.counts, 1)
      if (notBefore(now, target)) return
      const waiting = Atomics.waitAsync(this.counts, 1, now)
      if (waiting.async) await waiting.value
    }
  }
}
