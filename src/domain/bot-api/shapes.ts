import type { ConversationRow, EventRow, MessageRow, UserRow } from '../../db/schema.ts'
import { customEventType } from '../bots/delivery/event.ts'
import type { Json } from './inputs.ts'

/* The shapes of the bot API's answers: what @botpress/client reads. */

export const botApiConversation = (row: ConversationRow): Json => ({
  id: row.id,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  channel: 'channel',
  integration: 'chat',
  tags: {},
})

export const botApiUser = (row: UserRow): Json => ({
  id: row.id,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  tags: {},
  ...(row.name !== null ? { name: row.name } : {}),
  ...(row.pictureUrl !== null ? { pictureUrl: row.pictureUrl } : {}),
})

/** The Chat API payload `{type, ...fields}` as the SDK reads it: `type` beside `payload`. */
export function botApiMessage(row: MessageRow, botId: string): Json {
  const { type, ...payload } = row.payload
  return {
    id: row.id,
    createdAt: row.createdAt,
    updatedAt: row.createdAt,
    type,
    payload,
    direction: row.userId === botId ? 'outgoing' : 'incoming',
    userId: row.userId,
    conversationId: row.conversationId,
    tags: {},
  }
}

export const botApiEvent = (row: EventRow, status = 'processed'): Json => ({
  id: row.id,
  createdAt: row.createdAt,
  type: customEventType(row.payload),
  payload: row.payload,
  conversationId: row.conversationId,
  userId: row.userId,
  messageId: null,
  status,
  failureReason: null,
})
