import type { After, Queries, Store } from '../../../db/store.ts'
import { claimFollowingIn, type PendingDelivery } from './outbox.ts'
import { type BotLogLevel, recordBotLog } from '../admin/logs.ts'
import { type MessageStatus, publishMessageStatus } from '../../message-status.ts'
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

/** The conversation's next delivery, to be claimed with a settlement, until `leaseUntil`. */
export interface NextClaim {
  leaseUntil: Date
}

/**
 * Records the outcome of an attempt in one unit: the outbox row, the log lines and the bot's
 * answer commit together or not at all, and the conversation hears of the bot's messages and of
 * the user's message's new status together. Nothing is written for a delivery that is gone
 * meanwhile (its bot or conversation deleted). With `next` (on a shared database), the
 * conversation's next delivery is claimed in the same unit, and returned: one commit where a claim
 * of its own would be a second, and the head this unit's removal makes carries its lease.
 */
export function settleDelivery(
  store: Store,
  signals: SignalPublisher,
  delivery: PendingDelivery,
  settlement: Settlement,
  at: Date,
  next?: NextClaim,
): Promise<PendingDelivery | undefined> {
  return store.write(async (q, after) => {
    const following = next && (await claimFollowingIn(q, delivery, at, next.leaseUntil))
    const attempts = delivery.attempts + 1
    const present = settlement.retryAt
      ? await q.botDeliveries.reschedule(delivery.id, attempts, settlement.retryAt.toISOString())
      : await q.botDeliveries.remove(delivery.id)
    if (!present) return following
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
    if (settled) await publishMessageStatus(q, after, signals, delivery, { oldStatus: 'processing', ...settled })
    return following
  })
}

/** The status an attempt's settlement leaves the message in, or undefined while it is retried. */
export function settledStatus(settlement: Settlement): { newStatus: MessageStatus; failureReason?: string } | undefined {
  if (settlement.retryAt) return undefined
  const failure = settlement.lines.find((line) => line.level === 'error')
  return failure ? { newStatus: 'failed', failureReason: failure.message } : { newStatus: 'processed' }
}
