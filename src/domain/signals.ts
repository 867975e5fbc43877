import type { EventRow, HandledBy, MessageRow, UserRow } from '../db/schema.ts'

/**
 * What happens in a conversation, as its listeners (REST SSE, GraphQL subscriptions) and the
 * delivery worker learn it. Published only after the write it describes has committed.
 */
export type ConversationSignal = (
  | { type: 'message_created'; conversationId: string; message: MessageRow; isBot: boolean }
  /** A message's payload, metadata or feedback changed. */
  | { type: 'message_updated'; conversationId: string; message: MessageRow; isBot: boolean }
  /** How the bot's handling of a user's message goes (see message-status.ts). */
  | {
      type: 'message_status_changed'
      conversationId: string
      message: MessageRow
      oldStatus?: string
      newStatus: string
      failureReason?: string
    }
  /** A participant is typing (for `timeout` ms at most), or stopped. */
  | { type: 'typing_started'; conversationId: string; userId: string; timeout: number }
  | { type: 'typing_stopped'; conversationId: string; userId: string }
  | { type: 'message_deleted'; conversationId: string; message: MessageRow }
  | { type: 'event_created'; conversationId: string; event: EventRow; isBot: boolean }
  | { type: 'participant_added'; conversationId: string; participantId: string; participant: UserRow }
  | { type: 'participant_removed'; conversationId: string; participantId: string }
  /**
   * Who handles the conversation changed (docs/guides/handoff.md): what agents' queue feeds hear.
   * Not a Chat API signal: a conversation's own listeners do not get it (they hear the agent join
   * and leave: participant_added with its name, participant_removed).
   */
  | {
      type: 'handoff_changed'
      conversationId: string
      /** The workspace and bot of the conversation: agents' feeds are by workspace, their API by bot. */
      workspaceId: string
      botId: string
      handledBy: HandledBy
      agentId: string | null
      agentName: string | null
      handoffTitle: string | null
    }
  /**
   * A piece of a message the bot is writing (Botpress' chat integration 1.x, `chat:publishMessageStream`):
   * transient, never stored; `userId` is the bot's. `sequence` orders a stream's deltas.
   */
  | {
      type: 'message_stream_delta'
      conversationId: string
      streamId: string
      userId: string
      createdAt: string
      clientMessageId?: string
      sequence: number
      delta: string
    }
  /** The bot posted the stream's final message (its `metadata.streamId`): comes just before its message_created. */
  | { type: 'message_stream_complete'; conversationId: string; streamId: string; message: MessageRow }
  /** The bot gave the stream up: what its deltas made is to be dropped. */
  | { type: 'message_stream_abort'; conversationId: string; streamId: string }
  /** Not a Chat API signal: it ends the conversation's listeners. */
  | { type: 'conversation_deleted'; conversationId: string }
  /**
   * Not a Chat API signal, and never published: what a resuming listener hears first when what it
   * missed cannot be replayed (its cursor is unknown, older than the log's window, or too much was
   * missed): it must read the conversation again (src/domain/signal-log.ts).
   */
  | { type: 'resync'; conversationId: string; reason: ResyncReason }
) & {
  /** The signal's place in the conversation's log (persisted signals only): the SSE `id:`, a `since` cursor. Opaque. */
  signalId?: string
}

/** Why a resuming listener must read the conversation again. */
export type ResyncReason = 'unknown_cursor' | 'too_old' | 'too_many'

export interface SignalPublisher {
  publish(integrationId: string, signal: ConversationSignal): void
  /** Ends every listener of the integration's conversations: the integration is gone (its bot was deleted). */
  closeIntegration(integrationId: string): void
}

/** The signals a conversation's listeners never hear. */
export const unheardByListeners = (signal: ConversationSignal): boolean => signal.type === 'conversation_deleted' || signal.type === 'handoff_changed'

/** Whether a listener of `userId` has heard the last of the conversation. */
export const endsListenerOf = (userId: string, signal: ConversationSignal): boolean =>
  signal.type === 'conversation_deleted' || (signal.type === 'participant_removed' && signal.participantId === userId)
