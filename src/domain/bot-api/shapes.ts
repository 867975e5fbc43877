import type { ConversationRow, EventRow, MessageRow, UserRow } from '../../db/schema.ts'
import { customEventType } from '../bots/delivery/event.ts'
import { toRuntimeCustomEvent, toRuntimeMessage } from './chat-messages.ts'
import type { Json } from '../../contracts/bot-api-inputs.ts'

/* The shapes of the bot API's answers: what @botpress/client reads. */

/**
 * The tags Botpress' chat integration defines, as a bot reads them (prefixed with the integration's
 * name): those with a value only, as the integration leaves an unset one out.
 */
const chatTags = (tags: Record<string, string | null | false>): Record<string, string> =>
  Object.fromEntries(Object.entries(tags).flatMap(([name, value]) => (typeof value === 'string' ? [[`chat:${name}`, value]] : [])))

/**
 * The tags the bot set (`botTags`), then the chat integration's: `owner`, the user who created it
 * with the Chat API (none for the bot's own); `fid`, its id, when the client chose it
 * (createConversation with `id`).
 */
export const botApiConversation = (row: ConversationRow, botId: string, botTags: Record<string, string> = {}): Json => ({
  id: row.id,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  channel: 'channel',
  integration: 'chat',
  tags: { ...botTags, ...chatTags({ owner: row.ownerId !== botId && row.ownerId, fid: row.idChosen === true && row.id }) },
})

/** `fid`: its id, when the client chose it (createUser with `id`); `profile`: its profile. */
export const botApiUser = (row: UserRow): Json => ({
  id: row.id,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  tags: chatTags({ fid: row.idChosen === true && row.id, profile: row.profile }),
  ...(row.name !== null ? { name: row.name } : {}),
  ...(row.pictureUrl !== null ? { pictureUrl: row.pictureUrl } : {}),
})

/** A stored (Chat API) message as the SDK reads it: `type` beside a `payload` that carries the metadata. */
export function botApiMessage(row: MessageRow, botId: string): Json {
  const { type, payload } = toRuntimeMessage(row)
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

/** A user's custom event is the chat integration's (`chat:custom`); the bot's own keep their payload and its type. */
export function botApiEvent(row: EventRow, botId: string, status = 'processed'): Json {
  const { type, payload } = row.userId === botId ? { type: customEventType(row.payload), payload: row.payload } : toRuntimeCustomEvent(row)
  return {
    id: row.id,
    createdAt: row.createdAt,
    type,
    payload,
    conversationId: row.conversationId,
    userId: row.userId,
    messageId: null,
    status,
    failureReason: null,
  }
}
