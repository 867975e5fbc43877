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
  /** Ends every conversation subscription (at shutdown: their streams then complete and close). */
  closeListeners(): void
}

export function createSignalHub(): SignalHub {
  const pubSub = createPubSub<{
    conversation: [topic: string, signal: ConversationSignal]
    all: [routed: RoutedSignal]
  }>()
  let active = 0
  /** Each live conversation subscription, with the integration it belongs to. */
  const listeners = new Map<Repeater<ConversationSignal>, string>()

  const counted = <T>(source: Repeater<T>, onEnd?: () => void): Repeater<T> =>
    new Repeater<T>(async (push, stop) => {
      active++
      void stop.then(() => source.return())
      try {
        for await (const value of source) await push(value)
      } finally {
        active--
        onEnd?.()
        stop()
      }
    })

  const conversation = (integrationId: string, conversationId: string) => {
    const subscription: Repeater<ConversationSignal> = counted(
      pubSub.subscribe('conversation', `${integrationId}/${conversationId}`),
      () => listeners.delete(subscription),
    )
    listeners.set(subscription, integrationId)
    return subscription
  }

  return {
    publish(integrationId, signal) {
      pubSub.publish('conversation', `${integrationId}/${signal.conversationId}`, signal)
      pubSub.publish('all', { integrationId, signal })
    },
    conversation,
    listen(integrationId, conversationId, userId) {
      return new Repeater<ConversationSignal>(async (push, stop) => {
        // Subscribed only once iterated, so that a listener nobody reads holds nothing.
        const source = conversation(integrationId, conversationId)
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
    closeIntegration(integrationId) {
      for (const [subscription, of] of [...listeners]) {
        if (of === integrationId) void subscription.return(undefined)
      }
    },
    closeListeners() {
      for (const subscription of [...listeners.keys()]) void subscription.return(undefined)
      listeners.clear()
    },
  }
}
