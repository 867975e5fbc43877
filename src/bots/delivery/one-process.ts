import { claimDeliveries, followingDeliveries, type PendingDelivery, type RunStart } from '../../domain/bots/delivery/outbox.ts'
import { settleAttempts } from './attempt.ts'
import { batchLimit } from './batch.ts'
import { type ConversationRef, conversationKey, DeliveryScheduler, type DeliveryWorker, type DeliveryWorkerOptions } from './worker.ts'

/**
 * The delivery worker of a process alone on its database (SQLite): it learns of every delivery from
 * its own writes, so it looks at the outbox only at start, for a retry's timer, or when it had no
 * room; a new delivery in an idle conversation starts a batch with one seek of that conversation's
 * run, and a conversation's next batch is read with one seek once the one before is settled.
 * Nothing is leased: nobody else takes a delivery.
 */
class OneProcessScheduler extends DeliveryScheduler {
  protected async claim(at: Date, room: number) {
    // The claim returns the heads of the batches under way here again (skipped): room for them too.
    return { due: await claimDeliveries(this.store, at, room + this.underWay.size, at) }
  }

  /** A claimed head: the run behind it is read as the batch begins. */
  protected begin(head: PendingDelivery) {
    this.startBatch(head, async () => this.deliver([head, ...(await this.runAfter(head, batchLimit - 1))]))
  }

  protected startedAlone(conversation: ConversationRef): boolean {
    if (!this.hasRoom()) return false
    this.startRunOf(conversation)
    return true
  }

  /** Nothing is held: the look taken when the busy conversation's batch ends, or when room comes back, finds them. */
  protected passOver() {}

  protected async goOnAfter(last: PendingDelivery): Promise<boolean> {
    if (!this.hasRoom()) return false
    const { run, woken } = await this.readRun(last, last.seq)
    // Empty, with wake-ups meanwhile: their deliveries may have committed after the read.
    if (run.length === 0 && woken) {
      this.startRunOf(last)
      return true
    }
    return this.startRun(run)
  }

  /** Attempts the batch and settles it: its last delivery when every one left the outbox. */
  private async deliver(batch: readonly PendingDelivery[]): Promise<PendingDelivery | undefined> {
    const outcome = await this.runBatch(batch, (attempts) => settleAttempts(this.attempts, attempts))
    return outcome.through
  }

  /** The due run after `start` in its conversation, at most `limit`. */
  private runAfter(start: RunStart, limit: number) {
    return followingDeliveries(this.store, start, this.clock(), limit)
  }

  /** The due run after `seq` in `conversation` (a batch), and whether wake-ups about the conversation came while it was read (worker.ts: readingRun). */
  private async readRun(conversation: ConversationRef, seq: number): Promise<{ run: PendingDelivery[]; woken: boolean }> {
    const key = conversationKey(conversation)
    const read = { woken: 0 }
    const reads = this.readingRun.get(key) ?? []
    this.readingRun.set(key, [...reads, read])
    try {
      const run = await this.runAfter({ integrationId: conversation.integrationId, conversationId: conversation.conversationId, seq }, batchLimit)
      return { run, woken: read.woken > 0 }
    } finally {
      const left = (this.readingRun.get(key) ?? []).filter((other) => other !== read)
      if (left.length > 0) this.readingRun.set(key, left)
      else this.readingRun.delete(key)
    }
  }

  /** Starts a batch of `run`, unless its conversation is busy here meanwhile (true) or there is no room (false). */
  private startRun(run: PendingDelivery[]): boolean {
    const [first] = run
    if (!first || this.busy.has(conversationKey(first))) return true
    if (!this.hasRoom()) return false
    this.startBatch(first, () => this.deliver(run))
    return true
  }

  /** Starts the batch a conversation waits on (its oldest deliveries), if it is due and not under way yet. */
  private startRunOf(conversation: ConversationRef) {
    const lookup = this.readRun(conversation, 0)
      .then(({ run, woken }) => {
        if (run.length === 0 && woken) this.startRunOf(conversation)
        else if (!this.startRun(run)) this.wake()
      })
      .catch((error: unknown) => {
        this.log.warn({ err: error }, 'bot delivery worker could not look up a conversation')
        this.wake()
      })
      .finally(() => this.looking.delete(lookup))
    this.looking.add(lookup)
  }
}

/** Starts the delivery worker of a process alone on its database. */
export function startOneProcessDeliveries(options: DeliveryWorkerOptions): DeliveryWorker {
  const worker = new OneProcessScheduler(options)
  worker.start()
  return worker
}
