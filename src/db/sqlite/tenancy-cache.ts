import type { BotRow, ChatIntegrationRow } from '../schema.ts'

/** Beyond this many entries, a map starts over (there is one per bot: a bound, not a working size). */
const maxEntries = 10_000

export interface BotOfIntegration {
  bot: BotRow
  integration: ChatIntegrationRow
}

/**
 * Chat integrations and their bots, kept by each thread that reads them: every chat request starts
 * by looking its integration up, and every bot delivery needs its bot, each of which cost as much as
 * the request's own queries. An integration never changes once written and goes only with its bot,
 * and bots change seldom (an admin's edit, a 410 from their url); so the writer counts, in memory
 * that the threads of the process share (the read replicas'), the commits that may have changed or
 * deleted a bot, and a thread that sees the count move starts over. What is not found is not kept:
 * an unknown webhook id fills nothing.
 */
export class TenancyCache {
  private readonly generation: Int32Array
  private seen: number
  private readonly byWebhookId = new Map<string, ChatIntegrationRow>()
  private readonly byIntegrationId = new Map<string, BotOfIntegration>()
  private changing = false

  constructor(readonly memory: SharedArrayBuffer = new SharedArrayBuffer(4)) {
    this.generation = new Int32Array(memory)
    this.seen = Atomics.load(this.generation, 0)
  }

  integrationByWebhook(webhookId: string, load: () => ChatIntegrationRow | undefined): ChatIntegrationRow | undefined {
    return this.kept(this.byWebhookId, webhookId, load)
  }

  botOfIntegration(integrationId: string, load: () => BotOfIntegration | undefined): BotOfIntegration | undefined {
    return this.kept(this.byIntegrationId, integrationId, load)
  }

  private kept<T extends object>(entries: Map<string, T>, key: string, load: () => T | undefined): T | undefined {
    const now = Atomics.load(this.generation, 0)
    if (now !== this.seen) {
      this.byWebhookId.clear()
      this.byIntegrationId.clear()
      this.seen = now
    }
    const kept = entries.get(key)
    if (kept) return kept
    // Kept under the count read before the load: a change committed meanwhile moves it, and the
    // next look loads again.
    const row = load()
    if (row) {
      if (entries.size >= maxEntries) entries.clear()
      entries.set(key, deepFreeze(row))
    }
    return row
  }

  /**
   * A bot is written or deleted (its integration with it, by cascade) in the transaction under way:
   * the writer's own next look reads it again now, every thread's once the transaction has ended.
   */
  /** A token that moves with every change of a bot or chat integration (IntegrationVersionQueries on SQLite). */
  get version(): string {
    return String(Atomics.load(this.generation, 0))
  }

  botChanged(): void {
    this.changing = true
    Atomics.add(this.generation, 0, 1)
  }

  /** The writer's transaction ended (committed or not): every thread drops what it kept, if a bot may have changed. */
  transactionEnded(): void {
    if (!this.changing) return
    this.changing = false
    Atomics.add(this.generation, 0, 1)
  }
}

/** Kept rows are shared by every request of the thread: none may change one for the others. */
function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) if (inner && typeof inner === 'object' && !Object.isFrozen(inner)) deepFreeze(inner)
  return Object.freeze(value)
}
