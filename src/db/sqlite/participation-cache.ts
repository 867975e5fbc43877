import type { Participation } from '../store.ts'

/** Beyond this many entries, the map starts over (a bound, not a working size). */
const maxEntries = 10_000

interface Kept {
  /** The generation the participation was read under (see `tagOfRead`). */
  tag: number
  conversation: NonNullable<Participation['conversation']>
  participant: NonNullable<Participation['participant']>
}

/**
 * The participations a thread has read, kept: every read of a conversation (a page of messages, the
 * conversation) starts with the caller's participation, a join of three tables that cost as much as
 * the page itself. Only a participation that was found is kept (one that was not is read again each
 * time), and only by the reading connections: a unit of work reads its own.
 *
 * The writer counts, in memory that the threads of the process share (the read replicas'), every
 * statement that may change a kept participation (one that writes a conversation, a participant, a
 * user, a bot or a chat integration, whose deletions cascade to them), and again when the transaction
 * of one ends (committed or not). A participation is kept under the count read before its statement
 * saw the database (`tagOfRead`: on a replica, when its turn's snapshot was opened), and served only
 * while the count has not moved: a change made meanwhile, or committed since, is read again. So a
 * participant removed is refused by the next read that starts once the removal is answered.
 *
 * PostgreSQL keeps none: another instance may change a participation at any time, and its
 * participation is read in the same statement as the page anyway.
 */
export class ParticipationCache {
  private readonly generation: Int32Array
  private seen: number
  private readonly entries = new Map<string, Kept>()
  private changing = false

  constructor(
    readonly memory: SharedArrayBuffer = new SharedArrayBuffer(4),
    /** The count the next statement of a read is made under; the count now by default (a statement outside a transaction). */
    private readonly tagOfRead?: () => number,
  ) {
    this.generation = new Int32Array(memory)
    this.seen = Atomics.load(this.generation, 0)
  }

  /** The count a read that starts now is made under. */
  tag(): number {
    return this.tagOfRead ? this.tagOfRead() : Atomics.load(this.generation, 0)
  }

  /** The participation kept for this caller and conversation, while nothing that may change it has been written since; a copy. */
  get(integrationId: string, conversationId: string, userId: string): Participation | undefined {
    const now = Atomics.load(this.generation, 0)
    if (now !== this.seen) {
      this.entries.clear()
      this.seen = now
      return undefined
    }
    const kept = this.entries.get(keyOf(integrationId, conversationId, userId))
    if (!kept || kept.tag !== now) return undefined
    // Copies: the rows are the request's to read, and no request may change another's.
    return { conversation: { ...kept.conversation }, participant: { ...kept.participant } }
  }

  /** Keeps a participation read under `tag` (tag(), taken before its statement ran); one not found is not kept. */
  keep(integrationId: string, conversationId: string, userId: string, tag: number, found: Participation): void {
    if (!found.conversation || !found.participant || tag !== Atomics.load(this.generation, 0)) return
    if (this.entries.size >= maxEntries) this.entries.clear()
    this.entries.set(keyOf(integrationId, conversationId, userId), {
      tag,
      conversation: { ...found.conversation },
      participant: { ...found.participant },
    })
  }

  /** A statement under way writes a table a participation is read from: every thread reads them again. */
  changed(): void {
    this.changing = true
    Atomics.add(this.generation, 0, 1)
  }

  /** The writer's transaction ended (committed or not): what was read while it was under way is read again. */
  transactionEnded(): void {
    if (!this.changing) return
    this.changing = false
    Atomics.add(this.generation, 0, 1)
  }
}

const keyOf = (integrationId: string, conversationId: string, userId: string) => `${integrationId}\u0000${conversationId}\u0000${userId}`
