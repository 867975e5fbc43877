/** The most keys one limit counts in memory in one window (docs/reference/limits.md): about 70 bytes each, 66 MiB in all. */
export const memoryCountersMaxKeys = 1_000_000

/** The key the clients past the maximum share (no client address, user or bot id has this form). */
const overflowKey = '\0overflow'

/**
 * One rate limit's counters in this process's memory: at most `points` a window of `durationMs`,
 * per key. Windows are fixed and aligned on the clock (each ends at a multiple of its duration), so
 * a key needs no timer or expiry of its own: one Map of key → points used, dropped whole when the
 * window ends. A key costs its Map entry and its string (69 bytes; rate-limiter-flexible's memory
 * store, a record and a timer per key: 453 bytes of heap, `npm run bench -- --only limiter`). Past `maxKeys` in one window the new keys share one
 * counter, so that a flood of new addresses can neither grow memory nor reset the keys counted.
 */
export class MemoryCounters {
  private window = Number.NEGATIVE_INFINITY
  private used = new Map<string, number>()

  constructor(
    private readonly points: number,
    private readonly durationMs: number,
    private readonly maxKeys = memoryCountersMaxKeys,
    /** Read at each count (not captured once), so that a test's fake clock is the one counted by. */
    private readonly clock: () => number = () => Date.now(),
  ) {}

  /** The keys counted in the current window. */
  get size(): number {
    return this.used.size
  }

  /** Counts one point of `key`: undefined when it is within the limit, else the milliseconds until the window ends. */
  consume(key: string): number | undefined {
    const now = this.clock()
    const window = Math.floor(now / this.durationMs)
    if (window !== this.window) {
      this.window = window
      this.used = new Map()
    }
    const counted = this.used.has(key) || this.used.size < this.maxKeys ? key : overflowKey
    const used = this.used.get(counted) ?? 0
    if (used >= this.points) return Math.max((window + 1) * this.durationMs - now, 1)
    this.used.set(counted, used + 1)
    return undefined
  }
}
