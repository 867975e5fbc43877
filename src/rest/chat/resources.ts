import { z } from 'zod'

/*
 * The Chat API's resource bodies as the REST layer answers them (the fragments of fragments.graphql,
 * null fields left out where a route compacts them): what the OpenAPI document publishes, and what
 * the test suite checks every response it receives against.
 */

export const timestamp = z.iso.datetime().meta({ id: 'Timestamp', description: 'UTC, ISO 8601 with milliseconds' })
const json = z.record(z.string(), z.unknown())

export const User = z
  .object({
    id: z.string(),
    name: z.string().optional(),
    pictureUrl: z.string().optional(),
    profile: z.string().optional(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'User' })

export const Conversation = z.object({ id: z.string(), createdAt: timestamp, updatedAt: timestamp }).meta({ id: 'Conversation' })

export const Message = z
  .object({
    id: z.string(),
    createdAt: timestamp,
    payload: json.describe('The message payload as it was sent: a kind (`type`) and its fields.'),
    userId: z.string(),
    conversationId: z.string(),
    metadata: json.optional(),
    feedback: z.object({ value: z.string(), comment: z.string().optional() }).optional(),
  })
  .meta({ id: 'Message' })

/** A conversation as listConversations gives it: with its newest message, left out when it has none (@botpress/webchat's ConversationWithLastMessage). */
export const ConversationWithLastMessage = Conversation.extend({ lastMessage: Message.optional() }).meta({ id: 'ConversationWithLastMessage' })

export const Event = z.object({ id: z.string(), createdAt: timestamp, payload: json, conversationId: z.string(), userId: z.string() }).meta({ id: 'Event' })

export const File = z
  .object({
    id: z.string(),
    key: z.string(),
    size: z.int(),
    contentType: z.string(),
    url: z.string(),
    uploadUrl: z.string(),
    createdAt: timestamp,
  })
  .meta({ id: 'File' })

/** `meta.nextToken` pages on; it is left out on the last page. */
export const Meta = z.object({ nextToken: z.string().optional() }).meta({ id: 'PageMeta' })

export const Empty = z.object({}).meta({ id: 'Empty' })

const signal = <T extends string, D extends z.ZodType>(type: T, data: D) => z.object({ type: z.literal(type), data })
const between = { conversationId: z.string(), participantId: z.string() }

/** The signals of `listenConversation`, one per SSE message. */
export const chatSignals = [
  signal('message_created', Message.extend({ isBot: z.boolean() })),
  signal('message_updated', Message.extend({ isBot: z.boolean() })),
  signal(
    'message_status_changed',
    z.object({ message: Message, oldStatus: z.string().optional(), newStatus: z.string(), failureReason: z.string().optional() }),
  ),
  signal('typing_started', z.object({ conversationId: z.string(), userId: z.string(), timeout: z.int() })),
  signal('typing_stopped', z.object({ conversationId: z.string(), userId: z.string() })),
  signal('message_deleted', z.object({ id: z.string(), conversationId: z.string(), userId: z.string() })),
  signal('event_created', Event.extend({ isBot: z.boolean() })),
  signal('participant_added', z.object(between)),
  signal('participant_removed', z.object(between)),
  signal(
    'message_stream_delta',
    z.object({
      streamId: z.string(),
      conversationId: z.string(),
      userId: z.string(),
      createdAt: z.string(),
      clientMessageId: z.string().optional(),
      sequence: z.number(),
      delta: z.string(),
    }),
  ),
  signal('message_stream_complete', z.object({ streamId: z.string(), message: Message })),
  signal('message_stream_abort', z.object({ streamId: z.string(), conversationId: z.string() })),
  signal('resync', z.object({ conversationId: z.string(), reason: z.enum(['unknown_cursor', 'too_old', 'too_many']) })),
] as const

export const ChatSignal = z.union(chatSignals).meta({ id: 'ChatSignal' })
