import type { Logger } from 'pino'
import type { Store } from '../../db/store.ts'
import type { BotInbox } from '../../domain/bots/delivery/inbox.ts'
import { dueDeliveries, nextDeliveryAfter, type PendingDelivery } from '../../domain/bots/delivery/outbox.ts'
import { type Settlement, settledStatus } from '../../domain/bots/delivery/settlement.ts'
import type { OutboundPolicy } from '../../domain/outbound-policy.ts'
import type { SignalPublisher } from '../../domain/signals.ts'
import type { BotApiActivity } from '../bot-api-activity.ts'
import type { BotHandler } from '../handler.ts'
import { type AttemptDeps, type AttemptOptions, attemptDelivery } from './attempt.ts'
import { type BatchOutcome, type BatchSteps, runBatch } from './batch.ts'
import { standardRetrySchedule } from './retry-schedule.ts'
import { AttemptAbandoned } from './signed-post.ts'

export interface DeliveryWorker extends BotInbox {
  /** Resolves once no delivery is under way and none is due. */
  idle(): Promise<void>
  /** Starts no more attempts, abandons the POSTs under way (they stay due) and waits for the handlers. */
  stop(): Promise<void>
}

/** Told how each attempt ended (metrics): delivered, failed (to be retried) or dead-lettered (given up). */
export interface DeliveryObserver {
  attempted(protocol: string, outcome: 'delivered' | 'failed' | 'dead_lettered', seconds: number): void
}

export interface DeliveryWorkerOptions {
  store: Store
  log: Logger
  signals: SignalPublisher
  handlers: Record<string, BotHandler>
  /** How long one attempt may take (the POST exchange, or the in-process handler). */
  timeoutMs?: number
  /** Seconds before each attempt; the Standard Webhooks schedule by default. */
  retrySchedule?: readonly number[]
  /** The time deliveries are due by, injectable so that tests need not wait for a retry. */
  clock?: () => Date
  /** The jitter of retries. */
  random?: () => number
  /** Batches under way at once (one per conversation at most). */
  concurrency?: number
  /** The bot API calls bots have under way: a `botpress` delivery's timeout waits for them. */
  activity?: BotApiActivity
  /** Where bots' urls may point (BOT_URLS_PRIVATE; docs/guides/running-on-the-internet.md): checked at every connection. */
  outbound?: OutboundPolicy
  observer?: DeliveryObserver
}

/** A conversation as the outbox names it. */
export interface ConversationRef {
  integrationId: string
  conversationId: string
}

export const conversationKey = (c: ConversationRef) => `${c.integrationId}/${c.conversationId}`

const maxTimer = 2 ** 31 - 1

/**
 * The delivery worker: takes the events of the bot_deliveries outbox as they come due, the oldest
 * of each conversation first (an event waits until the one before it was taken or died), and makes
 * an attempt of each (attempt.ts). A conversation's due deliveries are taken in batches of up to
 * `batchLimit`, attempted in order and settled in few units (batch.ts). It is woken after each
 * commit that records a delivery, by a timer for the next retry, and once at start for what a
 * previous process left.
 *
 * How it claims and goes on with a conversation is its scheduler's, one of two that wiring chooses
 * once from what the engine declares (src/wiring.ts): alone on its database (one-process.ts), or
 * sharing it with other instances (leased.ts).
 */
export abstract class DeliveryScheduler implements DeliveryWorker {
  protected readonly store: Store
  protected readonly log: Logger
  protected readonly clock: () => Date
  protected readonly concurrency: number
  protected readonly attempts: AttemptDeps
  private readonly shutdown = new AbortController()

  /** The batches under way here, by their first delivery's id. */
  protected readonly underWay = new Map<string, Promise<void>>()
  /** The conversations with a batch under way here, and its first delivery's id. */
  protected readonly busy = new Map<string, string>()
  /** Of those, how many deliveries this instance recorded since the batch began (its wake-ups). */
  protected readonly behind = new Map<string, number>()
  /** Look-ups of a conversation's head under way (see wake), which `idle` waits for as it does for a look at the outbox. */
  protected readonly looking = new Set<Promise<void>>()
  /**
   * The conversations whose run is being read here, and how many wake-ups came for each meanwhile:
   * those wait for the read rather than each reading the same run again (a group commit of a burst
   * woke the worker once per message, and each read the conversation's first 32 deliveries).
   */
  protected readonly readingRun = new Map<string, { woken: number }[]>()
  /** The look at the outbox under way. */
  private polling: Promise<void> | undefined
  /**
   * The wake-ups that came while the outbox was being looked at, by conversation ('' for one about
   * none): the look is taken again for those whose conversation it did not start meanwhile.
   */
  private readonly wokenWhilePolling = new Set<string>()
  /** A look at the outbox found no room: the next attempt to end looks again. */
  private starved = false
  /** Fires when the next retry is due. */
  private timer: NodeJS.Timeout | undefined
  protected stopped = false
  readonly outbound: OutboundPolicy | undefined
  private readonly observer: DeliveryObserver | undefined

  constructor({
    store,
    log,
    signals,
    handlers,
    timeoutMs = 10_000,
    retrySchedule = standardRetrySchedule,
    clock = () => new Date(),
    random = Math.random,
    concurrency = 16,
    activity,
    outbound,
    observer,
  }: DeliveryWorkerOptions) {
    this.store = store
    this.log = log
    this.clock = clock
    this.concurrency = concurrency
    this.outbound = outbound
    this.observer = observer
    const shutdown = this.shutdown.signal
    this.attempts = { store, log, signals, handlers, inbox: this, timeoutMs, retrySchedule, clock, random, activity, shutdown, outbound }
  }

  /** Claims up to `room` due deliveries at `at`, each its conversation's oldest (ones of conversations busy here may come back: they are skipped), leased until `leaseUntil` where leased. */
  protected abstract claim(at: Date, room: number): Promise<{ due: PendingDelivery[]; leaseUntil?: Date }>
  /** Starts the batch that `head`, claimed (until `leaseUntil` where leased), begins. */
  protected abstract begin(head: PendingDelivery, leaseUntil?: Date): void
  /** A wake-up about a new delivery in `conversation`, idle here: true when the scheduler started it itself (no look at the outbox). */
  protected abstract startedAlone(conversation: ConversationRef): boolean
  /** Once every delivery of a batch up to `last` left the outbox: starts the conversation's next batch, false when there was no room for it (a look follows). */
  protected abstract goOnAfter(last: PendingDelivery): Promise<boolean>
  /** Heads claimed (until `leaseUntil` where leased) that this look did not begin: the scheduler sees that they are taken again. */
  protected abstract passOver(heads: readonly PendingDelivery[], leaseUntil?: Date): void

  start() {
    this.wake()
  }

  wake(conversation?: ConversationRef): void {
    if (this.stopped) return
    // A new delivery behind one under way here waits for it: the look taken when that one ends finds
    // it. Under a stream of messages to one conversation this saves a look at the outbox per commit.
    const key = conversation ? conversationKey(conversation) : ''
    if (conversation && this.busy.has(key)) {
      this.behind.set(key, (this.behind.get(key) ?? 0) + 1)
      return
    }
    const reads = conversation && this.readingRun.get(key)
    if (reads) {
      for (const read of reads) read.woken++
      return
    }
    if (this.polling) {
      this.wokenWhilePolling.add(key)
      return
    }
    if (conversation && this.startedAlone(conversation)) return
    this.polling = this.poll()
      .catch((error: unknown) => this.log.error({ err: error }, 'bot delivery worker failed to poll'))
      .finally(() => {
        this.polling = undefined
        // A wake-up between the poll's last look and now would otherwise be lost.
        if (this.looksAgain()) this.wake()
      })
  }

  async idle(): Promise<void> {
    for (;;) {
      if (this.polling) await this.polling
      if (this.looking.size > 0) await Promise.allSettled([...this.looking])
      if (this.underWay.size > 0) {
        await Promise.allSettled([...this.underWay.values()])
        continue
      }
      if (this.stopped || (await dueDeliveries(this.store, this.clock(), 1)).length === 0) return
      this.wake()
      await this.polling
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    this.shutdown.abort()
    await this.polling
    // And the look-ups and lease releases under way: none outlives the worker (the store closes after it).
    await Promise.allSettled([...this.underWay.values(), ...this.looking])
  }

  /** Looks at the outbox: claims what is due (as much as there is room for), and sets the timer for the next retry. */
  private async poll() {
    do {
      this.wokenWhilePolling.clear()
      const at = this.clock()
      const room = this.concurrency - this.underWay.size
      const { due, leaseUntil } = room > 0 ? await this.claim(at, room) : { due: [] }
      this.starved = room <= 0
      /** Claimed, not begun: their conversation's batch is under way here, or the room went to another meanwhile. */
      const passedOver: PendingDelivery[] = []
      for (const [i, head] of due.entries()) {
        if (this.underWay.size >= this.concurrency) {
          this.starved = true
          passedOver.push(...due.slice(i))
          break
        }
        if (this.busy.has(conversationKey(head))) passedOver.push(head)
        else this.begin(head, leaseUntil)
      }
      if (passedOver.length > 0) this.passOver(passedOver, leaseUntil)
      const next = await nextDeliveryAfter(this.store, at)
      clearTimeout(this.timer)
      if (next && !this.stopped) {
        this.timer = setTimeout(() => this.wake(), Math.min(Math.max(next.getTime() - this.clock().getTime(), 0), maxTimer))
        this.timer.unref()
      }
    } while (this.looksAgain() && !this.stopped)
  }

  /**
   * Whether a wake-up that came during the look asks for another: one about a conversation that the
   * look started is a delivery behind the one under way, counted as wake() counts those (its attempt
   * finds it), where a look would claim nothing (under a stream of messages to one conversation, most
   * of the worker's claims were such looks).
   */
  private looksAgain(): boolean {
    let again = false
    for (const key of this.wokenWhilePolling) {
      if (key !== '' && this.busy.has(key)) this.behind.set(key, (this.behind.get(key) ?? 0) + 1)
      else again = true
    }
    this.wokenWhilePolling.clear()
    return again
  }

  /**
   * Starts a batch of the conversation `first` begins: `run` attempts and settles it, and resolves
   * to its last delivery when every one left the outbox (undefined otherwise: retried, stopped, or
   * the scheduler started the next batch itself). Once it ends, the conversation's next batch follows.
   */
  protected startBatch(first: PendingDelivery, run: () => Promise<PendingDelivery | undefined>) {
    const key = conversationKey(first)
    const batch = run()
      .catch((error: unknown) => {
        if (!(error instanceof AttemptAbandoned)) {
          this.log.error({ err: error, deliveryId: first.id, conversationId: first.conversationId }, 'bot delivery failed')
        }
        return undefined
      })
      .then(async (through) => {
        this.underWay.delete(first.id)
        if (this.busy.get(key) !== first.id) {
          if (this.starved) {
            this.starved = false
            this.wake()
          }
          return
        }
        this.busy.delete(key)
        this.behind.delete(key)
        // New deliveries of the conversation did not wake the worker while this batch was under way:
        // the run right after it is looked up with one seek, rather than with a look at the whole outbox.
        if (!(through && (await this.goOnAfter(through)))) this.wake()
      })
      .catch((error: unknown) => {
        this.log.warn({ err: error }, 'bot delivery worker could not go on with the conversation')
        this.wake()
      })
    this.underWay.set(first.id, batch)
    this.busy.set(key, first.id)
  }

  /** Runs a batch (batch.ts), each attempt told to the observer, settled by `settle`. */
  protected runBatch(batch: readonly PendingDelivery[], settle: BatchSteps['settle']): Promise<BatchOutcome> {
    return runBatch(batch, { attempt: (delivery, options) => this.attempt(delivery, options), settle, stopping: () => this.stopped })
  }

  /** One attempt, told to the observer. */
  private async attempt(delivery: PendingDelivery, options: AttemptOptions): Promise<Settlement> {
    const began = performance.now()
    const settlement = await attemptDelivery(this.attempts, delivery, options)
    this.observer?.attempted(delivery.target.url ? delivery.target.protocol : 'in-process', outcomeOf(settlement), (performance.now() - began) / 1000)
    return settlement
  }

  /** Whether there is room for one more attempt. */
  protected hasRoom(): boolean {
    return !this.stopped && this.underWay.size < this.concurrency
  }
}

/** An attempt's outcome as the metrics count it. */
function outcomeOf(settlement: Settlement): 'delivered' | 'failed' | 'dead_lettered' {
  if (settlement.retryAt) return 'failed'
  return settlement.goneUrl || settledStatus(settlement)?.newStatus === 'failed' ? 'dead_lettered' : 'delivered'
}
