import type { PendingDelivery } from '../../domain/bots/delivery/outbox.ts'
import type { Settled, Settlement } from '../../domain/bots/delivery/settlement.ts'
import type { AttemptOptions } from './attempt.ts'

/** The most deliveries of one conversation taken as one batch (one claim, a few settlement units). */
export const batchLimit = 32

/** What a batch needs of its scheduler. */
export interface BatchSteps {
  /** One attempt (the POST, or the in-process handler): its outcome, not yet settled. */
  attempt(delivery: PendingDelivery, options: AttemptOptions): Promise<Settlement>
  /**
   * Settles attempts in one unit; `last` when they end the batch, which ran to its end: the unit
   * may then claim the conversation's next batch, which it returns.
   */
  settle(attempts: readonly Settled[], last: boolean): Promise<PendingDelivery[]>
  /** Whether to start no more attempts (the worker is stopping). */
  stopping(): boolean
}

/** How a batch ended. */
export interface BatchOutcome {
  /** The last delivery of the batch, when every one left the outbox (taken, dead or gone): the conversation may go on after it. */
  through: PendingDelivery | undefined
  /** The next batch, claimed by the last settlement. */
  next: PendingDelivery[]
  /** The deliveries it stopped before (a failed attempt, a 410, a stop): they stay queued, not attempted. */
  unattempted: PendingDelivery[]
}

/** Whether the next attempt of the conversation waits for this settlement: it reads back the answer, the bot's state, a 410, or is this one again. */
export const holdsTheNext = (settlement: Settlement) =>
  settlement.retryAt !== undefined || settlement.answer?.holdsTheNext === true || settlement.goneUrl !== undefined

/** Whether the batch stops after this attempt: it is to be tried again, or the bot's delivery is off (410). */
const stopsTheBatch = (settlement: Settlement) => settlement.retryAt !== undefined || settlement.goneUrl !== undefined

/**
 * Runs a batch: consecutive due deliveries of one conversation, attempted one after another in
 * their order, and settled in as few units as keep that order visible.
 * - A bot with a url gets one POST per event; each attempt that ended is settled while the next
 *   POST goes on, one unit under way at a time (those that end meanwhile are settled together
 *   next): what a crash leaves unsettled is only what was under way.
 * - An in-process handler's attempts are settled together once the batch ends (one unit for a
 *   burst), or earlier where the order asks for it: before a handler calls its API (reply,
 *   setState…: beforeActing), it acts after the answers before it.
 * - An attempt waits for the settlement of those before it when it reads what they write
 *   (holdsTheNext: the bot's state, an answer a webhook bot reads back).
 * The batch stops at the first attempt to be retried (its settlement reschedules it; those after
 * it stay queued behind it, not attempted) or that turns the bot's delivery off (410). An attempt
 * that throws (the worker stopping) is not settled, and the error is thrown once what ended before
 * it is. A delivery is settled only after its attempt ended, and what is not settled stays queued:
 * it is attempted again (at least once).
 */
export async function runBatch(batch: readonly PendingDelivery[], steps: BatchSteps): Promise<BatchOutcome> {
  const ended: Settled[] = []
  let settling: Promise<void> | undefined
  let failure: { error: unknown } | undefined
  /** Where the batch stopped before its end: the index of the first delivery not attempted. */
  let cut: number | undefined
  let next: PendingDelivery[] = []
  const final = batch.at(-1)

  // One settlement under way at a time; what ends meanwhile waits for it, and is settled together next.
  const pump = () => {
    if (settling || ended.length === 0 || failure) return
    const group = ended.splice(0)
    const last = cut === undefined && group.at(-1)?.delivery === final
    settling = steps
      .settle(group, last)
      .then(
        (claimed) => {
          if (last) next = claimed
        },
        (error: unknown) => {
          // Not settled: those deliveries stay queued, and are attempted again.
          failure ??= { error }
        },
      )
      .finally(() => {
        settling = undefined
        pump()
      })
  }
  /** Resolves once every attempt ended so far is settled (or a settlement failed). */
  const settled = async () => {
    while (settling || (ended.length > 0 && !failure)) {
      pump()
      await settling
    }
  }

  // A handler acts after the answers before it, or not at all: its call fails as the database did.
  const beforeActing = async () => {
    await settled()
    if (failure) throw new Error('the attempts before this one could not be settled')
  }

  for (const [i, delivery] of batch.entries()) {
    if (failure || steps.stopping()) {
      cut = i
      break
    }
    let settlement: Settlement
    try {
      settlement = await steps.attempt(delivery, { beforeActing })
    } catch (error) {
      failure ??= { error }
      cut = i
      break
    }
    if (stopsTheBatch(settlement)) cut = i + 1
    ended.push({ delivery, settlement })
    if (delivery.target.url !== undefined) pump()
    if (cut !== undefined) break
    if (holdsTheNext(settlement)) await settled()
  }
  await settled()
  if (failure) throw failure.error
  return { through: cut === undefined ? final : undefined, next, unattempted: cut === undefined ? [] : batch.slice(cut) }
}
