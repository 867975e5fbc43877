import { claimDeliveries, claimFollowing, type PendingDelivery, releaseDeliveryLeases, renewDeliveryLeases } from '../../domain/bots/delivery/outbox.ts'
import { settleAttempts } from './attempt.ts'
import { batchLimit } from './batch.ts'
import { conversationKey, DeliveryScheduler, type DeliveryWorker, type DeliveryWorkerOptions } from './worker.ts'

export interface LeasedOptions extends DeliveryWorkerOptions {
  /**
   * How long a claimed delivery stays this instance's: another instance sharing the database takes
   * it once this has run out (its holder died). Renewed every third of it while its batch goes
   * on, however long that is; `timeoutMs` + 20 s by default.
   */
  leaseMs?: number
  /** How often to look for due deliveries besides the wake-ups of this instance's own writes (another's left behind, a lease run out); 2 s by default. */
  sweepMs?: number
}

/**
 * The delivery worker of an instance that shares its database with others (PostgreSQL): what it
 * claims it leases (another instance takes it only once the lease has run out), it looks for others'
 * deliveries on a timer (the sweep), and it takes a conversation's deliveries in leased batches:
 * a claimed head known to be followed claims the run behind it (one statement), and the unit that
 * settles a batch's last attempts claims the next batch (one commit; the head its removals make
 * carries the lease), when one is known to be behind it. The lease of a batch is renewed while it
 * runs, for the deliveries not handed to a settlement yet: after a crash, only those are attempted
 * again, by whichever instance claims them once the lease has run out.
 */
class LeasedScheduler extends DeliveryScheduler {
  private readonly leaseMs: number
  private readonly sweepMs: number
  private sweep: NodeJS.Timeout | undefined

  constructor(options: LeasedOptions) {
    super(options)
    this.leaseMs = options.leaseMs ?? (options.timeoutMs ?? 10_000) + 20_000
    this.sweepMs = options.sweepMs ?? 2_000
  }

  override start() {
    this.sweep = setInterval(() => this.wake(), this.sweepMs)
    this.sweep.unref()
    super.start()
  }

  override stop(): Promise<void> {
    clearInterval(this.sweep)
    return super.stop()
  }

  protected async claim(at: Date, room: number) {
    // The claim leaves out what this instance holds.
    const leaseUntil = this.leaseFrom(at)
    return { due: await claimDeliveries(this.store, at, room, leaseUntil), leaseUntil }
  }

  /** A claimed head: the run behind it, when one is known to be there, is claimed as the batch begins, until the head's lease. */
  protected begin(head: PendingDelivery, leaseUntil: Date) {
    this.startBatch(head, async () => {
      const rest = this.hasBehind(head) ? await claimFollowing(this.store, head, this.clock(), leaseUntil, batchLimit - 1) : []
      this.claimed(head, rest)
      return this.deliver([head, ...rest], leaseUntil)
    })
  }

  /** Another instance may hold the conversation's head: only a claim tells. */
  protected startedAlone(): boolean {
    return false
  }

  /**
   * Claimed heads not begun here keep no lease: held until it ran out, their conversation would wait
   * for nothing (a claim can take the head a batch's last settlement has just made, before that batch
   * is over here: the soak saw conversations stall for the whole lease). Given up, then woken about:
   * the batch still under way takes it as it ends (it is counted behind it), or a look claims it again.
   */
  protected passOver(heads: readonly PendingDelivery[], leaseUntil?: Date) {
    if (!leaseUntil) return
    const giveUp = releaseDeliveryLeases(
      this.store,
      heads.map((head) => head.id),
      leaseUntil,
    )
      .catch((error: unknown) => this.log.warn({ err: error }, 'bot delivery lease not released'))
      .then(() => {
        for (const head of heads) this.wake(head)
      })
      .finally(() => this.looking.delete(giveUp))
    this.looking.add(giveUp)
  }

  /** The next batch was claimed by the last settlement, or a look finds it. */
  protected async goOnAfter(): Promise<boolean> {
    return false
  }

  /**
   * Attempts the batch, held until `leaseUntil` (renewed while it runs), and settles it; the unit
   * that settles its last attempts claims the next batch when one is known to be behind it, which
   * starts once that has committed.
   */
  private async deliver(batch: readonly PendingDelivery[], leaseUntil: Date): Promise<PendingDelivery | undefined> {
    const lease = this.holdLease(batch, leaseUntil)
    let nextLease: Date | undefined
    try {
      const outcome = await this.runBatch(batch, (attempts, last) => {
        lease.handedOver(attempts)
        const final = attempts.at(-1)?.delivery
        nextLease = last && final && this.hasBehind(final) && this.hasRoom() ? this.leaseFrom(this.clock()) : undefined
        return settleAttempts(this.attempts, attempts, nextLease && { leaseUntil: nextLease, limit: batchLimit })
      })
      // Not attempted (the batch stopped before them): the next claim takes them at once, not when their lease runs out.
      if (outcome.unattempted.length > 0) await lease.release(outcome.unattempted)
      const [first] = outcome.next
      if (nextLease) this.claimed(batch.at(-1) as PendingDelivery, outcome.next)
      // Taken: its lease runs out unattempted only if this instance stopped meanwhile.
      if (first && nextLease && !this.stopped) {
        const until = nextLease
        this.startBatch(first, () => this.deliver(outcome.next, until))
      }
      return outcome.through
    } finally {
      lease.stop()
    }
  }

  /** A lease of `leaseMs` from `at`. */
  private leaseFrom(at: Date): Date {
    return new Date(at.getTime() + this.leaseMs)
  }

  /**
   * Whether a delivery is known to be queued behind `delivery`: one this instance recorded since its
   * conversation became busy (its wake-ups), or one there when `delivery` was claimed (the claim
   * tells: a backlog left by a wake-up that came while the conversation was not busy, or by another
   * instance).
   */
  private hasBehind(delivery: PendingDelivery): boolean {
    return (this.behind.get(conversationKey(delivery)) ?? 0) > 0 || delivery.followed
  }

  /** Counts the deliveries claimed behind `delivery` off those recorded behind it. */
  private claimed(delivery: PendingDelivery, run: readonly PendingDelivery[]) {
    const key = conversationKey(delivery)
    // Wake-ups may have come meanwhile: counted from what the map holds now. None found: the look
    // taken when the batch ends finds what came since.
    if (run.length > 0) this.behind.set(key, Math.max((this.behind.get(key) ?? 0) - run.length, 0))
    else this.behind.delete(key)
  }

  /**
   * Renews the lease of a batch under way every third of the lease, each time for a whole lease
   * from then, for its deliveries not handed to a settlement yet, until it stops: an attempt held
   * open past its lease (a `botpress` bot calling the bot API back) stays this instance's, where
   * another instance would take it again. A batch shorter than a third of the lease costs nothing.
   */
  private holdLease(batch: readonly PendingDelivery[], leaseUntil: Date) {
    const held = new Set(batch.map((delivery) => delivery.id))
    let until = leaseUntil
    let stopped = false
    let renewing: Promise<void> | undefined
    const renew = async () => {
      const ids = [...held]
      if (ids.length === 0) return
      const next = this.leaseFrom(this.clock())
      const renewed = await renewDeliveryLeases(this.store, ids, until, next)
      if (renewed > 0) until = next
      if (renewed < ids.length && !stopped) {
        // Its lease ran out before it was renewed (the process stalled): another instance may make the attempts again.
        if (renewed === 0) clearInterval(timer)
        this.log.warn({ deliveryIds: ids, conversationId: batch[0]?.conversationId }, 'bot delivery lease lost while its batch was under way')
      }
    }
    const timer = setInterval(() => {
      // One renewal at a time: the next one renews the lease this one sets.
      if (renewing) return
      renewing = renew()
        .catch((error: unknown) => this.log.warn({ err: error, deliveryIds: [...held] }, 'bot delivery lease not renewed'))
        .finally(() => (renewing = undefined))
    }, this.leaseMs / 3)
    timer.unref()
    return {
      /** Attempts handed to a settlement: once it commits they are nobody's (removed or rescheduled); if it fails, their lease runs out. */
      handedOver: (attempts: readonly { delivery: PendingDelivery }[]) => {
        for (const { delivery } of attempts) held.delete(delivery.id)
      },
      /** Gives up the lease of deliveries the batch will not attempt. */
      release: async (deliveries: readonly PendingDelivery[]) => {
        for (const delivery of deliveries) held.delete(delivery.id)
        // A renewal under way may move the lease: released from where it leaves it.
        await renewing
        await releaseDeliveryLeases(
          this.store,
          deliveries.map((delivery) => delivery.id),
          until,
        ).catch((error: unknown) => this.log.warn({ err: error }, 'bot delivery lease not released'))
      },
      stop: () => {
        stopped = true
        clearInterval(timer)
      },
    }
  }
}

/** Starts the delivery worker of an instance sharing its database with others. */
export function startLeasedDeliveries(options: LeasedOptions): DeliveryWorker {
  const worker = new LeasedScheduler(options)
  worker.start()
  return worker
}
