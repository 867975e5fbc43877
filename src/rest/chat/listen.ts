import { type ChatSignalBodyFragment, ListenConversationDocument } from '../../__generated__/chat-operations.ts'
import { compact, compactMessage } from '../bodies.ts'
import { stream } from '../route.ts'
import { ChatSignal } from './resources.ts'

type Signal = ChatSignalBodyFragment

/** A signal as the Chat API sends it: `{type, data}`, the message or event with `isBot` beside it. */
export function toChatSignal(signal: Signal) {
  switch (signal.__typename) {
    case 'MessageCreatedSignal':
    case 'MessageUpdatedSignal':
      return { type: signal.type, data: { ...compactMessage(signal.message), isBot: signal.isBot } }
    case 'EventCreatedSignal':
      return { type: signal.type, data: { ...signal.event, isBot: signal.isBot } }
    case 'MessageStatusChangedSignal': {
      const { type, message, newStatus, oldStatus, failureReason } = signal
      return { type, data: compact({ message: compactMessage(message), oldStatus, newStatus, failureReason }) }
    }
    case 'TypingStartedSignal':
      return { type: signal.type, data: { conversationId: signal.conversationId, userId: signal.userId, timeout: signal.timeout } }
    case 'TypingStoppedSignal':
      return { type: signal.type, data: { conversationId: signal.conversationId, userId: signal.userId } }
    case 'MessageDeletedSignal':
      return { type: signal.type, data: { id: signal.id, conversationId: signal.conversationId, userId: signal.userId } }
    case 'ParticipantAddedSignal':
    case 'ParticipantRemovedSignal':
      return { type: signal.type, data: { conversationId: signal.conversationId, participantId: signal.participantId } }
    case 'MessageStreamDeltaSignal': {
      const { type, streamId, conversationId, userId, createdAt, clientMessageId, sequence, delta } = signal
      return { type, data: compact({ streamId, conversationId, userId, createdAt, clientMessageId, sequence, delta }) }
    }
    case 'MessageStreamCompleteSignal':
      return { type: signal.type, data: { streamId: signal.streamId, message: compactMessage(signal.message) } }
    case 'MessageStreamAbortSignal':
      return { type: signal.type, data: { streamId: signal.streamId, conversationId: signal.conversationId } }
    case 'ResyncSignal':
      return { type: signal.type, data: { conversationId: signal.conversationId, reason: signal.reason } }
  }
}

export const listenRoutes = [
  stream({
    operation: 'listenConversation',
    summary: 'The live signals of a conversation, as Server-Sent Events.',
    emits: ChatSignal,
    method: 'GET',
    path: '/conversations/{id}/listen',
    // A reconnecting EventSource sends the last `id:` it got; a client may give it as `since` too.
    query: { since: 'since' },
    headers: { 'last-event-id': 'since' },
    document: ListenConversationDocument,
    event: (d) => toChatSignal(d.conversationSignals),
  }),
]
