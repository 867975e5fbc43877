import type { After, Queries, Store } from '../../../db/store.ts'
import { claimFollowingIn, type PendingDelivery } from './outbox.ts'
import { type BotLogLevel, recordBotLog } from '../admin/logs.ts'
import { type MessageStatus, messageStatuses } from '../../message-status.ts'
import type { SignalPublisher } from '../../signals.ts'

export interface LogLine {
  level: BotLogLevel
  message: string
}

/** What became of one attempt. */
export interface Settlement {
  /** Logged with the delivery's conversation and user. */
  lines: LogLine[]
  /** Try again then; without it the delivery is over (taken, dead or gone) and leaves the outbox. */
  retryAt?: Date
  /** The url answered 410 Gone: delivery stays off for the bot until its url changes. */
  goneUrl?: string
  /** The bot's answer, applied in the same unit. */
  answer?: Answer
}

export interface Answer {
  apply(q: Queries, after: After, at: Date): Promise<void>
  /** Whether the conversation's next attempt reads what this answer writes, and so waits for its commit. */
  holdsTheNext: boolean
}

/** The conversation's next batch, to be claimed with a settlement: at most `limit` deliveries, until `leaseUntil`. */
export interface NextClaim {
  leaseUntil: Date
  limit: number
}

/** An attempt made, and what became of it. */
export interface Settled {
  delivery: PendingDelivery
  settlement: Settlement
}

/**
 * Records the outcome of consecutive attempts of one conversation, in their order, in one unit:
 * the outbox rows, the log lines and the bot's answers commit together or not at all, and the
 * conversation hears of the bot's messages and of the users' messages' new statuses together.
 * Nothing is written for a delivery that is gone meanwhile (its bot or conversation deleted). With
 * `next` (on a shared database), the conversation's next batch (the run after the last attempt) is
 * claimed in the same unit, and returned: one commit where a claim of its own would be a second,
 * and the head the removals make carries its lease.
 * The outbox is written last, after the next batch's claim: from there to the commit the
 * conversation's head is locked (bot_delivery_heads), and when the removals leave the conversation
 * nothing queued, the deliveries its users' messages insert meanwhile wait for it. A delivery found
 * gone by then (its conversation deleted meanwhile) rolls the unit back, and the attempts are
 * settled again with each delivery looked at first.
 */
export async function settleDeliveries(
  store: Store,
  signals: SignalPublisher,
  attempts: readonly Settled[],
  at: Date,
  next?: NextClaim,
): Promise<PendingDelivery[]> {
  const last = attempts.at(-1)
  if (!last) return []
  const claimNext = (q: Queries) => (next ? claimFollowingIn(q, last.delivery, at, next.leaseUntil, next.limit) : [])
  try {
    return await store.write(async (q, after) => {
      const statuses = messageStatuses(q, after, signals)
      for (const { delivery, settlement } of attempts) await recordSettlement(q, statuses, after, delivery, settlement, at)
      await statuses.read()
      // The next batch is claimed before the removals, whose head carries its lease all the same:
      // the removals lock the head until the commit, so they are the last statements.
      const following = await claimNext(q)
      for (const { delivery, settlement } of attempts) if (!(await leaveOutbox(q, delivery, settlement))) throw new DeliveryGone()
      return following
    })
  } catch (error) {
    if (!(error instanceof DeliveryGone)) throw error
  }
  return store.write(async (q, after) => {
    const statuses = messageStatuses(q, after, signals)
    for (const { delivery, settlement } of attempts) {
      if (await leaveOutbox(q, delivery, settlement)) await recordSettlement(q, statuses, after, delivery, settlement, at)
    }
    await statuses.read()
    return claimNext(q)
  })
}

class DeliveryGone extends Error {}

/** Takes the delivery out of the outbox, or reschedules it: false when it was gone already. */
const leaveOutbox = (q: Queries, delivery: PendingDelivery, settlement: Settlement): Promise<boolean> =>
  settlement.retryAt ? q.botDeliveries.reschedule(delivery.id, delivery.attempts + 1, settlement.retryAt.toISOString()) : q.botDeliveries.remove(delivery.id)

/** What an attempt leaves besides the outbox: its log lines, the bot's answer and the message's status. */
async function recordSettlement(
  q: Queries,
  statuses: ReturnType<typeof messageStatuses>,
  after: After,
  delivery: PendingDelivery,
  settlement: Settlement,
  at: Date,
) {
  const where = {
    botId: delivery.target.botId,
    conversationId: delivery.conversationId,
    userId: delivery.userId,
    timestamp: at.toISOString(),
  }
  // Assigned, not `{ ...where, ...line }`: one object shape for every line (docs/internals/performance.md).
  for (const line of settlement.lines) await recordBotLog(q, Object.assign({}, where, line))
  if (settlement.goneUrl !== undefined) await q.bots.markUrlGone(delivery.target.botId, settlement.goneUrl)
  await settlement.answer?.apply(q, after, at)
  const settled = settledStatus(settlement)
  if (settled) statuses.change(delivery, { oldStatus: 'processing', ...settled })
}

/** The status an attempt's settlement leaves the message in, or undefined while it is retried. */
export function settledStatus(settlement: Settlement): { newStatus: MessageStatus; failureReason?: string } | undefined {
  if (settlement.retryAt) return undefined
  const failure = settlement.lines.find((line) => line.level === 'error')
  return failure ? { newStatus: 'failed', failureReason: failure.message } : { newStatus: 'processed' }
}
