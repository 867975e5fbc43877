import { CreateFileDocument, InitializeDocument, type InitializeSubscription } from '../../__generated__/chat-operations.ts'
import { compact, compactMessage } from '../bodies.ts'
import { route, stream } from '../route.ts'
import { toChatSignal } from './listen.ts'
import { chatSignals, Conversation, File, Message, User } from './resources.ts'
import { z } from 'zod'

type Signal = InitializeSubscription['initialize']

/**
 * What a bot's event says to the web chat: `{type: "webchat_visibility", visibility}` shows, hides
 * or toggles it, `{type: "webchat_config", config}` configures it, anything else is `custom`.
 */
function botEventSignal(payload: Record<string, unknown>) {
  if (payload.type === 'webchat_visibility') return { type: 'webchat_visibility', data: { visibility: payload.visibility } }
  if (payload.type === 'webchat_config') return { type: 'webchat_config', data: { config: payload.config } }
  return { type: 'custom', data: { event: payload } }
}

/**
 * A message as the official web chat renders it: a bloc's items as `{type, payload}` (it reads them
 * so, as Botpress' webchat integration sends them), every other kind as the Chat API has it.
 */
function toWebchatMessage<T extends { payload: Record<string, unknown> }>(message: T): T {
  const { payload } = message
  if (payload.type !== 'bloc' || !Array.isArray(payload.items)) return message
  const items = (payload.items as Record<string, unknown>[]).map(({ type, ...fields }) => ({ type, payload: fields }))
  return { ...message, payload: { ...payload, items } }
}

/** The web chat's stream message: `init` with the session, else a signal as the Chat API sends it. */
function toWebchatSignal(signal: Signal) {
  // The web chat adds the participant itself to its list (the Chat API names it only).
  if (signal.__typename === 'ParticipantAddedSignal') {
    const { type, conversationId, participantId, participant } = signal
    return { type, data: { conversationId, participantId, participant: compact(participant) } }
  }
  // A bot's events: the web chat's own signals when their payload names one, else `custom`.
  if (signal.__typename === 'EventCreatedSignal' && signal.isBot) return botEventSignal(signal.event.payload)
  if (signal.__typename === 'MessageCreatedSignal' || signal.__typename === 'MessageUpdatedSignal') {
    return { type: signal.type, data: { ...toWebchatMessage(compactMessage(signal.message)), isBot: signal.isBot } }
  }
  if (signal.__typename !== 'InitSignal') return toChatSignal(signal)
  return {
    type: signal.type,
    data: {
      conversation: signal.conversation,
      messages: signal.messages.map((message) => toWebchatMessage(compactMessage(message))),
      participants: signal.participants.map(compact),
      user: { ...compact(signal.user), userKey: signal.userKey },
    },
  }
}

/** The web chat's stream messages: `init`, the Chat API's signals, and what a bot's events say to the web chat. */
const WebchatSignal = z
  .union([
    z.object({
      type: z.literal('init'),
      data: z.object({ conversation: Conversation, messages: z.array(Message), participants: z.array(User), user: User.extend({ userKey: z.string() }) }),
    }),
    z.object({
      type: z.literal('participant_added'),
      data: z.object({ conversationId: z.string(), participantId: z.string(), participant: User }),
    }),
    ...chatSignals.filter((signal) => signal.shape.type.value !== 'participant_added'),
    z.object({ type: z.literal('webchat_visibility'), data: z.object({ visibility: z.unknown() }) }),
    z.object({ type: z.literal('webchat_config'), data: z.object({ config: z.unknown() }) }),
    z.object({ type: z.literal('custom'), data: z.object({ event: z.record(z.string(), z.unknown()) }) }),
  ])
  .meta({ id: 'WebchatSignal' })

/** The Webchat API (the official @botpress/webchat's superset of the Chat API), relative to /{webhookId}. */
export const webchatRoutes = [
  stream({
    operation: 'initialize',
    method: 'GET',
    path: '/initialize',
    document: InitializeDocument,
    summary: "Opens the web chat's session (a user and a conversation, created on a first visit) and streams its signals.",
    query: { conversationId: 'conversationId' },
    emits: WebchatSignal,
    event: (d) => toWebchatSignal(d.initialize),
  }),
  route({
    operation: 'createFile',
    summary: 'Reserves a file: its upload URL takes the bytes, its URL serves them.',
    returns: z.object({ file: File }),
    method: 'POST',
    path: '/files',
    document: CreateFileDocument,
    response: (d) => ({ file: d.createFile.file }),
  }),
]
