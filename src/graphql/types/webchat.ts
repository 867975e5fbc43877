import { signUserKey } from '../../auth/user-key.ts'
import { signingKeyOf } from '../../domain/key-modes.ts'
import { openWebchatConversation, readWebchatSession, startWebchat, type WebchatSession } from '../../domain/webchat.ts'
import { builder } from '../builder.ts'
import { chatScope } from '../context.ts'
import { Conversation } from './conversation.ts'
import { Message } from './message.ts'
import { conversationSignalMembers, keepSignals, type ListenerSignal } from './signal.ts'
import { User } from './user.ts'

type InitSignal = WebchatSession & { type: 'init'; userKey: string }
type WebchatSignal = InitSignal | ListenerSignal

export const InitSignal = builder.objectRef<InitSignal>('InitSignal').implement({
  subGraphs: ['chat'],
  description: "The official web chat's first message: its conversation as it stands, and who the caller is.",
  fields: (t) => ({
    type: t.exposeString('type'),
    conversation: t.expose('conversation', { type: Conversation }),
    messages: t.expose('messages', { type: [Message], description: 'The latest messages, newest first.' }),
    participants: t.expose('participants', { type: [User], description: 'In the order they joined.' }),
    user: t.expose('user', { type: User }),
    userKey: t.exposeString('userKey', { description: "The caller's x-user-key (a new user's, when none was sent)." }),
  }),
})

const members = { init: InitSignal, ...conversationSignalMembers } as const

export const WebchatSignalUnion = builder.unionType('WebchatSignal', {
  subGraphs: ['chat'],
  description: "What the official web chat's stream carries: `init`, then the conversation's signals.",
  types: Object.values(members),
  resolveType: (signal: WebchatSignal) => members[signal.type],
})

/**
 * `init` first, then what the caller hears of the conversation. The listener is opened before the
 * conversation is read, so nothing posted in between is missed (it may come twice; the web chat
 * merges messages by id).
 */
async function initThenSignals(init: () => Promise<InitSignal>, signals: AsyncIterableIterator<ListenerSignal>) {
  let pending: Promise<IteratorResult<ListenerSignal>> | undefined = signals.next()
  let first: InitSignal | undefined
  try {
    first = await init()
  } catch (error) {
    await signals.return?.()
    throw error
  }
  const iterator: AsyncIterableIterator<WebchatSignal> = {
    async next() {
      if (first) {
        const value = first
        first = undefined
        return { done: false, value }
      }
      if (pending) {
        const next = pending
        pending = undefined
        return next
      }
      return signals.next()
    },
    async return() {
      first = undefined
      pending = undefined
      await signals.return?.()
      return { done: true, value: undefined }
    },
    [Symbol.asyncIterator]() {
      return iterator
    },
  }
  return iterator
}

builder.subscriptionField('initialize', (t) =>
  t.field({
    type: WebchatSignalUnion,
    description:
      "The official web chat's stream: creates the caller (no x-user-key) and the conversation (none named, or gone) when needed, sends `init`, then the conversation's signals.",
    args: { conversationId: t.arg.string({ description: 'The conversation to resume.' }) },
    subscribe: async (_root, { conversationId }, ctx) => {
      const { ctx: chat } = await startWebchat({ ctx: chatScope(ctx) })
      const conversation = await openWebchatConversation({ ctx: chat, conversationId })
      const callerId = chat.callerId as string
      // The caller's own typing is not news to the caller (the web chat would show it as the bot's).
      const signals = keepSignals(
        ctx.signals.listen(chat.integration.id, conversation.id, callerId) as AsyncIterableIterator<ListenerSignal>,
        (signal) => !((signal.type === 'typing_started' || signal.type === 'typing_stopped') && signal.userId === callerId),
      )
      const init = async (): Promise<InitSignal> => ({
        type: 'init',
        ...(await readWebchatSession(chat, conversation)),
        // A returning caller gets its own key back: signing afresh would drop the `exp` its operator set.
        userKey: chat.callerKey ?? (await signUserKey(callerId, signingKeyOf(chat.integration))),
      })
      return initThenSignals(init, signals)
    },
    resolve: (signal) => signal,
  }),
)
