import type { ConversationRow, MessageRow } from '../db/schema.ts'
import type { After, Queries } from '../db/store.ts'
import { incomingMessageEvent } from './bots/delivery/event.ts'
import { recordIncomingEvent, recordSkippedEvent } from './bots/delivery/outbox.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { type Poster, requireParticipation } from './conversations.ts'
import { DomainError, forbidden, hiddenAs, notFound } from './errors.ts'
import { isAgentUserId } from './agent-users.ts'
import { botAnswers } from './handoff.ts'
import { newId } from './ids.ts'
import { tell } from './integration-webhooks.ts'
import { loadMessagesPage, loadParticipation } from './loaders.ts'
import type { Cursored, PageWindow } from './paging.ts'
import { assertJsonDepth, parseMessagePayload } from './payloads.ts'
import { checkStorageQuota, storedMessageBytes } from './storage-quota.ts'
import { requireCallerId } from './users.ts'

export interface CreateMessageInput {
  conversationId: string
  payload: unknown
  metadata?: Record<string, unknown> | null
}

/** A message whose payload and metadata passed their checks, ready to be posted. */
export interface CheckedMessage {
  conversationId: string
  payload: Record<string, unknown>
  metadata: Record<string, unknown> | null
  /** The id it is posted under, when its poster chose it (the bot API's getOrCreateMessage); else a new one. */
  id?: string
}

/** The payload is checked against its kind and kept exactly as given (400 otherwise). */
export function checkMessage(input: CreateMessageInput): CheckedMessage {
  const payload = parseMessagePayload(input.payload)
  if (input.metadata != null) assertJsonDepth(input.metadata, 'metadata')
  return { conversationId: input.conversationId, payload, metadata: input.metadata ?? null }
}

/**
 * A user message over the cap is refused before anything is written: the request body may be 1 MB,
 * but a message is read back by every listener and delivered to the bot (Botpress: 128 KB). Posted
 * or updated alike.
 */
export function checkMessageSize({ payload, metadata }: Pick<CheckedMessage, 'payload' | 'metadata'>, cap: number): void {
  if (cap === 0) return
  const size = Buffer.byteLength(JSON.stringify({ payload, metadata }))
  if (size > cap) {
    throw new DomainError('PayloadTooLarge', `the message is ${size} bytes as JSON (payload and metadata), over the limit of ${cap} bytes (MESSAGE_MAX_BYTES)`)
  }
}

/**
 * Inside a unit: posts a message as the caller, who must participate (`poster`: known to, as the bot
 * the unit has just joined). A user's message is recorded for the bot in the same unit; listeners
 * and the bot hear of it once it committed.
 */
export async function postMessage(
  ctx: ChatContext,
  q: Queries,
  after: After,
  message: CheckedMessage,
  poster?: Poster,
  /** Who handles the conversation, when the caller read it already (else read here for a user's message). */
  handled?: Pick<ConversationRow, 'handledBy'>,
): Promise<MessageRow> {
  const known = poster ? { caller: poster, conversation: handled } : await requireParticipation(ctx, q, message.conversationId)
  const caller = known.caller
  // An agent's message is not the bot's to answer; a user's goes to the bot unless a person handles the conversation.
  const forBot = !caller.isBot && !isAgentUserId(caller.id)
  const handledBy = forBot ? (known.conversation ?? (await requireParticipation(ctx, q, message.conversationId)).conversation).handledBy : 'bot'
  const skipped = forBot && !botAnswers(handledBy)
  const row: MessageRow = {
    integrationId: ctx.integration.id,
    id: message.id ?? newId(),
    conversationId: message.conversationId,
    userId: caller.id,
    payload: message.payload,
    metadata: message.metadata,
    feedback: null,
    createdAt: now(),
  }
  await q.messages.insert(row)
  // A user's message is in its bot's hands (the outbox) once committed: the web chat learns it
  // before the message itself, as it only marks its optimistic copy while that has its local id.
  if (forBot) {
    after(() =>
      ctx.signals.publish(ctx.integration.id, {
        type: 'message_status_changed',
        conversationId: row.conversationId,
        message: row,
        oldStatus: 'pending',
        // A message a person will read is not the bot's to process: it is done with as far as the bot goes.
        newStatus: skipped ? 'processed' : 'processing',
      }),
    )
  }
  // The bot's final message of a stream completes it, just before it is created, as Botpress' chat
  // integration signals it (bot-message-signals.ts): a listener swaps its growing bubble for it.
  const streamId = caller.isBot ? row.metadata?.streamId : undefined
  if (typeof streamId === 'string') {
    await tell(ctx, q, after, { type: 'message_stream_complete', conversationId: row.conversationId, streamId, message: row })
  }
  await tell(ctx, q, after, { type: 'message_created', conversationId: row.conversationId, message: row, isBot: caller.isBot })
  if (skipped) await recordSkippedEvent(ctx, q, incomingMessageEvent(ctx.integration.botId, newId(), row), handledBy)
  else if (forBot) await recordIncomingEvent(ctx, q, after, incomingMessageEvent(ctx.integration.botId, newId(), row))
  return row
}

/** Only participants post, within their storage quota. */
export async function createMessage({ ctx, input }: { ctx: ChatContext; input: CreateMessageInput }): Promise<MessageRow> {
  const message = checkMessage(input)
  checkMessageSize(message, ctx.limits?.messageMaxBytes ?? 0)
  return ctx.store.write(async (q, after) => {
    // Before the reads: a caller without a key throws here, not beside a read left to reject unheard.
    const callerId = requireCallerId(ctx)
    // Read together (PostgreSQL pipelines them: one round trip, not two).
    const [{ caller, conversation }] = await Promise.all([
      requireParticipation(ctx, q, message.conversationId),
      checkStorageQuota(ctx, q, callerId, storedMessageBytes(message)),
    ])
    return postMessage(ctx, q, after, message, caller, conversation)
  })
}

export async function findMessage(ctx: ChatContext, q: Queries, id: string): Promise<MessageRow> {
  const row = await q.messages.find(ctx.integration.id, id)
  if (!row) throw notFound('Message', id)
  return row
}

/** A message is visible to the participants of its conversation. */
export async function getMessage({ ctx, id }: { ctx: ChatContext; id: string }): Promise<MessageRow> {
  const row = await ctx.store.read((q) => findMessage(ctx, q, id))
  await loadParticipation(ctx, row.conversationId).catch(hiddenAs('Message', id))
  return row
}

/** Only the author deletes a message. */
export function deleteMessage({ ctx, id }: { ctx: ChatContext; id: string }): Promise<void> {
  return ctx.store.write(async (q, after) => {
    const row = await findMessage(ctx, q, id)
    const { caller } = await requireParticipation(ctx, q, row.conversationId).catch(hiddenAs('Message', id))
    if (row.userId !== caller.id) throw forbidden(`only the author of message "${id}" may delete it`)
    await q.messages.delete(ctx.integration.id, id)
    await q.erasure.messageTraces(ctx.integration.id, row.conversationId, id)
    await tell(ctx, q, after, { type: 'message_deleted', conversationId: row.conversationId, message: row })
  })
}

/** The page of one message a conversation's last message is read as: one key for all, so one statement per list page. */
const lastMessageWindow: PageWindow = { limit: 1, inverted: false }

/**
 * A conversation's newest message, or null when it has none (the history panel of the official web
 * chat lists only conversations that have one). Batched: the conversations of a list page cost one
 * statement together, whatever their number.
 */
export async function lastMessage({ ctx, conversationId }: { ctx: ChatContext; conversationId: string }): Promise<MessageRow | null> {
  const [newest] = await loadMessagesPage(ctx, conversationId, lastMessageWindow)
  return newest ?? null
}

/** A conversation's messages, newest first: the first page is what a chat view shows (batched per request). */
export function listMessages({
  ctx,
  conversationId,
  window,
}: {
  ctx: ChatContext
  conversationId: string
  window: PageWindow
}): Promise<Cursored<MessageRow>[]> {
  return loadMessagesPage(ctx, conversationId, window)
}
