import type { Logger } from 'pino'
import type { Store } from '../../db/store.ts'
import {
  claimDeliveries,
  conversationHead,
  dueDeliveries,
  followingDelivery,
  followingDeliveries,
  nextDeliveryAfter,
  type PendingDelivery,
  renewDeliveryLease,
} from '../../domain/bots/delivery/outbox.ts'
import type { BotInbox } from '../../domain/bots/delivery/inbox.ts'
import type { OutboundPolicy } from '../../domain/outbound-policy.ts'
import { type NextClaim, type Settled, type Settlement, settledStatus } from '../../domain/bots/delivery/settlement.ts'
import type { SignalPublisher } from '../../domain/signals.ts'
import type { BotApiActivity } from '../bot-api-activity.ts'
import type { BotHandler } from '../handler.ts'
import { type AttemptDeps, type AttemptOptions, attemptDelivery, settleAttempt, settleAttempts, stateKey } from './attempt.ts'
import { type BotState, getBotState } from '../../domain/bots/chat/state.ts'
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
  /**
   * Whether other instances share the database (PostgreSQL), said once by wiring: the worker then
   * leases what it claims, looks for others' deliveries on a timer, and claims each conversation's
   * next delivery in the unit that settles the one before; alone on its database, it learns of every
   * delivery from its own writes and goes on with a conversation's next one as it settles.
   */
  shared: boolean
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
  /** Attempts under way at once (one per conversation at most). */
  concurrency?: number
  /** The bot API calls bots have under way: a `botpress` delivery's timeout waits for them. */
  activity?: BotApiActivity
  /**
   * How long a claimed delivery stays this instance's: another instance sharing the database takes
   * it once this has run out (its holder died). Renewed every third of it while the attempt goes
   * on, however long that is; `timeoutMs` + 20 s by default.
   */
  leaseMs?: number
  /**
   * On a database several instances share, how often to look for due deliveries besides the
   * wake-ups of this instance's own writes (another's left behind, a lease run out); 2 s by default.
   */
  sweepMs?: number
  /** Where bots' urls may point (BOT_URLS_PRIVATE; docs/guides/running-on-the-internet.md): checked at every connection. */
  outbound?: OutboundPolicy
  observer?: DeliveryObserver
}

/** A conversation as the outbox names it. */
interface ConversationRef {
  integrationId: string
  conversationId: string
}

const conversationKey = (c: ConversationRef) => `${c.integrationId}/${c.conversationId}`

const maxTimer = 2 ** 31 - 1

/**
 * The delivery worker: takes the events of the bot_deliveries outbox as they come due, the oldest
 * of each conversation first (an event waits until the one before it was taken or died), and makes
 * an attempt of each (attempt.ts). Each attempt's outcome is settled in one unit of work with its
 * log lines. It is woken after each commit that records a delivery, by a timer for the next retry,
 * and once at start for what a previous process left.
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const worker = new Worker(options)
  worker.start()
  return worker
}

class Worker implements DeliveryWorker {
  private readonly store: Store
  private readonly log: Logger
  private readonly clock: () => Date
  private readonly concurrency: number
  private readonly leaseMs: number
  private readonly sweepMs: number
  private readonly attempts: AttemptDeps
  private readonly shutdown = new AbortController()

  /** The attempts under way here, by delivery id. */
  private readonly underWay = new Map<string, Promise<void>>()
  /** The conversations with an attempt under way here, and its delivery's id. */
  private readonly busy = new Map<string, string>()
  /**
   * Of those, how many deliveries this instance recorded behind the one under way (its wake-ups):
   * on a shared store, where the next one is claimed only if there is one, not looked for after each.
   */
  private readonly behind = new Map<string, number>()
  /** Look-ups of a conversation's head under way (see wake), which `idle` waits for as it does for a look at the outbox. */
  private readonly looking = new Set<Promise<void>>()
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
  private sweep: NodeJS.Timeout | undefined
  private stopped = false
  private readonly shared: boolean
  readonly outbound: OutboundPolicy | undefined
  private readonly observer: DeliveryObserver | undefined

  constructor({
    store,
    shared,
    log,
    signals,
    handlers,
    timeoutMs = 10_000,
    retrySchedule = standardRetrySchedule,
    clock = () => new Date(),
    random = Math.random,
    concurrency = 16,
    activity,
    leaseMs = timeoutMs + 20_000,
    sweepMs = 2_000,
    outbound,
    observer,
  }: DeliveryWorkerOptions) {
    this.store = store
    this.shared = shared
    this.log = log
    this.clock = clock
    this.concurrency = concurrency
    this.leaseMs = leaseMs
    this.sweepMs = sweepMs
    this.outbound = outbound
    this.observer = observer
    const shutdown = this.shutdown.signal
    this.attempts = { store, log, signals, handlers, inbox: this, timeoutMs, retrySchedule, clock, random, activity, shutdown, outbound }
  }

  start() {
    // Alone on its database, this instance learns of every delivery from its own writes; sharing it,
    // it also looks now and then for the deliveries of others (a lease run out, a dead instance's).
    this.sweep = this.shared ? setInterval(() => this.wake(), this.sweepMs) : undefined
    this.sweep?.unref()
    this.wake()
  }

  wake(conversation?: ConversationRef): void {
    if (this.stopped) return
    // A new delivery behind one under way here waits for it: the look taken when that one ends finds
    // it. Under a stream of messages to one conversation this saves a look at the outbox per commit.
    if (conversation && this.busy.has(conversationKey(conversation))) {
      const key = conversationKey(conversation)
      this.behind.set(key, (this.behind.get(key) ?? 0) + 1)
      return
    }
    if (this.polling) {
      this.wokenWhilePolling.add(conversation ? conversationKey(conversation) : '')
      return
    }
    // A new delivery in an idle conversation: its head is found with one seek, where a look at the
    // outbox would read the head of every conversation.
    if (conversation && this.mayStartWithoutLook()) {
      this.startHeadOf(conversation)
      return
    }
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
    clearInterval(this.sweep)
    this.shutdown.abort()
    await this.polling
    await Promise.allSettled([...this.underWay.values()])
  }

  /** Looks at the outbox: claims what is due (as much as there is room for), and sets the timer for the next retry. */
  private async poll() {
    do {
      this.wokenWhilePolling.clear()
      const at = this.clock()
      // A shared store's claim leaves out what this instance holds, a private one's returns the
      // attempts under way again (skipped below): either way, no more than there is room for.
      const room = this.concurrency - this.underWay.size
      const limit = this.shared ? room : room + this.underWay.size
      const leaseUntil = new Date(at.getTime() + this.leaseMs)
      const due = room > 0 ? await claimDeliveries(this.store, at, limit, leaseUntil) : []
      this.starved = room <= 0
      for (const delivery of due) {
        if (this.underWay.size >= this.concurrency) {
          this.starved = true
          break
        }
        if (!this.underWay.has(delivery.id)) this.startAttempt(delivery, this.shared ? leaseUntil : undefined)
      }
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
   * Starts an attempt of the delivery; once it ends, the conversation's next delivery follows. A
   * delivery claimed on a shared store until `leaseUntil` is held by renewing its lease while the
   * attempt goes on.
   */
  private startAttempt(delivery: PendingDelivery, leaseUntil?: Date) {
    const key = conversationKey(delivery)
    const lease = leaseUntil && this.holdLease(delivery, leaseUntil)
    const attempt = this.deliver(delivery, lease)
      .finally(() => lease?.release())
      .catch((error: unknown) => {
        if (!(error instanceof AttemptAbandoned)) {
          this.log.error({ err: error, deliveryId: delivery.id, conversationId: delivery.conversationId }, 'bot delivery failed')
        }
        return false
      })
      .then(async (left) => {
        this.underWay.delete(delivery.id)
        if (this.busy.get(key) !== delivery.id) {
          if (this.starved) {
            this.starved = false
            this.wake()
          }
          return
        }
        this.busy.delete(key)
        this.behind.delete(key)
        // New deliveries of the conversation did not wake the worker while this one was under way:
        // the one right after it is looked up with one seek, rather than with a look at the whole outbox.
        if (!(left && (await this.startNextAfter(delivery)))) this.wake()
      })
      .catch((error: unknown) => {
        this.log.warn({ err: error }, 'bot delivery worker could not go on with the conversation')
        this.wake()
      })
    this.underWay.set(delivery.id, attempt)
    this.busy.set(key, delivery.id)
  }

  /**
   * Renews the lease of a delivery under way every third of the lease, each time for a whole lease
   * from then, until it is released: an attempt held open past its lease (a `botpress` bot calling
   * the bot API back) stays this instance's, where another instance would take it again. An attempt
   * shorter than a third of the lease costs nothing. A run ahead hands the lease over to the
   * delivery that holds the conversation after it settled those before (see runAhead).
   */
  private holdLease(delivery: PendingDelivery, leaseUntil: Date): HeldLease {
    const held = { id: delivery.id, until: leaseUntil }
    let released = false
    let renewing = false
    const renew = async () => {
      const { id, until } = held
      const next = new Date(this.clock().getTime() + this.leaseMs)
      const renewed = await renewDeliveryLease(this.store, id, until, next)
      // Handed over meanwhile: the new holder's lease is the one renewed from now on.
      if (held.id !== id) return
      if (renewed) held.until = next
      else if (!released) {
        // Its lease ran out before it was renewed (the process stalled): another instance may make the attempt again.
        clearInterval(timer)
        this.log.warn({ deliveryId: id, conversationId: delivery.conversationId }, 'bot delivery lease lost while its attempt was under way')
      }
    }
    const timer = setInterval(() => {
      // One renewal at a time: the next one renews the lease this one sets.
      if (renewing) return
      renewing = true
      renew()
        .catch((error: unknown) => this.log.warn({ err: error, deliveryId: held.id }, 'bot delivery lease not renewed'))
        .finally(() => (renewing = false))
    }, this.leaseMs / 3)
    timer.unref()
    return {
      handOver: (id, until) => Object.assign(held, { id, until }),
      release: () => {
        released = true
        clearInterval(timer)
      },
    }
  }

  /** Makes one attempt and settles it: true when the delivery left the outbox (taken, dead or gone). */
  private async deliver(delivery: PendingDelivery, lease?: HeldLease): Promise<boolean> {
    const settlement = await this.attempt(delivery)
    // Going on with the conversation early is an optimisation: if it fails, the look taken when this attempt ends finds the next one.
    const goesOn = !holdsTheNext(settlement) && this.hasRoom()
    if (!this.shared) {
      const settling = settleAttempt(this.attempts, delivery, settlement)
      if (goesOn) await this.startNextAfter(delivery).catch(this.couldNotGoOn)
      await settling
      return !settlement.retryAt
    }
    const run =
      goesOn && lease && runsAhead(delivery) && this.hasBehind(delivery) ? await this.runAhead({ delivery, settlement }, lease) : [{ delivery, settlement }]
    const last = run.at(-1) as Settled
    const claim = !holdsTheNext(last.settlement) && this.hasRoom() ? this.nextClaim(last.delivery) : undefined
    const next = await settleAttempts(this.attempts, run, claim)
    if (claim) this.claimed(last.delivery, next)
    // Taken: its lease runs out unattempted only if this instance stopped meanwhile.
    if (claim && next && !this.stopped) this.startAttempt(next, claim.leaseUntil)
    return !settlement.retryAt
  }

  /** One attempt, told to the observer. */
  private async attempt(delivery: PendingDelivery, options?: AttemptOptions): Promise<Settlement> {
    const began = performance.now()
    const settlement = await attemptDelivery(this.attempts, delivery, options)
    this.observer?.attempted(delivery.target.url ? delivery.target.protocol : 'in-process', outcomeOf(settlement), (performance.now() - began) / 1000)
    return settlement
  }

  /**
   * On a shared database, the attempts of a busy conversation's next deliveries to an in-process
   * handler, made one after the other before `first` is settled, so that a run of them settles in
   * one unit (one commit, and one claim of the delivery after them) where each would be a unit of
   * its own: under a stream of messages the bot keeps up. Their order is kept: `first`, the
   * conversation's head, holds its lease all along, and no other instance takes a delivery behind
   * it. A handler that calls its API (reply, setState…) first settles the attempts before its own,
   * whose delivery then holds the conversation's lease (the attempt sees and writes what it would
   * have without the run). The run stops at an attempt the next one waits for (a retry, a state to
   * read), at a delivery to a url, when nothing is recorded behind, after `runLength` attempts or a
   * third of the lease.
   */
  private async runAhead(first: Settled, lease: HeldLease): Promise<Settled[]> {
    const key = conversationKey(first.delivery)
    const run: Settled[] = [first]
    const ends = performance.now() + this.leaseMs / 3
    let last = first
    let ahead: PendingDelivery[] = []
    let current: PendingDelivery | undefined
    let settling: Promise<void> | undefined
    /** The bot's state by user, read once for the run: unchanged until a handler calls its API (the answers of a run set none). */
    const states = new Map<string, Promise<BotState>>()
    const settleBefore = async () => {
      const settled = run.splice(0)
      const holder = current as PendingDelivery
      const leaseUntil = new Date(this.clock().getTime() + this.leaseMs)
      const claimed = await settleAttempts(this.attempts, settled, { leaseUntil })
      // The one under way is the conversation's head now: its lease keeps it this instance's. Not
      // claimed: it is gone (its conversation deleted), and there is no lease to hold.
      if (claimed?.id === holder.id) lease.handOver(holder.id, leaseUntil)
      else lease.release()
    }
    const beforeActing = () => {
      states.clear()
      if (run.length === 0) return settling ?? Promise.resolve()
      settling = settleBefore()
      return settling
    }
    while (run.length < runLength && !this.stopped && performance.now() < ends) {
      if (ahead.length === 0) {
        if (!this.hasBehind(last.delivery)) break
        ahead = await followingDeliveries(this.store, last.delivery, this.clock(), runLength - run.length)
      }
      const next = ahead.shift()
      if (!next || !runsAhead(next) || this.underWay.has(next.id)) break
      this.behind.set(key, Math.max((this.behind.get(key) ?? 1) - 1, 0))
      current = next
      const state = states.get(next.userId) ?? getBotState(this.store, stateKey(next))
      states.set(next.userId, state)
      last = { delivery: next, settlement: await this.attempt(next, { beforeActing, state: { ...(await state) } }) }
      // A settlement of those before it that failed is this attempt's failure: it is not settled twice.
      if (settling) await settling
      run.push(last)
      if (holdsTheNext(last.settlement)) break
    }
    return run
  }

  private readonly couldNotGoOn = (error: unknown) => {
    this.log.warn({ err: error }, 'bot delivery worker could not go on with the conversation')
    return undefined
  }

  /** Whether there is room for one more attempt. */
  private hasRoom(): boolean {
    return !this.stopped && this.underWay.size < this.concurrency
  }

  /** Whether this process may start a conversation's next delivery itself, without a look at the outbox (or a claim). */
  private mayStartWithoutLook(): boolean {
    return !this.shared && this.hasRoom()
  }

  /** Starts the delivery a conversation waits on, if it is due and not under way yet. */
  private startHeadOf(conversation: ConversationRef) {
    const lookup = conversationHead(this.store, conversation, this.clock())
      .then((head) => {
        if (!head || this.underWay.has(head.id) || this.busy.has(conversationKey(head))) return
        if (this.mayStartWithoutLook()) this.startAttempt(head)
        else this.wake()
      })
      .catch((error: unknown) => {
        this.log.warn({ err: error }, 'bot delivery worker could not look up a conversation')
        this.wake()
      })
      .finally(() => this.looking.delete(lookup))
    this.looking.add(lookup)
  }

  /**
   * On a shared database, the claim of the conversation's next delivery that `delivery`'s settlement
   * makes (settleDelivery: one commit, and the head its removal makes carries the lease), when one is
   * known to be behind it (hasBehind); its attempt starts once that has committed. (Where this process
   * owns the database, the next one starts once the settlement is submitted, startNextAfter: it
   * commits no later than anything the next attempt writes.)
   */
  private nextClaim(delivery: PendingDelivery): NextClaim | undefined {
    if (!this.hasBehind(delivery)) return undefined
    return { leaseUntil: new Date(this.clock().getTime() + this.leaseMs) }
  }

  /**
   * Whether a delivery is known to be queued behind `delivery`: one this instance recorded since its
   * conversation became busy (its wake-ups), or one there when `delivery` was read (the claim tells,
   * on PostgreSQL: a backlog left by a wake-up that came while the conversation was not busy, or by
   * another instance).
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

  /** Starts the delivery right after `delivery` in its conversation, if due; false when there was no room for it. */
  private async startNextAfter(delivery: PendingDelivery): Promise<boolean> {
    if (!this.mayStartWithoutLook()) return false
    const next = await followingDelivery(this.store, delivery, this.clock())
    if (!next || this.underWay.has(next.id)) return true
    const holder = this.busy.get(conversationKey(next))
    if (!this.mayStartWithoutLook() || (holder !== undefined && holder !== delivery.id)) return false
    this.startAttempt(next)
    return true
  }
}

/** A lease held while an attempt goes on (Worker.holdLease). */
interface HeldLease {
  /** The delivery `id` holds the conversation from now on, until `until`. */
  handOver(id: string, until: Date): void
  release(): void
}

/** The longest run of attempts settled in one unit (Worker.runAhead). */
const runLength = 256

/** Whether a delivery's attempt may run ahead of the settlement of the one before it: an in-process handler's, whose API calls wait for that settlement. */
const runsAhead = (delivery: PendingDelivery) => !delivery.target.url

/** Whether the next attempt of the conversation waits for this settlement: it reads back the answer, the bot's state, a 410, or is this one again. */
const holdsTheNext = (settlement: Settlement) =>
  settlement.retryAt !== undefined || settlement.answer?.holdsTheNext === true || settlement.goneUrl !== undefined

/** An attempt's outcome as the metrics count it. */
function outcomeOf(settlement: Settlement): 'delivered' | 'failed' | 'dead_lettered' {
  if (settlement.retryAt) return 'failed'
  return settlement.goneUrl || settledStatus(settlement)?.newStatus === 'failed' ? 'dead_lettered' : 'delivered'
}
