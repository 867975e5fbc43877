import type { Logger } from 'pino'
import type { Store } from '../db/store.ts'
import { recordBotLog } from '../domain/bots/admin/logs.ts'
import { redactedUrl } from '../domain/bots/redacted-url.ts'
import {
  claimWebhookDeliveries,
  nextWebhookDue,
  removeWebhookDelivery,
  rescheduleWebhookDelivery,
  type WebhookDelivery,
} from '../domain/integration-webhooks.ts'
import type { OutboundPolicy } from '../domain/outbound-policy.ts'
import type { ConversationSignal } from '../domain/signals.ts'
import { retryAfterDelay, retryDelay, standardRetrySchedule } from './delivery/retry-schedule.ts'
import { AttemptAbandoned, deliveryBodyLimit, signedPost } from './delivery/signed-post.ts'

/** The Chat API body of a signal (`{type, data}`), as its listeners get it: made by the REST layer (src/rest/chat/listen.ts), handed in by wiring. */
export type SignalRenderer = (signal: ConversationSignal) => Promise<unknown>

export interface IntegrationWebhookOptions {
  store: Store
  log: Logger
  render: SignalRenderer
  /** Seconds before each attempt: the bots' schedule (CONFAB_BOT_RETRY_SCHEDULE), the Standard Webhooks one by default. */
  retrySchedule?: readonly number[]
  /** How long one POST may take, answer included. */
  timeoutMs?: number
  clock?: () => Date
  random?: () => number
  /** Where a webhook url may point: the bots' outbound policy (BOT_URLS_PRIVATE), checked at every connection. */
  outbound?: OutboundPolicy
  /** How long a claimed delivery stays this instance's; past it another instance may take it (its holder died). */
  leaseMs?: number
  /** How often the outbox is looked at when nothing woke the sender (what other instances recorded). */
  sweepMs?: number
}

export interface IntegrationWebhookSender {
  /** A delivery was recorded (its unit committed): look now. */
  wake(): void
  /** Resolves once nothing is under way and nothing is due. */
  idle(): Promise<void>
  /** Starts nothing more and abandons the POSTs under way (they stay due, for the next start). */
  stop(): Promise<void>
}

/** Heads taken at once: each is another integration's, so they go in parallel without breaking any integration's order. */
const batchSize = 16

/**
 * The sender of integration webhooks: takes each integration's oldest delivery as it comes due and
 * POSTs its signal, in the Chat API's shape, to the integration's webhookUrl, with `x-secret-key`
 * when a secret is set and the Standard Webhooks headers signed with the bot's secrets. A 2xx ends
 * it; anything else (or no answer) is tried again on the retry schedule (a Retry-After honoured),
 * the integration's later deliveries waiting behind it, and given up once the schedule is spent:
 * each failure is a line of the bot's log (the url's credentials and the secret never in it).
 */
export function startIntegrationWebhooks(options: IntegrationWebhookOptions): IntegrationWebhookSender {
  const { store, log, render } = options
  const clock = options.clock ?? (() => new Date())
  const random = options.random ?? Math.random
  const schedule = options.retrySchedule ?? standardRetrySchedule
  const timeoutMs = options.timeoutMs ?? 10_000
  const leaseMs = options.leaseMs ?? Math.max(60_000, timeoutMs * 3)
  const sweepMs = options.sweepMs ?? 2_000
  const shutdown = new AbortController()
  let looking: Promise<void> | undefined
  let again = false
  let timer: NodeJS.Timeout | undefined
  let idleWaiters: (() => void)[] = []

  const attempt = async (delivery: WebhookDelivery): Promise<void> => {
    const { row, url } = delivery
    // The webhook was removed since it was recorded: there is nowhere to send it.
    if (url === undefined) return void (await removeWebhookDelivery(store, row.id))
    const at = clock()
    const body = JSON.stringify(await render(delivery.signal))
    // Never sent: another attempt would be no smaller (a message is at most MESSAGE_MAX_BYTES, below it by default).
    const tooLarge = Buffer.byteLength(body) > deliveryBodyLimit
    const outcome = tooLarge
      ? ({ kind: 'failed', error: `its body is over ${deliveryBodyLimit} bytes, never sent` } as const)
      : await signedPost({
          url,
          id: row.id,
          body,
          secrets: delivery.signingSecrets,
          now: at,
          timeoutMs,
          shutdown: shutdown.signal,
          headers: delivery.secret === undefined ? {} : { 'x-secret-key': delivery.secret },
          outbound: options.outbound,
        })
    if (outcome.kind !== 'failed' && outcome.status >= 200 && outcome.status <= 299) return void (await removeWebhookDelivery(store, row.id))
    const attempts = row.attempts + 1
    const why =
      outcome.kind === 'failed' ? outcome.error : `answered ${outcome.status}${outcome.kind === 'answered' && outcome.body ? `: ${outcome.body}` : ''}`
    const delay = tooLarge
      ? undefined
      : ((outcome.kind === 'answered' ? retryAfterDelay(outcome.retryAfter, at) : undefined) ?? retryDelay(schedule, attempts, random))
    const what = `integration webhook ${row.id} (${delivery.signal.type}) to ${redactedUrl(url)}: attempt ${attempts} failed, ${why}`
    await store.write(async (q) => {
      await recordBotLog(q, {
        botId: delivery.botId,
        level: delay === undefined ? 'error' : 'warn',
        message: delay === undefined ? `${what}; given up` : `${what}; tried again in ${Math.round(delay / 1000)} s`,
        conversationId: delivery.signal.conversationId,
      })
      if (delay === undefined) await q.integrationWebhooks.remove(row.id)
      else await q.integrationWebhooks.reschedule(row.id, attempts, new Date(at.getTime() + delay).toISOString())
    })
  }

  const settleQuietly = (delivery: WebhookDelivery) =>
    attempt(delivery).catch(async (error: unknown) => {
      // The process is stopping: the delivery is nobody's again, due at once for the next start (or another instance).
      if (error instanceof AttemptAbandoned) {
        await rescheduleWebhookDelivery(store, delivery.row.id, delivery.row.attempts, clock()).catch(() => undefined)
        return
      }
      // Its lease runs out and it is tried again: a failure of the database, or of the rendering.
      log.error({ err: error, delivery: delivery.row.id }, 'integration webhooks: an attempt could not be made or settled')
    })

  const look = async (): Promise<void> => {
    do {
      again = false
      const at = clock()
      const due = await claimWebhookDeliveries(store, at, batchSize, new Date(at.getTime() + leaseMs))
      await Promise.all(due.map(settleQuietly))
      if (due.length === batchSize) again = true
    } while (again && !shutdown.signal.aborted)
  }

  const planNext = async () => {
    if (shutdown.signal.aborted) return
    const next = await nextWebhookDue(store).catch(() => undefined)
    const wait = next === undefined ? sweepMs : Math.min(sweepMs, Math.max(0, next.getTime() - clock().getTime()))
    if (next === undefined || wait > 0) for (const waiter of idleWaiters.splice(0)) waiter()
    clearTimeout(timer)
    timer = setTimeout(wake, wait)
    timer.unref()
  }

  function wake() {
    if (shutdown.signal.aborted) return
    if (looking) {
      again = true
      return
    }
    looking = look()
      .catch((error: unknown) => log.error({ err: error }, 'integration webhooks: the outbox could not be read; looking again soon'))
      .then(planNext)
      .finally(() => {
        looking = undefined
        if (again) wake()
      })
  }

  wake()
  return {
    wake,
    idle: () =>
      new Promise<void>((resolve) => {
        idleWaiters.push(resolve)
        wake()
      }),
    stop: async () => {
      shutdown.abort()
      clearTimeout(timer)
      await looking
      for (const waiter of idleWaiters.splice(0)) waiter()
      idleWaiters = []
    },
  }
}
