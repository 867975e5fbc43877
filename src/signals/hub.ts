import { createPubSub, Repeater } from 'graphql-yoga'
import { type ConversationSignal, endsListenerOf, type SignalPublisher, unheardByListeners } from '../domain/signals.ts'
import { Slots, userSlot } from '../limits/slots.ts'
import { SignalQueue } from './queue.ts'

/** A signal with the integration it happened in, as the integration-wide topic carries it. */
export interface RoutedSignal {
  integrationId: string
  signal: ConversationSignal
}

/**
 * The one in-process publish/subscribe behind REST listeners, GraphQL subscriptions and the
 * delivery worker: graphql-yoga's pub/sub, whose event target is the piece to swap (e.g. for Redis) when
 * Confab runs as several instances. Counts live subscriptions so that leaks can be seen.
 */
export interface SignalHub extends SignalPublisher {
  /** The signals of one conversation; ending the iterator unsubscribes. */
  conversation(integrationId: string, conversationId: string): AsyncIterableIterator<ConversationSignal>
  /**
   * What one participant hears of a conversation: its Chat API signals, ending after the signal
   * that removes the participant, or when the conversation is deleted. A live subscription of the
   * user and of the conversation from its making to its end (read or not): over either cap
   * (ListenerCaps), 429 RateLimited instead.
   */
  listen(integrationId: string, conversationId: string, userId: string): AsyncIterableIterator<ConversationSignal>
  /** Every signal of every integration (the delivery worker's feed). */
  all(): AsyncIterableIterator<RoutedSignal>
  activeSubscriptions(): number
  /** Ends every conversation subscription (at shutdown: their streams then complete and close). */
  closeListeners(): void
}

/** What instances tell each other: a signal, or that an integration's listeners must end. */
export type SignalBusMessage = RoutedSignal | { closeIntegration: string }

/**
 * How the signals of one instance reach the others (Redis, see ./redis.ts): `publish` sends a
 * message to every other instance, `receive` hears theirs (never this instance's own).
 */
export interface SignalBus {
  publish(message: SignalBusMessage): void
  receive(receiver: (message: SignalBusMessage) => void): () => void
  /** Resolves when the bus answers (GET /readyz). */
  ping?(): Promise<void>
}

/** The most live subscriptions (listen) per user and per conversation, in this instance; 0: none. */
export interface ListenerCaps {
  /** SUBSCRIPTIONS_PER_USER */
  perUser: number
  /** SUBSCRIPTIONS_PER_CONVERSATION */
  perConversation: number
}

type Sink = (signal: ConversationSignal) => void

/** How many listeners of one conversation hear a signal in one event-loop turn. */
const FAN_OUT_SLICE = 16

/** The listeners of one conversation, fed by the room's one pub/sub subscription. */
interface Room {
  sinks: Set<Sink>
  source: Repeater<ConversationSignal>
}

/**
 * The hub; with a bus, also fed by the other instances' signals and feeding them this one's.
 * Local listeners hear a local signal at once (in process), whether or not there is a bus.
 */
export function createSignalHub({
  bus,
  caps,
  observe,
}: {
  bus?: SignalBus
  caps?: ListenerCaps
  /** Told of every signal, this instance's and the others', as it is handed out (the message streams learn of them so). */
  observe?: (integrationId: string, signal: ConversationSignal) => void
} = {}): SignalHub {
  const pubSub = createPubSub<{
    conversation: [topic: string, signal: ConversationSignal]
    all: [routed: RoutedSignal]
  }>()
  let active = 0
  const rooms = new Map<string, Room>()
  /** Each live conversation subscription, with the integration it belongs to. */
  const queues = new Map<SignalQueue<ConversationSignal>, string>()
  const listeners = new Slots('subscriptions', [
    { cap: caps?.perUser ?? 0, per: 'for this user (SUBSCRIPTIONS_PER_USER)' },
    { cap: caps?.perConversation ?? 0, per: 'for this conversation (SUBSCRIPTIONS_PER_CONVERSATION)' },
  ])

  /**
   * Adds a sink to a conversation's room; returns its removal. The room subscribes to the pub/sub
   * once, with its first sink, and hands each signal to every sink (FAN_OUT_SLICE of them per event-loop
   * turn): publishing costs the same for one listener as for thousands, and a signal reaches them all as
   * the same object.
   */
  function join(topic: string, sink: Sink): () => void {
    let room = rooms.get(topic)
    if (!room) {
      const opened: Room = { sinks: new Set(), source: pubSub.subscribe('conversation', topic) }
      void (async () => {
        for await (const signal of opened.source) {
          if (opened.sinks.size <= FAN_OUT_SLICE) {
            for (const each of opened.sinks) each(signal)
            continue
          }
          // Thousands of listeners: the sinks that are still there, a slice per event-loop turn, so that
          // their sends never hold off other requests (/healthz) for the whole fan-out. The next signal
          // waits for this one's last slice: each listener still hears them in order.
          let handed = 0
          for (const each of [...opened.sinks]) {
            if (!opened.sinks.has(each)) continue
            each(signal)
            if (++handed % FAN_OUT_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve))
          }
        }
      })()
      rooms.set(topic, opened)
      room = opened
    }
    const joined = room
    joined.sinks.add(sink)
    return () => {
      joined.sinks.delete(sink)
      if (joined.sinks.size > 0 || rooms.get(topic) !== joined) return
      rooms.delete(topic)
      void joined.source.return()
    }
  }

  /**
   * One listener's iterator over a room; `take` decides what it hears and when it ends; `release`
   * runs once it has ended.
   */
  const follow = (
    integrationId: string,
    conversationId: string,
    take: (signal: ConversationSignal, queue: SignalQueue<ConversationSignal>) => void,
    release?: () => void,
  ) => {
    let leave = () => {}
    const queue: SignalQueue<ConversationSignal> = new SignalQueue(
      () => {
        active++
        queues.set(queue, integrationId)
        leave = join(`${integrationId}/${conversationId}`, (signal) => take(signal, queue))
      },
      () => {
        leave()
        queues.delete(queue)
        active--
      },
      undefined,
      release,
    )
    return queue
  }

  const deliver = (integrationId: string, signal: ConversationSignal) => {
    observe?.(integrationId, signal)
    pubSub.publish('conversation', `${integrationId}/${signal.conversationId}`, signal)
    pubSub.publish('all', { integrationId, signal })
  }
  const endIntegration = (integrationId: string) => {
    for (const [queue, of] of [...queues]) if (of === integrationId) queue.end()
  }
  bus?.receive((message) => {
    if ('closeIntegration' in message) endIntegration(message.closeIntegration)
    else deliver(message.integrationId, message.signal)
  })

  return {
    publish(integrationId, signal) {
      deliver(integrationId, signal)
      bus?.publish({ integrationId, signal })
    },
    conversation: (integrationId, conversationId) => follow(integrationId, conversationId, (signal, queue) => queue.push(signal)),
    listen: (integrationId, conversationId, userId) =>
      follow(
        integrationId,
        conversationId,
        (signal, queue) => {
          if (!unheardByListeners(signal)) queue.push(signal)
          if (endsListenerOf(userId, signal)) queue.end()
        },
        listeners.take([userSlot(integrationId, userId), `${integrationId}/${conversationId}`]),
      ),
    all: () =>
      new Repeater<RoutedSignal>(async (push, stop) => {
        active++
        const source = pubSub.subscribe('all')
        void stop.then(() => source.return())
        try {
          for await (const value of source) await push(value)
        } finally {
          active--
          stop()
        }
      }),
    activeSubscriptions: () => active,
    closeIntegration(integrationId) {
      endIntegration(integrationId)
      bus?.publish({ closeIntegration: integrationId })
    },
    closeListeners() {
      for (const queue of [...queues.keys()]) queue.end()
    },
  }
}
