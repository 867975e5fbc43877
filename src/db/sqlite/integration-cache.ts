import type { ChatIntegrationRow } from '../schema.ts'

/** Beyond this many webhook ids, the cache starts over (they are one per bot: a bound, not a working size). */
const maxEntries = 10_000

/**
 * Chat integrations by webhook id, kept by each thread that reads them: every chat request starts by
 * looking its integration up, which cost as much as the rest of a page's queries. A row never
 * changes once written and goes only with its bot, so the writer counts, in memory the threads of
 * the process share (the read replicas'), the commits that may have deleted a bot; a thread that
 * sees the count move starts over. What is not found is not kept: an unknown webhook id fills nothing.
 */
export class IntegrationCache {
  private readonly generation: Int32Array
  private seen: number
  private readonly entries = new Map<string, ChatIntegrationRow>()
  private deleting = false

  constructor(readonly memory: SharedArrayBuffer = new SharedArrayBuffer(4)) {
    this.generation = new Int32Array(memory)
    this.seen = Atomics.load(this.generation, 0)
  }

  byWebhook(webhookId: string, load: () => ChatIntegrationRow | undefined): ChatIntegrationRow | undefined {
    const now = Atomics.load(this.generation, 0)
    if (now !== this.seen) {
      this.entries.clear()
      this.seen = now
    }
    const kept = this.entries.get(webhookId)
    if (kept) return kept
    const row = load()
    // Kept under the count read before the load: a deletion committed meanwhile moves it, and the
    // next look loads again.
    if (row) {
      if (this.entries.size >= maxEntries) this.entries.clear()
      this.entries.set(webhookId, Object.freeze(row))
    }
    return row
  }

  /** A bot is deleted in the transaction under way (with its integration, by cascade). */
  botDeleted(): void {
    this.deleting = true
  }

  /** The writer's transaction ended (committed or not): every thread drops what it kept, if a bot may be gone. */
  transactionEnded(): void {
    if (!this.deleting) return
    this.deleting = false
    Atomics.add(this.generation, 0, 1)
  }
}
