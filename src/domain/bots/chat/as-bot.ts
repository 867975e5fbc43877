import type { ChatIntegrationRow, EventRow, MessageRow } from '../../../db/schema.ts'
import type { After, Queries, Store } from '../../../db/store.ts'
import type { ChatContext } from '../../context.ts'
import type { Poster } from '../../conversations.ts'
import { checkEvent, type CreateEventInput, postEvent } from '../../events.ts'
import { notFound } from '../../errors.ts'
import { newId } from '../../ids.ts'
import { type CheckedMessage, checkMessage, postMessage } from '../../messages.ts'
import { joinConversation } from '../../participants.ts'
import type { MessagePayload } from '../../payloads.ts'
import type { SignalPublisher } from '../../signals.ts'
import { botEventRow } from '../delivery/outbox.ts'
import { type BotEvent, customEventType, previewOf } from '../delivery/event.ts'
import type { BotInbox } from '../delivery/inbox.ts'

/*
 * The bot speaks in chat: as its own user of its chat integration, it posts messages and custom
 * events in answer to an incoming event, each recorded as its outgoing event.
 */

/** The chat context a bot acts in: its own user (id = the bot id) is the caller. */
export const botChatContext = (store: Store, integration: ChatIntegrationRow, signals: SignalPublisher, bots: BotInbox): ChatContext => ({
  store,
  integration,
  callerId: integration.botId,
  signals,
  bots,
  memo: {},
})

/**
 * The bot, once joinConversation has run in the unit: a participant (its insert either added it or
 * found it there; a conversation gone fails that insert), so its participation is not read again.
 */
const joinedBot = (ctx: ChatContext): Poster => ({ id: ctx.integration.botId, isBot: true })

/**
 * The conversations the bot has joined in a unit, by the unit's `after` (one per unit, on every
 * engine): an answer of several messages joins once. What
 * the first join establishes holds for the rest of its unit.
 */
const joinedInUnit = new WeakMap<After, Set<string>>()

/** Inside a unit: joinConversation of the bot, once per conversation and unit. */
async function joinAsBot(ctx: ChatContext, q: Queries, after: After, conversationId: string): Promise<void> {
  const joined = joinedInUnit.get(after) ?? new Set<string>()
  if (joined.has(conversationId)) return
  try {
    await joinConversation(ctx, q, after, conversationId, ctx.integration.botId)
  } catch (error) {
    // SQLite's foreign key names no table: the conversation, deleted while the bot was answering (an expected race).
    if ((error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw notFound('Conversation', conversationId)
    throw error
  }
  joined.add(conversationId)
  joinedInUnit.set(after, joined)
}

/** What the bot sent back for an incoming event, recorded as its outgoing event. */
const outgoing = (ctx: ChatContext, incoming: BotEvent, fields: Pick<BotEvent, 'type' | 'payload' | 'preview' | 'messageId'>) =>
  botEventRow(ctx.integration.id, { ...incoming, ...fields, id: newId(), direction: 'outgoing', createdOn: new Date() })

/**
 * Inside a unit: the bot answers an incoming event with a checked message: it joins the
 * conversation (the first time), posts, and its outgoing event is recorded.
 */
export async function postAsBot(ctx: ChatContext, q: Queries, after: After, incoming: BotEvent, message: CheckedMessage): Promise<MessageRow> {
  await joinAsBot(ctx, q, after, message.conversationId)
  const row = await postMessage(ctx, q, after, message, joinedBot(ctx))
  const preview = previewOf(message.payload as MessagePayload)
  await q.botEvents.insert(outgoing(ctx, incoming, { type: 'message', payload: message.payload, preview, messageId: row.id }))
  return row
}

/** Inside a unit: the bot answers an incoming event with a checked custom event, as postAsBot does. */
export async function emitInUnitAsBot(ctx: ChatContext, q: Queries, after: After, incoming: BotEvent, event: CreateEventInput): Promise<EventRow> {
  await joinAsBot(ctx, q, after, event.conversationId)
  const row = await postEvent(ctx, q, after, event, joinedBot(ctx))
  const { payload } = event
  const fields = { type: customEventType(payload), payload, preview: JSON.stringify(payload), messageId: undefined }
  await q.botEvents.insert(outgoing(ctx, incoming, fields))
  return row
}

/** The bot answers an incoming event with a message, in one unit of work (postAsBot). */
export function replyAsBot(ctx: ChatContext, incoming: BotEvent, payload: Record<string, unknown>, metadata?: Record<string, unknown>): Promise<MessageRow> {
  const message = checkMessage({ conversationId: incoming.conversationId ?? '', payload, metadata })
  return ctx.store.write((q, after) => postAsBot(ctx, q, after, incoming, message))
}

/** The bot answers an incoming event with a custom event, in one unit of work (emitInUnitAsBot). */
export function emitAsBot(ctx: ChatContext, incoming: BotEvent, payload: Record<string, unknown>): Promise<EventRow> {
  const event = checkEvent({ conversationId: incoming.conversationId ?? '', payload })
  return ctx.store.write((q, after) => emitInUnitAsBot(ctx, q, after, incoming, event))
}
