import type { ExecutionArgs } from 'graphql'
import type { Logger } from 'pino'
import { bearerToken } from './auth/admin-token.ts'
import type { BotHandler } from './bots/handler.ts'
import { type RateLimitRules, rateLimitDefaults } from './config.ts'
import { operationRefusal } from './graphql/rate-limits.ts'
import { onlyRule, RateLimits, type RateLimitStore } from './limits/rate-limits.ts'
import { builtInHandlers } from './bots/handlers.ts'
import { BotApiActivity } from './bots/bot-api-activity.ts'
import { startLeasedDeliveries } from './bots/delivery/leased.ts'
import { type IntegrationWebhookSender, startIntegrationWebhooks } from './bots/integration-webhooks.ts'
import { startOneProcessDeliveries } from './bots/delivery/one-process.ts'
import type { DeliveryObserver, DeliveryWorker } from './bots/delivery/worker.ts'
import { defaultLimits, type NonParticipantStatus, type ResourceLimits } from './config.ts'
import type { EngineStore } from './db/store.ts'
import { integrationsKeptWithVersions, integrationsOfTheEngine } from './domain/integration-cache.ts'
import { authenticateBot } from './domain/bots/admin/api-keys.ts'
import { type MessageStreamLimits, MessageStreams } from './domain/message-streams.ts'
import type { HandoffObserver } from './domain/agents.ts'
import type { OutboundPolicy } from './domain/outbound-policy.ts'
import { type Retention, type RetentionOptions, startRetention } from './domain/retention.ts'
import { createErrorPath } from './graphql/errors.ts'
import { SignalRenderings } from './graphql/shared-rendering.ts'
import { type ReplicaThread, replicaReads } from './graphql/replica-reads.ts'
import { createAdminYoga, createAgentYoga, createChatYoga, createBotApiYoga } from './graphql/yoga.ts'
import { restTransport } from './http/rest.ts'
import { SendQueues } from './http/send-queue.ts'
import { defaultSseTiming, type SseTiming, SseStreams } from './http/sse.ts'
import { restApis } from './openapi/apis.ts'
import { chatSignalBody } from './rest/chat/signal-body.ts'
import { createSignalHub, type SignalBus } from './signals/hub.ts'

export interface WiringOptions {
  store: EngineStore
  log: Logger
  /** Bot handlers by name (bots.handler); the built-in echo bot by default. */
  handlers?: Record<string, BotHandler>
  botTimeoutMs?: number
  /** Seconds before each delivery attempt (CONFAB_BOT_RETRY_SCHEDULE); the Standard Webhooks schedule by default. */
  botRetrySchedule?: readonly number[]
  /** The clock bot deliveries come due by (tests move it instead of waiting). */
  clock?: () => Date
  sseTiming?: SseTiming
  /** How signals reach the other instances (Redis, REDIS_URL); none: this instance's listeners only. */
  signalBus?: SignalBus
  /** How long a claimed bot delivery stays this instance's (several instances on PostgreSQL). */
  botLeaseMs?: number
  /** How often the delivery worker looks for due deliveries on a database several instances share; 2 s by default. */
  botSweepMs?: number
  /**
   * A read replica (http/read-replicas.ts): the same app over a store that only reads, serving the
   * reads the main thread hands it (graphql/replica-reads.ts), and handing back what it may not serve.
   * It runs no delivery worker: the main thread's delivers every event.
   */
  replica?: ReplicaThread
  /** Where bots' urls may point (BOT_URLS_PRIVATE, docs/guides/running-on-the-internet.md); link-local/metadata refused, private allowed, by default. */
  outbound?: OutboundPolicy
  /** Caps and timeouts (docs/reference/limits.md, config.caps); the defaults when absent. */
  caps?: ResourceLimits
  /** Told how each bot delivery attempt ended (metrics). */
  deliveryObserver?: DeliveryObserver
  /** Told how handoffs go: each one's wait for its first agent reply (metrics). */
  handoffObserver?: HandoffObserver
  /** Each rate limit's rule (RATE_LIMIT_*), the defaults when absent; 'off' (RATE_LIMITS=off): none. */
  rateLimits?: RateLimitRules | 'off'
  /** Where the rate limits count: Redis when given (every instance sharing it enforces one limit), else memory. */
  rateLimitStore?: RateLimitStore
  /**
   * RETENTION_DAYS and how retention runs (docs/guides/running-on-the-internet.md): old messages,
   * events, bot events and bot logs are pruned in the background. None (or `days: 0`): kept forever.
   */
  retention?: RetentionOptions
  /** NON_PARTICIPANT_STATUS (domain/non-participant.ts): 404 when absent. */
  nonParticipantStatus?: NonParticipantStatus
}

/** A replica's stand-in for the delivery worker: nothing it serves writes, so nothing ever comes due. */
const noDeliveryWorker: DeliveryWorker = { wake() {}, idle: async () => {}, stop: async () => {} }

/** A replica's stand-in for the integration webhooks' sender: it records no delivery. */
const noWebhookSender: IntegrationWebhookSender = { wake() {}, idle: async () => {}, stop: async () => {} }

/** Retention when it is off (no RETENTION_DAYS, or a replica, which writes nothing): a cycle deletes nothing. */
const noRetention: Retention = { runOnce: async () => ({ messages: 0, events: 0, botEvents: 0, botLogs: 0, files: 0 }), stop: async () => {} }

/**
 * The rate limits an app counts, none when they are off. The main thread counts every request but
 * a read with a user key before it hands that read to a replica (http/node-listener.ts): it cannot
 * tell the user without verifying the key. A replica counts those reads, `userReads`, in its own
 * memory (so each replica thread is a budget of its own), and nothing else.
 */
/** The bounds on bots' message streams among the caps (each its default when a partial set of caps leaves it out). */
function messageStreamLimitsOf(caps: Partial<ResourceLimits>): MessageStreamLimits {
  const cap = (name: keyof ResourceLimits) => caps[name] ?? defaultLimits[name]
  return {
    deltaMaxBytes: cap('messageStreamDeltaMaxBytes'),
    deltasPerSecond: cap('messageStreamDeltasPerSecond'),
    perConversation: cap('messageStreamsPerConversation'),
    perBot: cap('messageStreamsPerBot'),
    idleTimeoutMs: cap('messageStreamIdleTimeoutMs'),
  }
}

function rateLimitsOf(rules: RateLimitRules | 'off', store: RateLimitStore | undefined, replica: boolean): RateLimits | undefined {
  if (rules === 'off') return undefined
  if (!replica) return new RateLimits(rules, store)
  if (!rules.userReads) return undefined
  return new RateLimits(onlyRule(rules, 'userReads'))
}

/** The parts of the server and what each is made from; createApp mounts them. */
export function wire({
  store,
  log,
  handlers = builtInHandlers,
  botTimeoutMs,
  botRetrySchedule,
  clock,
  sseTiming = defaultSseTiming,
  signalBus,
  botLeaseMs,
  botSweepMs,
  replica,
  outbound,
  caps = defaultLimits,
  deliveryObserver,
  handoffObserver,
  rateLimits = rateLimitDefaults,
  rateLimitStore,
  retention: retentionOptions,
  nonParticipantStatus,
}: WiringOptions) {
  const errors = createErrorPath(log)
  const limits = rateLimitsOf(rateLimits, rateLimitStore, Boolean(replica))
  const messageStreams = new MessageStreams(messageStreamLimitsOf(caps))
  const signals = createSignalHub({
    bus: signalBus,
    caps: { perUser: caps.subscriptionsPerUser, perConversation: caps.subscriptionsPerConversation },
    observe: (integrationId, signal) => messageStreams.observe(integrationId, signal),
  })
  // Every live connection's, whatever its transport (http/send-queue.ts).
  const sendQueues = new SendQueues(caps.sendQueueBytes)
  const streams = new SseStreams(log, sseTiming, sendQueues)
  const activity = new BotApiActivity()
  // Its own connections (PostgreSQL): bots keep answering while requests fill the main pool.
  const background = replica ? store : store.background()
  const deliveries = {
    activity,
    store: background,
    log,
    signals,
    handlers,
    timeoutMs: botTimeoutMs,
    retrySchedule: botRetrySchedule,
    clock,
    outbound,
    observer: deliveryObserver,
  }
  // Chosen once, from what the engine declares: alone on its database, or leasing what it claims.
  const bots = replica
    ? noDeliveryWorker
    : store.shared
      ? startLeasedDeliveries({ ...deliveries, leaseMs: botLeaseMs, sweepMs: botSweepMs })
      : startOneProcessDeliveries(deliveries)
  // Integration webhooks (their outbox: domain/integration-webhooks.ts) go out from the main thread, on the bots' schedule and policy.
  const webhooks = replica
    ? undefined
    : startIntegrationWebhooks({
        store: background,
        log,
        render: chatSignalBody,
        retrySchedule: botRetrySchedule,
        timeoutMs: botTimeoutMs,
        clock,
        outbound,
        leaseMs: botLeaseMs,
        sweepMs: botSweepMs,
      })
  // Every unit that records a webhook delivery wakes the sender through the bots' inbox its context carries.
  if (webhooks) bots.wakeWebhooks = () => webhooks.wake()
  // Retention runs on the main thread even with RETENTION_DAYS unset: the signal log is pruned by it.
  const retention = replica
    ? noRetention
    : startRetention(background, {
        days: 0,
        ...retentionOptions,
        onError: retentionOptions?.onError ?? ((error) => log.error({ err: error }, 'retention: a prune cycle failed; the next one tries again')),
      })
  const chatLimits = { messageMaxBytes: caps.messageMaxBytes, storagePerUser: caps.storagePerUser, messageStoragePerUser: caps.messageStoragePerUser }
  // Every subscription's events rendered once per shape, whatever the transport (REST streams included).
  const renderings = new SignalRenderings()
  // Said once, here, from what the engine declares: nothing below asks the store what it is.
  const integrations = store.shared ? integrationsKeptWithVersions : integrationsOfTheEngine
  const deps = {
    store,
    integrations,
    log,
    signals,
    bots,
    errors,
    chatLimits,
    nonParticipantStatus,
    limits,
    replica,
    renderings,
    streams: messageStreams,
    handoffObserver,
  }
  // Only the chat API's answers are capped: strangers reach it; the administration and bot APIs are the operator's.
  const chatYoga = createChatYoga({ ...deps, answerMaxBytes: caps.responseMaxBytes })
  const adminYoga = createAdminYoga(deps)
  const botApiYoga = createBotApiYoga(deps)
  const agentYoga = createAgentYoga(deps)
  const rest = { streams, log, renderings, admitStream: limits && ((args: ExecutionArgs) => operationRefusal(limits, args)) }
  const botApiRest = restTransport({
    ...rest,
    ...restApis.botApi,
    yoga: botApiYoga,
  })
  return {
    store,
    limits,
    caps,
    signalBus,
    errors,
    signals,
    streams,
    sendQueues,
    renderings,
    bots,
    webhooks: webhooks ?? noWebhookSender,
    retention,
    chatYoga,
    adminYoga,
    chatRest: restTransport({ ...rest, ...restApis.chat, yoga: chatYoga, reads: replicaReads.chat, answerMaxBytes: caps.responseMaxBytes }),
    adminRest: restTransport({ ...rest, ...restApis.admin, yoga: adminYoga, reads: replicaReads.admin }),
    agentYoga,
    agentRest: restTransport({ ...rest, ...restApis.agent, yoga: agentYoga }),
    // A bot's calls are counted while under way, its delivery's timeout waiting for them: only the
    // calls its key opens, so that nobody else can hold a bot's timeout off by naming its id.
    botApiRest: {
      ...botApiRest,
      serve: async (request: Request, landing: Parameters<typeof botApiRest.serve>[1]) => {
        const botId = request.headers.get('x-bot-id') ?? undefined
        const key = bearerToken(request.headers.get('authorization') ?? undefined)
        const holder = await authenticateBot(store, key, botId).catch(() => undefined)
        return holder ? activity.during(holder.bot.id, () => botApiRest.serve(request, landing)) : botApiRest.serve(request, landing)
      },
    },
  }
}

export type Wiring = ReturnType<typeof wire>
