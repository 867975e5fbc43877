import type { PruneCursor, PrunedTable, Store } from '../db/store.ts'
import { sweepExpiredStates } from './bots/chat/state.ts'
import { removeFileBytes } from './file-bytes.ts'
import { SIGNAL_LOG_WINDOW_MS } from './signal-log.ts'

/**
 * What retention prunes, in this order: the bot's records of a message go before (or with) the
 * message; the files uploaded before the same age last (a file is uploaded before the message that
 * shows it), their bytes with them, so that their URLs stop working.
 */
const prunedTables: readonly Exclude<PrunedTable, 'conversationSignals'>[] = ['botEvents', 'botLogs', 'events', 'messages', 'files']

const dayMs = 86_400_000

export interface RetentionOptions {
  /** RETENTION_DAYS: messages, events, bot events, bot logs and files older than this many days are deleted; 0: kept (only the signal log is pruned). */
  days: number
  /** The clock the age is counted by (tests move it instead of waiting). */
  clock?: () => Date
  /** Rows deleted per unit of work: small, so that the writes queued behind a batch barely wait. */
  batchSize?: number
  /** How often a cycle runs; hourly by default. The first runs at once. */
  intervalMs?: number
  /** Told of each cycle's failure (the next cycle tries again). */
  onError?: (error: unknown) => void
}

export type PruneCounts = Record<Exclude<PrunedTable, 'conversationSignals'>, number>

/**
 * One retention cycle: every row older than `days` deleted, table by table, in units of at most
 * `batchSize` rows (and conversations looked at: RetentionQueries.prune); each batch is a unit of its
 * own, queued with the others' writes (never one long transaction holding them back). How many rows went.
 */
export async function pruneOnce(store: Store, { days, clock = () => new Date(), batchSize = 500 }: RetentionOptions): Promise<PruneCounts> {
  const counts = { messages: 0, events: 0, botEvents: 0, botLogs: 0, files: 0 }
  const prune = async (table: PrunedTable, before: string) => {
    let deleted = 0
    for (let from: PruneCursor | undefined; ; ) {
      const batch = await store.write((q) => q.retention.prune(table, before, batchSize, from))
      deleted += batch.deleted
      removeFileBytes(store, batch.files ?? [])
      if (!batch.next) return deleted
      from = batch.next
      // The event loop serves what came in meanwhile before the next batch is queued.
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  if (days > 0) {
    const before = new Date(clock().getTime() - days * dayMs).toISOString()
    for (const table of prunedTables) counts[table] += await prune(table, before)
    // Expired bot states go too (whatever their age): expiries are the bot's own retention.
    await sweepExpiredStates(store, clock())
  }
  // The signal log keeps its window whatever RETENTION_DAYS says (a resume past it is told to resync).
  await prune('conversationSignals', new Date(clock().getTime() - SIGNAL_LOG_WINDOW_MS).toISOString())
  return counts
}

export interface Retention {
  /** Runs a cycle now (after the one under way, if any); what it deleted. */
  runOnce(): Promise<PruneCounts>
  /** Stops the schedule, once the cycle under way (if any) has ended. */
  stop(): Promise<void>
}

/** Retention on a schedule: a cycle at once, then every `intervalMs`, never two at a time. */
export function startRetention(store: Store, options: RetentionOptions): Retention {
  const { intervalMs = 3_600_000, onError = () => {} } = options
  let running: Promise<PruneCounts | undefined> = Promise.resolve(undefined)
  let stopped = false
  const runOnce = () => {
    const cycle = running.catch(() => undefined).then(() => pruneOnce(store, options))
    running = cycle
    return cycle
  }
  const tick = () => void runOnce().catch(onError)
  const timer = setInterval(tick, intervalMs)
  timer.unref()
  // With RETENTION_DAYS unset only the signal log is pruned, whose window is a day: no hurry at start.
  if (options.days > 0) tick()
  return {
    runOnce: () => (stopped ? Promise.reject(new Error('retention was stopped')) : runOnce()),
    async stop() {
      stopped = true
      clearInterval(timer)
      await running.catch(() => undefined)
    },
  }
}
