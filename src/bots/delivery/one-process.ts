import { claimDeliveries, conversationHead, followingDelivery, type PendingDelivery } from '../../domain/bots/delivery/outbox.ts'
import { settleAttempt } from './attempt.ts'
import { type ConversationRef, conversationKey, DeliveryScheduler, type DeliveryWorker, type DeliveryWorkerOptions, holdsTheNext } from './worker.ts'

/**
 * The delivery worker of a process alone on its database (SQLite): it learns of every delivery from
 * its own writes, so it looks at the outbox only at start, for a retry's timer, or when it had no
 * room; a new delivery in an idle conversation is started with one seek of that conversation's head,
 * and a conversation's next delivery as soon as the one before is settled (submitted: it commits no
 * later than anything the next attempt writes). Nothing is leased: nobody else takes a delivery.
 */
class OneProcessScheduler extends DeliveryScheduler {
  protected async claim(at: Date, room: number) {
    // The claim returns the attempts under way here again (skipped): room for them too.
    return { due: await claimDeliveries(this.store, at, room + this.underWay.size, at) }
  }

  protected startedAlone(conversation: ConversationRef): boolean {
    if (!this.hasRoom()) return false
    this.startHeadOf(conversation)
    return true
  }

  protected async deliver(delivery: PendingDelivery): Promise<boolean> {
    const settlement = await this.attempt(delivery)
    // Going on with the conversation early is an optimisation: if it fails, the look taken when this attempt ends finds the next one.
    const goesOn = !holdsTheNext(settlement) && this.hasRoom()
    const settling = settleAttempt(this.attempts, delivery, settlement)
    if (goesOn) await this.goOnAfter(delivery).catch(this.couldNotGoOn)
    await settling
    return !settlement.retryAt
  }

  /** Starts the delivery right after `delivery` in its conversation, if due; false when there was no room for it. */
  protected async goOnAfter(delivery: PendingDelivery): Promise<boolean> {
    if (!this.hasRoom()) return false
    const next = await followingDelivery(this.store, delivery, this.clock())
    if (!next || this.underWay.has(next.id)) return true
    const holder = this.busy.get(conversationKey(next))
    if (!this.hasRoom() || (holder !== undefined && holder !== delivery.id)) return false
    this.startAttempt(next)
    return true
  }

  /** Starts the delivery a conversation waits on, if it is due and not under way yet. */
  private startHeadOf(conversation: ConversationRef) {
    const lookup = conversationHead(this.store, conversation, this.clock())
      .then((head) => {
        if (!head || this.underWay.has(head.id) || this.busy.has(conversationKey(head))) return
        if (this.hasRoom()) this.startAttempt(head)
        else this.wake()
      })
      .catch((error: unknown) => {
        this.log.warn({ err: error }, 'bot delivery worker could not look up a conversation')
        this.wake()
      })
      .finally(() => this.looking.delete(lookup))
    this.looking.add(lookup)
  }

  private readonly couldNotGoOn = (error: unknown) => {
    this.log.warn({ err: error }, 'bot delivery worker could not go on with the conversation')
    return undefined
  }
}

/** Starts the delivery worker of a process alone on its database. */
export function startOneProcessDeliveries(options: DeliveryWorkerOptions): DeliveryWorker {
  const worker = new OneProcessScheduler(options)
  worker.start()
  return worker
}
