import { performance } from 'node:perf_hooks'
import type { Logger } from 'pino'
import type { Store } from '../db/store.ts'
import { answerApplier, type BotAnswer, checkBotAnswer, parseBotAnswer } from '../domain/bots/answers.ts'
import {
  claimDeliveries,
  conversationHead,
  followingDelivery,
  dueDeliveries,
  nextDeliveryAfter,
  type PendingDelivery,
} from '../domain/bots/deliveries.ts'
import type { BotEvent } from '../domain/bots/event.ts'
import { botpressDelivery } from '../domain/bots/botpress-event.ts'
import { type BotState, getBotState, setBotState, type StateKey } from '../domain/bots/state.ts'
import { botChatContext, emitAsBot, replyAsBot } from '../domain/bots/in-chat.ts'
import type { BotInbox } from '../domain/bots/inbox.ts'
import type { ChatContext } from '../domain/context.ts'
import { DomainError } from '../domain/errors.ts'
import { type LogLine, type Settlement, settleDelivery } from '../domain/bots/settlement.ts'
import { updateMessage } from '../domain/message-updates.ts'
import { botTyping } from '../domain/typing.ts'
import type { SignalPublisher } from '../domain/signals.ts'
import type { RuntimeActivity } from './activity.ts'
import { type BotHandler, toBotCustomEvent, toBotMessage } from './handler.ts'
import { retryAfterDelay, retryDelay, standardRetrySchedule } from './retry-schedule.ts'
import { AttemptAbandoned, postWebhook, runtimeLimit } from './webhook.ts'

export interface BotRuntime extends BotInbox {
  /** Resolves once no delivery is under way and none is due. */
  idle(): Promise<void>
  /** Starts no more attempts, abandons the webhook attempts under way (they stay due) and waits for the handlers. */
  stop(): Promise<void>
}

export interface BotRuntimeOptions {
  store: Store
  log: Logger
  signals: SignalPublisher
  handlers: Record<string, BotHandler>
  /** How long one attempt may take (the webhook exchange, or the in-process handler). */
  timeoutMs?: number
  /** Seconds before each attempt; the Standard Webhooks schedule by default. */
  retrySchedule?: readonly number[]
  /** The time deliveries are due by, injectable so that tests need not wait for a retry. */
  clock?: () => Date
  /** The jitter of retries. */
  random?: () => number
  /** Attempts under way at once (one per conversation at most). */
  concurrency?: number
  /** The runtime API calls bots have under way: a `botpress` delivery's timeout waits for them. */
  activity?: RuntimeActivity
  /**
   * How long a claimed delivery stays this instance's: another instance sharing the database takes
   * it once this has run out (its holder died). Longer than an attempt may take: `timeoutMs` + 20 s
   * by default.
   */
  leaseMs?: number
  /**
   * On a database several instances share, how often to look for due deliveries besides the
   * wake-ups of this instance's own writes (another's left behind, a lease run out); 2 s by default.
   */
  sweepMs?: number
}

class HandlerTimeout extends Error {}

const maxTimer = 2 ** 31 - 1

/**
 * The delivery worker: takes the events of the bot_deliveries outbox as they come due, the oldest
 * of each conversation first (an event waits until the one before it was taken or died), and hands
 * each to its bot: a signed POST to the bot's url, or its in-process handler. Each attempt's
 * outcome (the bot's answer, a retry on the schedule, a dead or gone delivery) is settled in one
 * unit of work with its log lines. It is woken after each commit that records a delivery, by a
 * timer for the next retry, and once at start for what a previous process left.
 */
export function startBotRuntime({
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
  leaseMs = timeoutMs + 20_000,
  sweepMs = 2_000,
}: BotRuntimeOptions): BotRuntime {
  const underWay = new Map<string, Promise<void>>()
  const shutdown = new AbortController()
  let polling: Promise<void> | undefined
  let again = false
  let timer: NodeJS.Timeout | undefined
  let stopped = false

  async function poll() {
    do {
      again = false
      const at = clock()
      // A shared store's claim leaves out what this instance holds, a private one's returns the
      // attempts under way again (skipped below): either way, no more than there is room for.
      const room = concurrency - underWay.size
      const limit = store.shared ? room : room + underWay.size
      const due = room > 0 ? await claimDeliveries(store, at, limit, new Date(at.getTime() + leaseMs)) : []
      starved = room <= 0
      for (const delivery of due) {
        if (underWay.size >= concurrency) {
          starved = true
          break
        }
        if (!underWay.has(delivery.id)) start(delivery)
      }
      const next = await nextDeliveryAfter(store, at)
      clearTimeout(timer)
      if (next && !stopped) {
        timer = setTimeout(wake, Math.min(Math.max(next.getTime() - clock().getTime(), 0), maxTimer))
        timer.unref()
      }
    } while (again && !stopped)
  }

  /** The conversations (`integrationId/conversationId`) with an attempt under way here, and its delivery's id. */
  const busy = new Map<string, string>()
  /** A look at the outbox found no room: the next attempt to end looks again. */
  let starved = false
  const conversationKey = (c: { integrationId: string; conversationId: string }) => `${c.integrationId}/${c.conversationId}`

  function wake(conversation?: { integrationId: string; conversationId: string }) {
    if (stopped) return
    // A new delivery behind one under way here waits for it: the look taken when that one ends finds
    // it. Under a stream of messages to one conversation this saves a look at the outbox per commit.
    if (conversation && busy.has(conversationKey(conversation))) return
    if (polling) {
      again = true
      return
    }
    // A new delivery in an idle conversation: its head is found with one seek, where a look at the
    // outbox would read the head of every conversation.
    if (conversation && mayGoOn()) {
      goOnWith(conversation)
      return
    }
    polling = poll()
      .catch((error: unknown) => log.error({ err: error }, 'bot delivery worker failed to poll'))
      .finally(() => {
        polling = undefined
        // A wake-up between the poll's last look and now would otherwise be lost.
        if (again) wake()
      })
  }

  function start(delivery: PendingDelivery) {
    const key = conversationKey(delivery)
    const attempt = deliver(delivery)
      .catch((error: unknown) => {
        if (!(error instanceof AttemptAbandoned)) {
          log.error({ err: error, deliveryId: delivery.id, conversationId: delivery.conversationId }, 'bot delivery failed')
        }
        return false
      })
      .then(async (left) => {
        underWay.delete(delivery.id)
        if (busy.get(key) !== delivery.id) {
          if (starved) {
            starved = false
            wake()
          }
          return
        }
        busy.delete(key)
        // New deliveries of the conversation did not wake the worker while this one was under way:
        // the one right after it is looked up with one seek, rather than with a look at the whole outbox.
        if (!(left && (await goOnAfter(delivery)))) wake()
      })
      .catch((error: unknown) => {
        log.warn({ err: error }, 'bot delivery worker could not go on with the conversation')
        wake()
      })
    underWay.set(delivery.id, attempt)
    busy.set(key, delivery.id)
  }

  /** Head look-ups under way (see wake), which `idle` waits for as it does for a poll. */
  const looking = new Set<Promise<void>>()

  /** Starts the delivery a conversation waits on, if it is due and not under way yet. */
  function goOnWith(conversation: { integrationId: string; conversationId: string }) {
    const lookup = conversationHead(store, conversation, clock())
      .then((head) => {
        if (!head || underWay.has(head.id) || busy.has(conversationKey(head))) return
        if (mayGoOn()) start(head)
        else wake()
      })
      .catch((error: unknown) => {
        log.warn({ err: error }, 'bot delivery worker could not look up a conversation')
        wake()
      })
      .finally(() => looking.delete(lookup))
    looking.add(lookup)
  }

  /** Whether this process may start a conversation's next delivery itself, without a look at the outbox. */
  const mayGoOn = () => !store.shared && !stopped && underWay.size < concurrency

  /**
   * Starts the conversation's next delivery while this one's settlement commits. The settlement was
   * submitted first, so it commits no later than anything the next attempt writes; the attempt that
   * ended has succeeded or died, so order is kept. (A settlement lost to a failed commit leaves its
   * delivery due again: at least once, as for a crash.) Only where this process owns the database:
   * on a shared one, the next delivery is another instance's to claim as well.
   */
  async function goOn(delivery: PendingDelivery, settlement: Settlement) {
    // An answer the next attempt reads back, or a 410, is the settlement's to apply before that attempt.
    const holdsTheNext = settlement.retryAt || settlement.answer?.holdsTheNext || settlement.goneUrl !== undefined
    if (holdsTheNext || !mayGoOn()) return
    await goOnAfter(delivery)
  }

  /** Starts the delivery right after `delivery` in its conversation, if due; false when there was no room for it. */
  async function goOnAfter(delivery: PendingDelivery): Promise<boolean> {
    if (!mayGoOn()) return false
    const next = await followingDelivery(store, delivery, clock())
    if (!next || underWay.has(next.id)) return true
    const holder = busy.get(conversationKey(next))
    if (!mayGoOn() || (holder !== undefined && holder !== delivery.id)) return false
    start(next)
    return true
  }

  const stateKey = (delivery: PendingDelivery): StateKey => ({
    botId: delivery.target.botId,
    conversationId: delivery.conversationId,
    userId: delivery.userId,
  })

  /** Makes one attempt and settles it: true when the delivery left the outbox (taken, dead or gone). */
  async function deliver(delivery: PendingDelivery): Promise<boolean> {
    const state = await getBotState(store, stateKey(delivery))
    const event: BotEvent = { ...delivery.event, state: { ...state } }
    const { url, protocol } = delivery.target
    const settlement = !url
      ? await callHandler(delivery, event, state)
      : protocol === 'botpress'
        ? await callBotpress(delivery, url)
        : await callWebhook(delivery, url, event)
    const settling = settle(delivery, settlement)
    // Going on is an optimisation: if it fails, the look taken when this attempt ends finds the next one.
    await goOn(delivery, settlement).catch((error: unknown) => log.warn({ err: error }, 'bot delivery worker could not go on with the conversation'))
    await settling
    return !settlement.retryAt
  }

  /** Settles the attempt; an answer that fails once applied is refused, and the attempt settled without it. */
  async function settle(delivery: PendingDelivery, settlement: Settlement) {
    try {
      await settleDelivery(store, signals, delivery, settlement, clock())
    } catch (error) {
      if (!settlement.answer || !(error instanceof DomainError)) throw error
      const refused = { level: 'warn', message: `answer refused, nothing of it applied: ${error.message}` } as const
      await settleDelivery(store, signals, delivery, { ...settlement, answer: undefined, lines: [...settlement.lines, refused] }, clock())
    }
  }

  const attemptName = (delivery: PendingDelivery) => `attempt ${delivery.attempts + 1} of ${retrySchedule.length}`

  /** A failed attempt: retried on the schedule (or when the bot asked), else dead. */
  function failed(delivery: PendingDelivery, line: LogLine, retryAfterMs?: number): Settlement {
    const delay = retryDelay(retrySchedule, delivery.attempts + 1, random)
    if (delay === undefined) {
      const dead = `delivery ${delivery.id} is dead after ${delivery.attempts + 1} attempts; the event was not delivered`
      log.warn({ deliveryId: delivery.id, botId: delivery.target.botId }, dead)
      return { lines: [line, { level: 'error', message: dead }] }
    }
    return { lines: [line], retryAt: new Date(clock().getTime() + (retryAfterMs ?? delay)) }
  }

  const dead = (message: string): Settlement => ({ lines: [{ level: 'error', message }] })

  async function callWebhook(delivery: PendingDelivery, url: string, event: BotEvent): Promise<Settlement> {
    const body = JSON.stringify({ type: event.type, timestamp: event.createdOn.toISOString(), data: event })
    const size = Buffer.byteLength(body)
    if (size > runtimeLimit) return dead(`event body of ${size} bytes exceeds the Runtime limit of 1 MB; not delivered`)
    if (delivery.target.signingSecrets.length === 0) return dead('the bot has no signing secret; not delivered')
    const began = performance.now()
    const result = await postWebhook({
      url,
      id: delivery.id,
      body,
      secrets: delivery.target.signingSecrets,
      now: clock(),
      timeoutMs,
      shutdown: shutdown.signal,
    })
    const took = `${Math.round(performance.now() - began)} ms`
    const what = `POST ${url} (${attemptName(delivery)})`
    if (result.kind === 'failed') return failed(delivery, { level: 'warn', message: `${what}: ${result.error}, after ${took}` })
    const line = (level: LogLine['level']) => ({ level, message: `${what}: HTTP ${result.status} in ${took}` })
    if (result.kind === 'answerTooLarge') {
      const refused = { level: 'warn', message: 'answer of more than 1 MB (the Runtime limit) refused' } as const
      return { lines: [line('info'), refused] }
    }
    if (result.status === 410) {
      const off = { level: 'warn', message: `delivery is off until the bot's url changes (${url} answered 410 Gone)` } as const
      return { lines: [line('warn'), off], goneUrl: url }
    }
    if (result.status < 200 || result.status > 299) {
      const asked = result.status === 429 || result.status === 503 ? retryAfterDelay(result.retryAfter, clock()) : undefined
      return failed(delivery, line('warn'), asked)
    }
    const ctx = botChatContext(store, delivery.integration, signals, runtime)
    // The bot may read its answer back through the chat API as it takes the next event.
    return answered(delivery, event, line('info'), () => parseBotAnswer(result.contentType, result.body), ctx, { readsBack: true })
  }

  /** An attempt the bot took: its answer is applied with the settlement, in `ctx`, or refused (logged) when it is not a valid one. */
  function answered(
    delivery: PendingDelivery,
    event: BotEvent,
    took: LogLine,
    read: () => BotAnswer | undefined,
    ctx: ChatContext,
    options: { readsBack: boolean },
  ): Settlement {
    try {
      const answer = read()
      return answer ? { lines: [took], answer: answerApplier(ctx, event, stateKey(delivery), answer, options) } : { lines: [took] }
    } catch (error) {
      if (!(error instanceof DomainError)) throw error
      return { lines: [took, { level: 'warn', message: `answer refused, nothing of it applied: ${error.message}` }] }
    }
  }

  /**
   * The SDK's format: the bot answers 200 once its handlers are done (its runtime API calls made
   * meanwhile, which hold the timeout off), or 500 when one threw (retried). Its answer is not read.
   */
  async function callBotpress(delivery: PendingDelivery, url: string): Promise<Settlement> {
    const made = await botpressDelivery(store, delivery)
    if (!made) return { lines: [{ level: 'info', message: 'what the event was about is gone; not delivered' }] }
    const size = Buffer.byteLength(made.body)
    if (size > runtimeLimit) return dead(`event body of ${size} bytes exceeds the Runtime limit of 1 MB; not delivered`)
    if (delivery.target.signingSecrets.length === 0) return dead('the bot has no signing secret; not delivered')
    const botId = delivery.target.botId
    const began = performance.now()
    const result = await postWebhook({
      url,
      id: delivery.id,
      body: made.body,
      headers: made.headers,
      secrets: delivery.target.signingSecrets,
      now: clock(),
      timeoutMs,
      shutdown: shutdown.signal,
      hold: activity && { busy: () => activity.busy(botId), idle: () => activity.idle(botId) },
    })
    const took = `${Math.round(performance.now() - began)} ms`
    const what = `POST ${url} (${made.headers['x-bp-type']}, ${attemptName(delivery)})`
    if (result.kind === 'failed') return failed(delivery, { level: 'warn', message: `${what}: ${result.error}, after ${took}` })
    if (result.kind === 'answerTooLarge') return { lines: [{ level: 'info', message: `${what}: HTTP ${result.status} in ${took}` }] }
    if (result.status === 410) {
      const off = { level: 'warn', message: `delivery is off until the bot's url changes (${url} answered 410 Gone)` } as const
      return { lines: [{ level: 'warn', message: `${what}: HTTP 410 in ${took}` }, off], goneUrl: url }
    }
    if (result.status < 200 || result.status > 299) {
      const said = result.body ? `: ${result.body.slice(0, 500)}` : ''
      const asked = result.status === 429 || result.status === 503 ? retryAfterDelay(result.retryAfter, clock()) : undefined
      return failed(delivery, { level: 'warn', message: `${what}: HTTP ${result.status} in ${took}${said}` }, asked)
    }
    return { lines: [{ level: 'info', message: `${what}: HTTP ${result.status} in ${took}` }] }
  }

  async function callHandler(delivery: PendingDelivery, event: BotEvent, state: BotState): Promise<Settlement> {
    const { target } = delivery
    const handler = handlers[target.handler]
    if (!handler) return dead(`the bot has no url and no known handler "${target.handler}"; not delivered`)
    const ctx = botChatContext(store, delivery.integration, signals, runtime)
    const { message } = delivery
    let open = true
    const act = <T>(call: () => Promise<T>): Promise<T> =>
      open ? call() : Promise.reject(new HandlerTimeout('the handler ran past its time; its answer was dropped'))
    const what = `handler "${target.handler}" (${attemptName(delivery)})`
    const began = performance.now()
    const took = () => `${Math.round(performance.now() - began)} ms`
    let timer: NodeJS.Timeout | undefined
    let returned: unknown
    try {
      returned = await Promise.race([
        Promise.resolve().then(() =>
          handler({
            event,
            state,
            message: message && toBotMessage(message),
            reply: (payload, metadata) => act(() => replyAsBot(ctx, event, payload, metadata)).then(toBotMessage),
            emit: (payload) => act(() => emitAsBot(ctx, event, payload)).then(toBotCustomEvent),
            setState: (state) => act(() => setBotState(store, stateKey(delivery), state)),
            typing: (timeoutMs) => act(async () => botTyping(ctx, delivery.conversationId, true, timeoutMs)),
            stopTyping: () => act(async () => botTyping(ctx, delivery.conversationId, false)),
            updateMessage: (id, payload, metadata) =>
              act(() => updateMessage({ ctx, id, input: { payload, metadata } })).then(toBotMessage),
            log: log.child({ botId: target.botId, eventId: event.id }),
          }),
        ),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new HandlerTimeout(`bot handler timed out after ${timeoutMs} ms`)), timeoutMs)
        }),
      ])
    } catch (error) {
      log.error({ err: error, botId: target.botId, eventId: event.id, conversationId: event.conversationId }, 'bot handler failed')
      const reason = error instanceof Error ? error.message : String(error)
      return failed(delivery, { level: 'warn', message: `${what}: failed (${reason}) after ${took()}` })
    } finally {
      open = false
      clearTimeout(timer)
    }
    const done: LogLine = { level: 'info', message: `${what}: done in ${took()}` }
    // What the handler returns is its answer, as a webhook's 2xx body is; it reads back only `event.state`.
    return answered(delivery, event, done, () => checkBotAnswer(returned), ctx, { readsBack: false })
  }

  const runtime: BotRuntime = {
    wake,
    async idle() {
      for (;;) {
        if (polling) await polling
        if (looking.size > 0) await Promise.allSettled([...looking])
        if (underWay.size > 0) {
          await Promise.allSettled([...underWay.values()])
          continue
        }
        if (stopped || (await dueDeliveries(store, clock(), 1)).length === 0) return
        wake()
        await polling
      }
    },
    async stop() {
      stopped = true
      clearTimeout(timer)
      clearInterval(sweep)
      shutdown.abort()
      await polling
      await Promise.allSettled([...underWay.values()])
    },
  }
  if (store.shared && leaseMs <= timeoutMs) {
    log.warn({ leaseMs, timeoutMs }, 'the bot delivery lease is not longer than an attempt may take: another instance may start a delivery still under way here')
  }
  // Alone on its database, this instance learns of every delivery from its own writes; sharing it,
  // it also looks now and then for the deliveries of others (a lease run out, a dead instance's).
  const sweep = store.shared ? setInterval(wake, sweepMs) : undefined
  sweep?.unref()
  wake()
  return runtime
}
