import { performance } from 'node:perf_hooks'
import type { Logger } from 'pino'
import type { Store } from '../../db/store.ts'
import { WriteConflict } from '../../db/write-conflict.ts'
import { answerApplier, type BotAnswer, checkBotAnswer } from '../../domain/bots/chat/answers.ts'
import type { PendingDelivery } from '../../domain/bots/delivery/outbox.ts'
import type { BotEvent } from '../../domain/bots/delivery/event.ts'
import { botChatContext } from '../../domain/bots/chat/as-bot.ts'
import type { BotInbox } from '../../domain/bots/delivery/inbox.ts'
import type { OutboundPolicy } from '../../domain/outbound-policy.ts'
import { type LogLine, type NextClaim, type Settled, type Settlement, settleDeliveries } from '../../domain/bots/delivery/settlement.ts'
import { type BotState, getBotState, type StateKey } from '../../domain/bots/chat/state.ts'
import type { ChatContext } from '../../domain/context.ts'
import { DomainError, isGone } from '../../domain/errors.ts'
import type { SignalPublisher } from '../../domain/signals.ts'
import { redactedUrl } from '../../domain/bots/redacted-url.ts'
import { tracing } from '../../tracing/tracing.ts'
import type { BotApiActivity } from '../bot-api-activity.ts'
import type { BotHandler } from '../handler.ts'
import { botpressPost } from '../protocols/botpress.ts'
import { callHandler } from '../protocols/in-process.ts'
import { webhookPost } from '../protocols/webhook.ts'
import type { EventPost } from '../protocols/protocol.ts'
import { retryAfterDelay, retryDelay } from './retry-schedule.ts'
import { deliveryBodyLimit, signedPost } from './signed-post.ts'

/** What an attempt needs besides its delivery. */
export interface AttemptDeps {
  store: Store
  log: Logger
  signals: SignalPublisher
  handlers: Record<string, BotHandler>
  /** The delivery worker, which a bot's chat context wakes when the bot writes. */
  inbox: BotInbox
  /** How long one attempt may take (the POST exchange, or the in-process handler). */
  timeoutMs: number
  retrySchedule: readonly number[]
  clock: () => Date
  random: () => number
  activity?: BotApiActivity
  /** Aborted when the process stops: a POST under way is abandoned (signed-post.ts, AttemptAbandoned). */
  shutdown: AbortSignal
  /** Where bots' urls may point: checked where the POST connects (outbound-request.ts). */
  outbound?: OutboundPolicy
}

export const stateKey = (delivery: PendingDelivery): StateKey => ({
  botId: delivery.target.botId,
  conversationId: delivery.conversationId,
  userId: delivery.userId,
})

const attemptName = (deps: AttemptDeps, delivery: PendingDelivery) => `attempt ${delivery.attempts + 1} of ${deps.retrySchedule.length}`

/** The line of a delivery whose message, author or conversation was deleted before it went out: an expected outcome. */
const gone: LogLine = { level: 'info', message: 'what the event was about is gone; not delivered' }

const dead = (message: string): Settlement => ({ lines: [{ level: 'error', message }] })

/** What one attempt may be asked besides its delivery. */
export interface AttemptOptions {
  /** Awaited before each call an in-process handler makes of its API (see HandlerCall.beforeActing). */
  beforeActing?: () => Promise<void>
}

/**
 * One attempt of a delivery, by the bot's protocol: a signed POST to its url (`webhook` or
 * `botpress`), or its in-process handler when it has none. Its outcome is what the settlement
 * records: the bot's answer, a retry on the schedule, or a dead or gone delivery.
 */
export function attemptDelivery(deps: AttemptDeps, delivery: PendingDelivery, options: AttemptOptions = {}): Promise<Settlement> {
  const traces = tracing()
  if (!traces) return attempt(deps, delivery, options)
  const { protocol, url } = delivery.target
  const attributes = {
    'confab.bot.protocol': url ? (protocol ?? 'webhook') : 'in-process',
    'confab.delivery.attempt': delivery.attempts + 1,
    'confab.event.type': delivery.event.type,
  }
  // A trace of its own: an attempt runs for no request (a retry, from a timer), whichever request woke the worker.
  return traces.inSpan('bot delivery', { kind: 'client', root: true, attributes }, async (span) => {
    const settlement = await attempt(deps, delivery, options)
    const failed = settlement.retryAt !== undefined || settlement.lines.some((line) => line.level === 'error')
    if (failed) traces.fail(span, settlement.lines.at(-1)?.message ?? 'not delivered')
    return settlement
  })
}

async function attempt(deps: AttemptDeps, delivery: PendingDelivery, options: AttemptOptions): Promise<Settlement> {
  if (delivery.gone) return { lines: [gone] }
  const state = await getBotState(deps.store, stateKey(delivery))
  const event: BotEvent = { ...delivery.event, state: { ...state } }
  const { url, protocol } = delivery.target
  if (!url) return attemptHandler(deps, delivery, event, state, options)
  const post = protocol === 'botpress' ? await botpressPost(deps.store, delivery) : webhookPost(event)
  if (!post) return { lines: [gone] }
  return attemptPost(deps, delivery, event, url, post)
}

/** Sends the protocol's POST and classifies its outcome, the same way for every protocol. */
async function attemptPost(deps: AttemptDeps, delivery: PendingDelivery, event: BotEvent, url: string, post: EventPost): Promise<Settlement> {
  const size = Buffer.byteLength(post.body)
  if (size > deliveryBodyLimit) return dead(`event body of ${size} bytes exceeds the Runtime limit of 1 MB; not delivered`)
  if (delivery.target.signingSecrets.length === 0) return dead('the bot has no signing secret; not delivered')
  const { activity, clock } = deps
  const botId = delivery.target.botId
  const began = performance.now()
  const result = await signedPost({
    url,
    id: delivery.id,
    body: post.body,
    // The attempt's trace goes on in the bot, when traces are on (W3C traceparent).
    headers: { ...post.headers, ...tracing()?.contextHeaders() },
    secrets: delivery.target.signingSecrets,
    now: clock(),
    timeoutMs: deps.timeoutMs,
    shutdown: deps.shutdown,
    outbound: deps.outbound,
    hold: post.waitsForBotApiCalls && activity ? { busy: () => activity.busy(botId), idle: () => activity.idle(botId) } : undefined,
  })
  const took = `${Math.round(performance.now() - began)} ms`
  // Never the url's credentials: a bot log line is read by anyone with the admin token (getBotLogs).
  const what = `POST ${redactedUrl(url)} (${post.about ? `${post.about}, ` : ''}${attemptName(deps, delivery)})`
  if (result.kind === 'failed') return failed(deps, delivery, { level: 'warn', message: `${what}: ${result.error}, after ${took}` })
  const line = (level: LogLine['level'], said = '') => ({ level, message: `${what}: HTTP ${result.status} in ${took}${said}` })
  if (result.kind === 'answerTooLarge') {
    if (!post.readAnswer) return { lines: [line('info')] }
    return { lines: [line('info'), { level: 'warn', message: 'answer of more than 1 MB (the Runtime limit) refused' }] }
  }
  if (result.status === 410) {
    const off = { level: 'warn', message: `delivery is off until the bot's url changes (${redactedUrl(url)} answered 410 Gone)` } as const
    return { lines: [line('warn'), off], goneUrl: url }
  }
  if (result.status < 200 || result.status > 299) {
    const said = post.quotesRefusal && result.body ? `: ${result.body.slice(0, 500)}` : ''
    const asked = result.status === 429 || result.status === 503 ? retryAfterDelay(result.retryAfter, clock()) : undefined
    return failed(deps, delivery, line('warn', said), asked)
  }
  const { readAnswer } = post
  if (!readAnswer) return { lines: [line('info')] }
  const ctx = botChatContext(deps.store, delivery.integration, deps.signals, deps.inbox)
  // The bot may read its answer back through the chat API as it takes the next event.
  return answered(delivery, event, line('info'), () => readAnswer(result.contentType, result.body), ctx, { readsBack: true })
}

/** Calls the bot's in-process handler; what it returns is its answer, as a webhook's 2xx body is. */
async function attemptHandler(
  deps: AttemptDeps,
  delivery: PendingDelivery,
  event: BotEvent,
  state: BotState,
  { beforeActing }: AttemptOptions,
): Promise<Settlement> {
  const name = delivery.target.handler
  const handler = deps.handlers[name]
  if (!handler) return dead(`the bot has no url and no known handler "${name}"; not delivered`)
  const ctx = botChatContext(deps.store, delivery.integration, deps.signals, deps.inbox)
  const what = `handler "${name}" (${attemptName(deps, delivery)})`
  const { store, log, timeoutMs } = deps
  const outcome = await callHandler({ handler, delivery, event, state, ctx, store, stateKey: stateKey(delivery), log, timeoutMs, beforeActing })
  if (outcome.kind === 'failed') {
    return failed(deps, delivery, { level: 'warn', message: `${what}: failed (${outcome.reason}) after ${outcome.took}` })
  }
  const done: LogLine = { level: 'info', message: `${what}: done in ${outcome.took}` }
  // It reads back only `event.state`: the next attempt need not wait for this answer's commit.
  return answered(delivery, event, done, () => checkBotAnswer(outcome.returned), ctx, { readsBack: false })
}

/** A failed attempt: retried on the schedule (or when the bot asked), else dead. */
function failed(deps: AttemptDeps, delivery: PendingDelivery, line: LogLine, retryAfterMs?: number): Settlement {
  const delay = retryDelay(deps.retrySchedule, delivery.attempts + 1, deps.random)
  if (delay === undefined) {
    const dead = `delivery ${delivery.id} is dead after ${delivery.attempts + 1} attempts; the event was not delivered`
    deps.log.warn({ deliveryId: delivery.id, botId: delivery.target.botId }, dead)
    return { lines: [line, { level: 'error', message: dead }] }
  }
  return { lines: [line], retryAt: new Date(deps.clock().getTime() + (retryAfterMs ?? delay)) }
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
 * Settles consecutive attempts of one conversation in one unit (settleDeliveries), the
 * conversation's next batch claimed with them (`next`). If an answer fails once applied, the unit
 * is rolled back and each attempt is settled on its own, the failing answer refused (settleAttempt).
 */
export async function settleAttempts(deps: AttemptDeps, attempts: readonly Settled[], next?: NextClaim): Promise<PendingDelivery[]> {
  const { store, signals, clock } = deps
  if (attempts.length > 1) {
    try {
      return await settleDeliveries(store, signals, attempts, clock(), next)
    } catch (error) {
      if (!isRefusal(error) || !attempts.some(({ settlement }) => settlement.answer)) throw error
    }
  }
  let following: PendingDelivery[] = []
  for (const [i, { delivery, settlement }] of attempts.entries())
    following = await settleAttempt(deps, delivery, settlement, i === attempts.length - 1 ? next : undefined)
  return following
}

/** An answer refused once applied: a conversation deleted on another instance meanwhile refuses it as the domain would. */
const isRefusal = (error: unknown) => error instanceof DomainError || error instanceof WriteConflict

/** Settles one attempt in a unit of its own; an answer that fails once applied is refused, and the attempt settled without it. */
async function settleAttempt(deps: AttemptDeps, delivery: PendingDelivery, settlement: Settlement, next?: NextClaim): Promise<PendingDelivery[]> {
  const { store, signals, clock } = deps
  const settled = { delivery, settlement }
  try {
    return await settleDeliveries(store, signals, [settled], clock(), next)
  } catch (error) {
    if (!settlement.answer || !isRefusal(error)) throw error
    // What the answer is about deleted meanwhile is an expected outcome (info), not the bot's fault.
    const refused = { level: isGone(error) ? 'info' : 'warn', message: `answer refused, nothing of it applied: ${(error as Error).message}` } as const
    const without = { ...settlement, answer: undefined, lines: [...settlement.lines, refused] }
    return settleDeliveries(store, signals, [{ delivery, settlement: without }], clock(), next)
  }
}
