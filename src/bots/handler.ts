import type { Logger } from 'pino'
import type { BotAnswer } from '../domain/bots/chat/answers.ts'
import type { BotEvent } from '../domain/bots/delivery/event.ts'
import type { BotState } from '../domain/bots/chat/state.ts'
import type { MessagePayload } from '../domain/payloads.ts'

/** A message as bot code reads it: the Chat API's message object (metadata only when it has some). */
export interface BotMessage {
  id: string
  conversationId: string
  userId: string
  createdAt: string
  payload: MessagePayload
  metadata?: Record<string, unknown>
}

/** A custom event as bot code reads it: the Chat API's event object. */
export interface BotCustomEvent {
  id: string
  conversationId: string
  userId: string
  createdAt: string
  payload: Record<string, unknown>
}

/** What a bot handler gets for one incoming event, and how it answers. */
export interface BotContext {
  /** The spec's event object. */
  event: BotEvent
  /** `event.state`, typed: what the bot stored for this conversation, this user and itself (`{}` each until set). */
  state: BotState
  /** The incoming message itself, for a `message` event (its metadata is not part of the event). */
  message?: BotMessage
  /** Posts a message in the event's conversation as the bot. */
  reply(payload: Record<string, unknown>, metadata?: Record<string, unknown>): Promise<BotMessage>
  /** Creates a custom event in the event's conversation as the bot. */
  emit(payload: Record<string, unknown>): Promise<BotCustomEvent>
  /** Shows the web chat's typing indicator for `timeoutMs` (5,000 by default), until the bot replies or stops. */
  typing(timeoutMs?: number): Promise<void>
  stopTyping(): Promise<void>
  /** Replaces the payload (and metadata) of one of the bot's own messages; listeners get message_updated. */
  updateMessage(id: string, payload: Record<string, unknown>, metadata?: Record<string, unknown>): Promise<BotMessage>
  /** Stores the bot's state (`event.state` of later events): each part given replaces the stored one. */
  setState(state: Partial<BotState>): Promise<void>
  log: Logger
}

export type { BotAnswer }

/**
 * A bot's in-process code for one incoming event. Its calls (`reply`, `emit`, `setState`…) take
 * effect at once. It may also return an answer, the one a webhook bot gives in its 2xx body
 * (`{messages?, events?, state?}`): applied in the transaction that closes the delivery, all of it
 * or nothing (a bad payload refuses the whole answer, logged), and never repeated by a retry. An
 * answer costs no commit of its own, and a conversation's next event need not wait for it.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler may return nothing (its return type is void then)
export type BotHandler = (context: BotContext) => Promise<BotAnswer | void> | BotAnswer | void

interface StoredMessage extends Omit<BotMessage, 'payload' | 'metadata'> {
  payload: Record<string, unknown>
  metadata: Record<string, unknown> | null
}

/** A stored message as bot code reads it (no storage columns, no null metadata). */
export const toBotMessage = ({ id, conversationId, userId, createdAt, payload, metadata }: StoredMessage): BotMessage => ({
  id,
  conversationId,
  userId,
  createdAt,
  payload: payload as MessagePayload,
  ...(metadata ? { metadata } : {}),
})

/** A stored custom event as bot code reads it. */
export const toBotCustomEvent = ({ id, conversationId, userId, createdAt, payload }: BotCustomEvent): BotCustomEvent => ({
  id,
  conversationId,
  userId,
  createdAt,
  payload,
})
