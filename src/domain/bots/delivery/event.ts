import type { ConversationRow, EventRow, MessageRow } from '../../../db/schema.ts'
import type { MessagePayload } from '../../payloads.ts'

/** `incoming`: from the user to the bot; `outgoing`: from the bot to the user. */
export type EventDirection = 'incoming' | 'outgoing'

/** State data of the event; the spec leaves its inner structure out. */
export type EventState = Record<string, unknown>

export interface EventTrigger {
  conversationId?: string
  eventName?: string
  flowId: string
  integration?: string
  nodeId: string
  userId?: string
}

/** The `event` object bot code reads (spec part 6), field for field. */
export interface BotEvent {
  /** Bot that experienced the event. */
  botId: string
  conversationId?: string
  createdOn: Date
  direction: EventDirection
  id: string
  /** Integration the event occurred on (`chat` here). */
  integration?: string
  /** Knowledge bases queried. */
  kb?: { included: unknown[]; results?: unknown[] }
  messageId?: string
  payload: Record<string, unknown>
  /** Plain-text rendering; for a text message, its text. */
  preview: string
  state: EventState
  tags?: {
    conversation?: Record<string, string>
    message?: Record<string, string>
    user?: Record<string, string>
  }
  trigger?: EventTrigger
  type: string
  userId?: string
}

const joinLines = (lines: (string | undefined)[]) => lines.filter((line) => line !== undefined && line !== '').join('\n')

/** A plain-text rendering of a message payload, the way a notification or a log line shows it. */
export function previewOf(payload: MessagePayload): string {
  switch (payload.type) {
    case 'text':
      return payload.text
    case 'markdown':
      return payload.markdown
    case 'image':
      return `[image] ${payload.imageUrl}`
    case 'audio':
      return `[audio] ${payload.audioUrl}`
    case 'video':
      return `[video] ${payload.videoUrl}`
    case 'file':
      return payload.title ? `[file] ${payload.title} (${payload.fileUrl})` : `[file] ${payload.fileUrl}`
    case 'location': {
      const place = payload.title ?? payload.address
      const coordinates = `${payload.latitude}, ${payload.longitude}`
      return place ? `[location] ${place} (${coordinates})` : `[location] ${coordinates}`
    }
    case 'card':
      return joinLines([payload.subtitle ? `${payload.title} — ${payload.subtitle}` : payload.title, ...payload.actions.map((a) => `[${a.label}]`)])
    case 'carousel':
      return joinLines(payload.items.map((card) => previewOf(card)))
    case 'choice':
    case 'dropdown':
      return joinLines([payload.text, ...payload.options.map((o) => `- ${o.label}`)])
    case 'bloc':
      return joinLines(payload.items.map((item) => previewOf(item)))
  }
}

/** A custom event's type: its payload's string `type`, else `custom`. */
export const customEventType = (payload: Record<string, unknown>): string => (typeof payload.type === 'string' && payload.type !== '' ? payload.type : 'custom')

// The fields of every incoming event, its own assigned onto them, not spread: one object shape (docs/internals/performance.md).
const common = (botId: string, id: string) => ({
  botId,
  id,
  direction: 'incoming' as const,
  integration: 'chat',
  state: {},
  tags: { conversation: {}, message: {}, user: {} },
})

export function incomingMessageEvent(botId: string, id: string, message: MessageRow): BotEvent {
  return Object.assign(common(botId, id), {
    conversationId: message.conversationId,
    createdOn: new Date(message.createdAt),
    messageId: message.id,
    payload: message.payload,
    preview: previewOf(message.payload as MessagePayload),
    type: 'message',
    userId: message.userId,
  })
}

export function incomingCustomEvent(botId: string, id: string, event: EventRow): BotEvent {
  return Object.assign(common(botId, id), {
    conversationId: event.conversationId,
    createdOn: new Date(event.createdAt),
    payload: event.payload,
    preview: JSON.stringify(event.payload),
    type: customEventType(event.payload),
    userId: event.userId,
  })
}

/**
 * An event of the handoff the bot is told of, as the hitl interface names it (`hitl:hitlAssigned`,
 * `hitl:hitlStopped`) with its payload; its user is the conversation's owner.
 */
export function incomingHitlEvent(botId: string, id: string, conversation: ConversationRow, type: string, payload: Record<string, unknown>): BotEvent {
  return Object.assign(common(botId, id), {
    conversationId: conversation.id,
    createdOn: new Date(),
    payload,
    preview: JSON.stringify(payload),
    type,
    userId: conversation.ownerId,
    integration: 'hitl',
  })
}
