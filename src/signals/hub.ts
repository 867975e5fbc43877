import { createPubSub, Repeater } from 'graphql-yoga'
import { type ConversationSignal, endsListenerOf, type SignalPublisher } from '../domain/signals.ts'

/** A signal with the integration it happened in, as the integration-wide topic carries it. */
export interface RoutedSignal {
  integrationId: string
  signal: ConversationSignal
}

/**
 * The one in-process publish/subscribe behind REST listeners, GraphQL subscriptions and the bot
 * runtime: graphql-yoga's pub/sub, whose event target is the piece to swap (e.g. for Redis) when
 * Confab runs as several instances. Counts live subscriptions so that leaks can be seen.
 */
export interface SignalHub extends SignalPublisher {
  /** The signals of one conversation; ending the iterator unsubscribes. */
  conversation(integrationId: string, conversationId: string): AsyncIterableIterator<ConversationSignal>
  /**
   * What one participant hears of a conversation: its Chat API signals, ending after the signal
   * that removes the participant, or when the conversation is deleted.
   */
  listen(integrationId: string, conversationId: string, userId: string): AsyncIterableIterator<ConversationSignal>
  /** Every signal of every integration (the bot runtime's feed). */
  all(): AsyncIterableIterator<RoutedSignal>
  activeSubscriptions(): number
}

export function createSignalHub(): SignalHub {
  const pubSub = createPubSub<{
    conversation: [topic: string, signal: ConversationSignal]
    all: [routed: RoutedSignal]
  }>()
  let active = 0

  const counted = <T>(source: Repeater<T>): AsyncIterableIterator<T> =>
    new Repeater<T>(async (push, stop) => {
      active++
      void stop.then(() => source.return())
      try {
        for await (const value of source) await push(value)
      } finally {
        active--
        stop()
      }
    })

  const conversation = (integrationId: string, conversationId: string) =>
    counted(pubSub.subscribe('conversation', `${integrationId}/${conversationId}`))

  return {
    publish(integrationId, signal) {
      pubSub.publish('conversation', `${integrationId}/${signal.conversationId}`, signal)
      pubSub.publish('all', { integrationId, signal })
    },
    conversation,
    listen(integrationId, conversationId, userId) {
      const source = conversation(integrationId, conversationId)
      return new Repeater<ConversationSignal>(async (push, stop) => {
        void stop.then(() => source.return?.())
        for await (const signal of source) {
          if (signal.type !== 'conversation_deleted') await push(signal)
          if (endsListenerOf(userId, signal)) break
        }
        await source.return?.()
        stop()
      })
    },
    all: () => counted(pubSub.subscribe('all')),
    activeSubscriptions: () => active,
  }
}
