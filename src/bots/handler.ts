import type { Logger } from 'pino'
import type { EventRow, MessageRow } from '../db/schema.ts'
import type { BotEvent } from '../domain/bot-event.ts'
import type { BotState } from '../domain/bot-state.ts'

/** What a bot handler gets for one incoming event, and how it answers. */
export interface BotContext {
  event: BotEvent
  /** The incoming message itself, for a `message` event (its metadata is not part of the event). */
  message?: Pick<MessageRow, 'id' | 'payload' | 'metadata'>
  /** Posts a message in the event's conversation as the bot. */
  reply(payload: Record<string, unknown>, metadata?: Record<string, unknown>): Promise<MessageRow>
  /** Creates a custom event in the event's conversation as the bot. */
  emit(payload: Record<string, unknown>): Promise<EventRow>
  /** Stores the bot's state (`event.state` of later events): each part given replaces the stored one. */
  setState(state: Partial<BotState>): Promise<void>
  log: Logger
}

export type BotHandler = (context: BotContext) => Promise<void> | void
