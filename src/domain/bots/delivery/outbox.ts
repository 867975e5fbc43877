import type { BotEventRow, BotRow, ChatIntegrationRow, MessageRow } from '../../../db/schema.ts'
import type { After, DueDelivery, Queries, Store } from '../../../db/store.ts'
import { type BotEvent, incomingMessageEvent } from './event.ts'
import { recordBotLog } from '../admin/logs.ts'
import { signingSecretsOf } from '../admin/secrets.ts'
import type { ChatContext } from '../../context.ts'

/**
 * The bot_events row of an event. A message's event keeps no payload nor preview: they are the
 * message's (`messageId`), which is stored once (issue 49: each message was stored five times).
 */
export const botEventRow = (integrationId: string, event: BotEvent): BotEventRow => ({
  id: event.id,
  botId: event.botId,
  integrationId,
  conversationId: event.conversationId ?? '',
  userId: event.userId ?? '',
  messageId: event.messageId ?? null,
  type: event.type,
  direction: event.direction,
  payload: event.messageId === undefined ? event.payload : null,
  preview: event.messageId === undefined ? event.preview : null,
  createdAt: event.createdOn.toISOString(),
})

/** The event as the outbox keeps it: a message's without its payload and preview, read from the message when it is delivered (pendingOf). */
const outboxEvent = ({ payload, preview, ...event }: BotEvent): Record<string, unknown> => ({
  ...event,
  ...(event.messageId === undefined ? { payload, preview } : {}),
  createdOn: event.createdOn.toISOString(),
})

/**
 * Records an incoming event, and its delivery to the bot, in the unit of work of the user's write
 * that causes it: a message answered 200 is delivered even if the process dies right after. The
 * delivery's id (the `webhook-id`) is the event's id.
 */
export async function recordIncomingEvent(ctx: ChatContext, q: Queries, after: After, event: BotEvent): Promise<void> {
  await q.botEvents.insert(botEventRow(ctx.integration.id, event))
  await q.botDeliveries.insert({
    id: event.id,
    botId: event.botId,
    integrationId: ctx.integration.id,
    conversationId: event.conversationId ?? '',
    userId: event.userId ?? '',
    event: outboxEvent(event),
    messageId: event.messageId ?? null,
    attempts: 0,
    nextAttemptAt: event.createdOn.toISOString(),
    createdAt: event.createdOn.toISOString(),
  })
  after(() => ctx.bots.wake({ integrationId: ctx.integration.id, conversationId: event.conversationId ?? '' }))
}

/**
 * Records an incoming event the bot is not delivered, because a person handles its conversation
 * (docs/guides/handoff.md): its bot_events row (the bot may still read the message), and a line of
 * the bot's log saying it was skipped. Never a delivery: nothing fails, nothing is retried.
 */
export async function recordSkippedEvent(ctx: ChatContext, q: Queries, event: BotEvent, handledBy: string): Promise<void> {
  await q.botEvents.insert(botEventRow(ctx.integration.id, event))
  // A custom event's type is its payload's (the user's words): the line names it by its kind only.
  const skipped = event.messageId === undefined ? `custom event ${event.id}` : `message ${event.messageId}`
  await recordBotLog(q, {
    botId: event.botId,
    level: 'info',
    message: `skipped ${skipped}: the conversation is handled by a person (${handledBy}), not delivered to the bot`,
    conversationId: event.conversationId,
    userId: event.userId,
  })
}

/** Where a bot's deliveries go: its url (signed with every secret still valid), or its in-process handler. */
export interface BotTarget {
  botId: string
  /** The in-process handler's name, for a bot without url. */
  handler: string
  url: string | undefined
  /** How events are POSTed to `url`. */
  protocol: BotRow['protocol']
  signingSecrets: string[]
}

export const botTarget = (bot: BotRow, at: Date): BotTarget => ({
  botId: bot.id,
  handler: bot.handler,
  url: bot.url ?? undefined,
  protocol: bot.protocol,
  signingSecrets: signingSecretsOf(bot, at.toISOString()),
})

/** A delivery whose turn has come: the event (its state not read yet) and where it goes. */
export interface PendingDelivery {
  id: string
  /** Its place in the outbox: order within a conversation. */
  seq: number
  integrationId: string
  conversationId: string
  userId: string
  messageId: string | undefined
  /** Attempts made before this one. */
  attempts: number
  event: BotEvent
  target: BotTarget
  /** The chat integration the bot acts in. */
  integration: ChatIntegrationRow
  /** The message a `message` event is about, as it was when the delivery was taken (undefined once deleted). */
  message: MessageRow | undefined
  /** Another delivery of the conversation was queued behind it when it was taken (where the engine tells: DueDelivery.followed). */
  followed: boolean
  /** The message a `message` event is about was deleted before it was delivered: there is nothing to deliver. */
  gone: boolean
}

/**
 * A delivery's event: a message's is made again from the message, as it was when it was posted
 * (incomingMessageEvent), the same object field for field; another's is the one kept.
 */
function deliveredEvent(row: DueDelivery['delivery'], message: MessageRow | null): BotEvent {
  const kept = row.event as unknown as BotEvent & { createdOn: string }
  if (row.messageId !== null && message) return incomingMessageEvent(kept.botId, kept.id, message)
  return { ...kept, createdOn: new Date(kept.createdOn) }
}

const pendingOf = ({ delivery: row, bot, integration, message, followed }: DueDelivery, at: Date): PendingDelivery => ({
  id: row.id,
  seq: row.seq,
  integrationId: row.integrationId,
  conversationId: row.conversationId,
  userId: row.userId,
  messageId: row.messageId ?? undefined,
  attempts: row.attempts,
  event: deliveredEvent(row, message),
  target: botTarget(bot, at),
  integration,
  message: message ?? undefined,
  followed: followed === true,
  gone: row.messageId !== null && !message,
})

/** The deliveries due at `at`: the oldest of each conversation, of bots whose delivery is on. */
export const dueDeliveries = (store: Store, at: Date, limit: number): Promise<PendingDelivery[]> =>
  store.read(async (q) => (await q.botDeliveries.due(at.toISOString(), limit)).map((due) => pendingOf(due, at)))

/**
 * The deliveries due at `at`, taken by this instance until `leaseUntil` (see BotDeliveryQueries.claim):
 * with several instances on one database, each delivery is held by one of them at a time, and
 * one whose holder died is taken by another once the lease has run out.
 */
export const claimDeliveries = (store: Store, at: Date, limit: number, leaseUntil: Date): Promise<PendingDelivery[]> =>
  store.writeStatement(async (q) => (await q.botDeliveries.claim(at.toISOString(), limit, leaseUntil.toISOString())).map((due) => pendingOf(due, at)))

/**
 * Keeps claimed deliveries this instance's until `leaseUntil` while their batch goes on (a
 * `botpress` bot calling the bot API back holds an attempt open past any lease): how many of `ids`
 * this instance still held since `heldUntil` (see BotDeliveryQueries.renew); all where the engine
 * holds no leases.
 */
export const renewDeliveryLeases = (store: Store, ids: readonly string[], heldUntil: Date, leaseUntil: Date): Promise<number> =>
  store.writeStatement((q) => q.botDeliveries.renew(ids, heldUntil.toISOString(), leaseUntil.toISOString()))

/** Gives up this instance's lease (until `heldUntil`) of claimed deliveries it will not attempt (see BotDeliveryQueries.release). */
export const releaseDeliveryLeases = (store: Store, ids: readonly string[], heldUntil: Date): Promise<void> =>
  store.writeStatement((q) => q.botDeliveries.release(ids, heldUntil.toISOString()))

/** A conversation as the outbox names it, and the place in it a run starts after (0: its oldest). */
export interface RunStart {
  integrationId: string
  conversationId: string
  seq: number
}

/**
 * The run of at most `limit` deliveries after `start` in its conversation, each due at `at`, in
 * their order (see BotDeliveryQueries.claimFollowing): what a process that owns the database takes as
 * one batch, read in one seek. Its lease runs out as it is taken (as `claimDeliveries`' there):
 * nothing is leased where one process owns the database.
 */
export const followingDeliveries = async (store: Store, start: RunStart, at: Date, limit: number): Promise<PendingDelivery[]> => {
  const now = at.toISOString()
  const run = await store.read((q) => q.botDeliveries.claimFollowing(start.integrationId, start.conversationId, start.seq, now, now, limit))
  return run.map((due) => pendingOf(due, at))
}

/**
 * `followingDeliveries`, taken by this instance until `leaseUntil` (see BotDeliveryQueries.claimFollowing),
 * inside a unit (settleDeliveries': committed with it).
 */
export const claimFollowingIn = async (q: Queries, start: RunStart, at: Date, leaseUntil: Date, limit: number): Promise<PendingDelivery[]> => {
  const run = await q.botDeliveries.claimFollowing(start.integrationId, start.conversationId, start.seq, at.toISOString(), leaseUntil.toISOString(), limit)
  return run.map((due) => pendingOf(due, at))
}

/** `claimFollowingIn`, a unit of one statement. */
export const claimFollowing = (store: Store, start: RunStart, at: Date, leaseUntil: Date, limit: number): Promise<PendingDelivery[]> =>
  store.writeStatement((q) => claimFollowingIn(q, start, at, leaseUntil, limit))

/** When the next delivery comes due after `at`, if one does. */
export const nextDeliveryAfter = async (store: Store, at: Date): Promise<Date | undefined> => {
  const next = await store.read((q) => q.botDeliveries.nextDueAfter(at.toISOString()))
  return next === undefined ? undefined : new Date(next)
}

/** The outbox as an operator watches it: deliveries waiting, and how long the oldest has waited (seconds). */
export async function deliveryBacklog(store: Store, at: Date = new Date()): Promise<{ pending: number; oldestPendingSeconds: number }> {
  const { pending, oldestCreatedAt } = await store.read((q) => q.botDeliveries.backlog())
  const oldestPendingSeconds = oldestCreatedAt ? Math.max(0, (at.getTime() - Date.parse(oldestCreatedAt)) / 1000) : 0
  return { pending, oldestPendingSeconds }
}
