import { requireListener } from '../../domain/conversations.ts'
import type { ChatContext } from '../../domain/context.ts'
import { missedSignals, resumed } from '../../domain/signal-log.ts'
import type { ConversationSignal } from '../../domain/signals.ts'
import { builder } from '../builder.ts'
import { chatScope } from '../context.ts'
import { Event } from './event.ts'
import { Message } from './message.ts'
import { User } from './user.ts'

type Signal<T extends ConversationSignal['type']> = Extract<ConversationSignal, { type: T }>

const signalType = <T extends ConversationSignal['type']>(type: T) =>
  builder.objectRef<Signal<T>>(`${type.replace(/(^|_)(\w)/g, (_m, _s, c: string) => c.toUpperCase())}Signal`)

export const MessageCreatedSignal = signalType('message_created').implement({
  subGraphs: ['chat'],
  fields: (t) => ({
    type: t.exposeString('type'),
    message: t.expose('message', { type: Message }),
    isBot: t.exposeBoolean('isBot', { description: 'Whether the bot posted the message.' }),
  }),
})

export const MessageUpdatedSignal = signalType('message_updated').implement({
  subGraphs: ['chat'],
  description: "A message's payload, metadata or feedback changed.",
  fields: (t) => ({
    type: t.exposeString('type'),
    message: t.expose('message', { type: Message }),
    isBot: t.exposeBoolean('isBot', { description: 'Whether the bot posted the message.' }),
  }),
})

export const MessageStatusChangedSignal = signalType('message_status_changed').implement({
  subGraphs: ['chat'],
  description: "How the bot's handling of a user's message goes: processing, then processed or failed.",
  fields: (t) => ({
    type: t.exposeString('type'),
    message: t.expose('message', { type: Message }),
    oldStatus: t.exposeString('oldStatus', { nullable: true }),
    newStatus: t.exposeString('newStatus'),
    failureReason: t.exposeString('failureReason', { nullable: true }),
  }),
})

export const TypingStartedSignal = signalType('typing_started').implement({
  subGraphs: ['chat'],
  description: 'A participant started typing; the indicator lasts `timeout` milliseconds unless stopped or renewed.',
  fields: (t) => ({
    type: t.exposeString('type'),
    conversationId: t.exposeString('conversationId'),
    userId: t.exposeString('userId'),
    timeout: t.exposeInt('timeout'),
  }),
})

export const TypingStoppedSignal = signalType('typing_stopped').implement({
  subGraphs: ['chat'],
  fields: (t) => ({
    type: t.exposeString('type'),
    conversationId: t.exposeString('conversationId'),
    userId: t.exposeString('userId'),
  }),
})

export const MessageDeletedSignal = signalType('message_deleted').implement({
  subGraphs: ['chat'],
  fields: (t) => ({
    type: t.exposeString('type'),
    messageId: t.string({ resolve: (s) => s.message.id }),
    conversationId: t.exposeString('conversationId'),
    userId: t.string({ description: 'The author of the deleted message.', resolve: (s) => s.message.userId }),
  }),
})

export const EventCreatedSignal = signalType('event_created').implement({
  subGraphs: ['chat'],
  fields: (t) => ({
    type: t.exposeString('type'),
    event: t.expose('event', { type: Event }),
    isBot: t.exposeBoolean('isBot', { description: 'Whether the bot created the event.' }),
  }),
})

export const ParticipantAddedSignal = signalType('participant_added').implement({
  subGraphs: ['chat'],
  fields: (t) => ({
    type: t.exposeString('type'),
    conversationId: t.exposeString('conversationId'),
    participantId: t.exposeString('participantId'),
    participant: t.expose('participant', { type: User, description: 'The user who joined, as it was then.' }),
  }),
})

export const ParticipantRemovedSignal = signalType('participant_removed').implement({
  subGraphs: ['chat'],
  fields: (t) => ({
    type: t.exposeString('type'),
    conversationId: t.exposeString('conversationId'),
    participantId: t.exposeString('participantId'),
  }),
})

export const MessageStreamDeltaSignal = signalType('message_stream_delta').implement({
  subGraphs: ['chat'],
  description:
    "A piece of the message the bot is writing (Botpress' chat integration 1.x): not stored; a stream's deltas come in `sequence` order, then its message_stream_complete or message_stream_abort.",
  fields: (t) => ({
    type: t.exposeString('type'),
    streamId: t.exposeString('streamId'),
    conversationId: t.exposeString('conversationId'),
    userId: t.exposeString('userId', { description: "The bot's user id." }),
    createdAt: t.exposeString('createdAt', { description: 'As the bot gave it.' }),
    clientMessageId: t.exposeString('clientMessageId', { nullable: true }),
    sequence: t.exposeFloat('sequence', { description: "The delta's place in its stream, as the bot numbered it." }),
    delta: t.exposeString('delta', { description: 'The text to append.' }),
  }),
})

export const MessageStreamCompleteSignal = signalType('message_stream_complete').implement({
  subGraphs: ['chat'],
  description: "The bot posted its stream's final message (its `metadata.streamId`): comes just before that message's message_created.",
  fields: (t) => ({
    type: t.exposeString('type'),
    streamId: t.exposeString('streamId'),
    message: t.expose('message', { type: Message }),
  }),
})

export const MessageStreamAbortSignal = signalType('message_stream_abort').implement({
  subGraphs: ['chat'],
  description: 'The bot gave its stream up: what its deltas made is to be dropped.',
  fields: (t) => ({
    type: t.exposeString('type'),
    streamId: t.exposeString('streamId'),
    conversationId: t.exposeString('conversationId'),
  }),
})

export const ResyncSignal = signalType('resync').implement({
  subGraphs: ['chat'],
  description:
    'Not a Chat API signal: the first a resuming listener hears when what it missed cannot be replayed (its cursor is unknown, older than the log keeps, or too much was missed): read the conversation again.',
  fields: (t) => ({
    type: t.exposeString('type'),
    conversationId: t.exposeString('conversationId'),
    reason: t.exposeString('reason', { description: 'unknown_cursor, too_old or too_many.' }),
  }),
})

export const conversationSignalMembers = {
  message_created: MessageCreatedSignal,
  message_updated: MessageUpdatedSignal,
  message_status_changed: MessageStatusChangedSignal,
  typing_started: TypingStartedSignal,
  typing_stopped: TypingStoppedSignal,
  message_deleted: MessageDeletedSignal,
  event_created: EventCreatedSignal,
  participant_added: ParticipantAddedSignal,
  participant_removed: ParticipantRemovedSignal,
  message_stream_delta: MessageStreamDeltaSignal,
  message_stream_complete: MessageStreamCompleteSignal,
  message_stream_abort: MessageStreamAbortSignal,
  resync: ResyncSignal,
} as const

// Every member says where it is in the conversation's log (persisted signals only), the cursor a resume gives back.
for (const member of Object.values(conversationSignalMembers) as (typeof MessageCreatedSignal)[]) {
  builder.objectField(member, 'signalId', (t) =>
    t.string({
      nullable: true,
      description:
        "The signal's place in the conversation's log, for `since` when listening again; null for a transient signal (typing, streams, statuses). Opaque.",
      resolve: (signal) => signal.signalId ?? null,
    }),
  )
}

export type ListenerSignal = Exclude<ConversationSignal, { type: 'conversation_deleted' | 'handoff_changed' }>

export const ConversationSignalUnion = builder.unionType('ConversationSignal', {
  subGraphs: ['chat'],
  description:
    "Something that happened in a conversation: the signals of the Chat API (its five, and 1.x's message streams), and the web chat's message_updated, message_status_changed, typing_started and typing_stopped.",
  types: Object.values(conversationSignalMembers),
  resolveType: (signal: ListenerSignal) => conversationSignalMembers[signal.type],
})

builder.subscriptionType({ subGraphs: ['chat'] })

/** A listener's signals that `keep` keeps; returning it ends the listener's. */
export function keepSignals(signals: AsyncIterableIterator<ListenerSignal>, keep: (signal: ListenerSignal) => boolean): AsyncIterableIterator<ListenerSignal> {
  const iterator: AsyncIterableIterator<ListenerSignal> = {
    async next() {
      for (;;) {
        const next = await signals.next()
        if (next.done || keep(next.value)) return next
      }
    },
    return: async () => (await signals.return?.()) ?? { done: true, value: undefined },
    [Symbol.asyncIterator]: () => iterator,
  }
  return iterator
}

/**
 * message_status_changed comes with every user message: the Chat API has no such signal, so its
 * listeners (and subscribers who do not ask for it) never get it. (Typing, feedback and updates
 * come only when someone types or changes a message.)
 */
const notStatus = (signal: ListenerSignal) => signal.type !== 'message_status_changed'

/** Listening from `since`: the live stream opened (its first read) before the log is read, so that nothing falls between them. */
async function resume(ctx: ChatContext, conversationId: string, live: AsyncIterableIterator<ConversationSignal>, since: string) {
  const first = live.next()
  try {
    return resumed(live, first, await missedSignals(ctx, conversationId, since))
  } catch (error) {
    void live.return?.()
    throw error
  }
}

builder.subscriptionField('conversationSignals', (t) =>
  t.field({
    type: ConversationSignalUnion,
    description: 'The live signals of a conversation the caller participates in; ends when the caller is removed or the conversation is deleted.',
    args: {
      conversationId: t.arg.string({ required: true }),
      includeStatuses: t.arg.boolean({
        defaultValue: false,
        description: "Also message_status_changed (the bot's handling of each user message), as the web chat's stream has it.",
      }),
      since: t.arg.string({
        required: false,
        description:
          'The signalId last heard: the persisted signals since then are replayed first (or a ResyncSignal when they cannot be), then the live ones.',
      }),
    },
    subscribe: async (_root, { conversationId, includeStatuses, since }, ctx) => {
      const chat = chatScope(ctx)
      const caller = await requireListener({ ctx: chat, conversationId })
      const live = ctx.signals.listen(chat.integration.id, conversationId, caller.id)
      const signals = (since ? await resume(chat, conversationId, live, since) : live) as AsyncIterableIterator<ListenerSignal>
      return includeStatuses ? signals : keepSignals(signals, notStatus)
    },
    resolve: (signal) => signal,
  }),
)
