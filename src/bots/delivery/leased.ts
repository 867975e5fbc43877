import { claimDeliveries, type PendingDelivery, renewDeliveryLease } from '../../domain/bots/delivery/outbox.ts'
import type { NextClaim } from '../../domain/bots/delivery/settlement.ts'
import { settleAttempt } from './attempt.ts'
import { conversationKey, DeliveryScheduler, type DeliveryWorker, type DeliveryWorkerOptions, type HeldLease, holdsTheNext } from './worker.ts'

export interface LeasedOptions extends DeliveryWorkerOptions {
  /**
   * How long a claimed delivery stays this instance's: another instance sharing the database takes
   * it once this has run out (its holder died). Renewed every third of it while the attempt goes
   * on, however long that is; `timeoutMs` + 20 s by default.
   */
  leaseMs?: number
  /** How often to look for due deliveries besides the wake-ups of this instance's own writes (another's left behind, a lease run out); 2 s by default. */
  sweepMs?: number
}

/**
 * The delivery worker of an instance that shares its database with others (PostgreSQL): what it
 * claims it leases (another instance takes it only once the lease has run out), it looks for others'
 * deliveries on a timer (the sweep), and it claims a conversation's next delivery in the unit that
 * settles the one before (one commit; the head its removal makes carries the lease), when one is
 * known to be behind it. Each settlement is a unit of its own.
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
    const leaseUntil = new Date(at.getTime() + this.leaseMs)
    const due = await claimDeliveries(this.store, at, room, leaseUntil)
    return { due, lease: (delivery: PendingDelivery) => this.holdLease(delivery, leaseUntil) }
  }

  /** Another instance may hold the conversation's head: only a claim tells. */
  protected startedAlone(): boolean {
    return false
  }

  protected async deliver(delivery: PendingDelivery): Promise<boolean> {
    const settlement = await this.attempt(delivery)
    const claim = !holdsTheNext(settlement) && this.hasRoom() ? this.nextClaim(delivery) : undefined
    const next = await settleAttempt(this.attempts, delivery, settlement, claim)
    if (claim) this.claimed(delivery, next)
    // Taken: its lease runs out unattempted only if this instance stopped meanwhile.
    if (claim && next && !this.stopped) this.startAttempt(next, this.holdLease(next, claim.leaseUntil))
    return !settlement.retryAt
  }

  /** The next delivery was claimed by the settlement, or a look finds it. */
  protected async goOnAfter(): Promise<boolean> {
    return false
  }

  /**
   * The claim of the conversation's next delivery that `delivery`'s settlement makes (settleDelivery:
   * one commit, and the head its removal makes carries the lease), when one is known to be behind it
   * (hasBehind); its attempt starts once that has committed.
   */
  private nextClaim(delivery: PendingDelivery): NextClaim | undefined {
    if (!this.hasBehind(delivery)) return undefined
    return { leaseUntil: new Date(this.clock().getTime() + this.leaseMs) }
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

  /** Counts the delivery the settlement of `delivery` claimed, if any, off those recorded behind it. */
  private claimed(delivery: PendingDelivery, next: PendingDelivery | undefined) {
    const key = conversationKey(delivery)
    // Wake-ups may have come meanwhile: counted from what the map holds now. None found: the look
    // taken when this attempt ends finds what came since.
    if (next) this.behind.set(key, Math.max((this.behind.get(key) ?? 1) - 1, 0))
    else this.behind.delete(key)
  }

  /**
   * Renews the lease of a delivery under way every third of the lease, each time for a whole lease
   * from then, until it is released: an attempt held open past its lease (a `botpress` bot calling
   * the bot API back) stays this instance's, where another instance would take it again. An attempt
   * shorter than a third of the lease costs nothing.
   */
  private holdLease(delivery: PendingDelivery, leaseUntil: Date): HeldLease {
    let until = leaseUntil
    let released = false
    let renewing = false
    const renew = async () => {
      const next = new Date(this.clock().getTime() + this.leaseMs)
      if (await renewDeliveryLease(this.store, delivery.id, until, next)) until = next
      else if (!released) {
        // Its lease ran out before it was renewed (the process stalled): another instance may make the attempt again.
        clearInterval(timer)
        this.log.warn({ deliveryId: delivery.id, conversationId: delivery.conversationId }, 'bot delivery lease lost while its attempt was under way')
      }
    }
    const timer = setInterval(() => {
      // One renewal at a time: the next one renews the lease this one sets.
      if (renewing) return
      renewing = true
      renew()
        .catch((error: unknown) => this.log.warn({ err: error, deliveryId: delivery.id }, 'bot delivery lease not renewed'))
        .finally(() => (renewing = false))
    }, this.leaseMs / 3)
    timer.unref()
    return {
      release: () => {
        released = true
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
