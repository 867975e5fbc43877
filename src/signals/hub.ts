import { type ConversationSignal, endsListenerOf, type SignalPublisher, unheardByListeners } from '../domain/signals.ts'
import { Slots, userSlot } from '../limits/slots.ts'
import { SignalQueue } from './queue.ts'

/** A signal with the integration it happened in, as the integration-wide topic carries it. */
export interface RoutedSignal {
  integrationId: string
  signal: ConversationSignal
}

/**
 * The one in-process publish/subscribe behind REST listeners, GraphQL subscriptions and the agents'
 * feeds; with a bus (Redis), fed by the other instances too. Counts live subscriptions so that leaks can
 * be seen. Every buffer on the way is bounded: a listener that falls behind is ended (SignalQueue), and a
 * conversation whose signals come faster than its slices go out is handed them whole.
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
  /** Every signal of every integration (the agents' feeds); a reader that falls 1,024 behind is ended. */
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
/**
 * Signals waiting for a conversation's fan-out beyond which it stops yielding between slices: slicing is
 * fairness to other requests, never a reason to hold signals without bound (graphql-yoga's pub/sub, which
 * this replaced, threw past 1,024 pending and took the process down).
 */
const MOST_PENDING_FOR_SLICING = 64

/** The listeners of one conversation, and the signals they have yet to be handed. */
interface Room {
  sinks: Set<Sink>
  pending: ConversationSignal[]
  handing: boolean
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
  let active = 0
  const rooms = new Map<string, Room>()
  /** The readers of every signal (all()). */
  const everyone = new Set<(routed: RoutedSignal) => void>()
  /** Each live conversation subscription, with the integration it belongs to. */
  const queues = new Map<SignalQueue<ConversationSignal>, string>()
  const listeners = new Slots('subscriptions', [
    { cap: caps?.perUser ?? 0, per: 'for this user (SUBSCRIPTIONS_PER_USER)' },
    { cap: caps?.perConversation ?? 0, per: 'for this conversation (SUBSCRIPTIONS_PER_CONVERSATION)' },
  ])

  /**
   * Hands a room's pending signals to its sinks, in order: FAN_OUT_SLICE sinks per event-loop turn, so
   * that thousands of sends never hold off other requests (/healthz) for the whole fan-out, unless the
   * backlog has grown past MOST_PENDING_FOR_SLICING. The next signal waits for this one's last slice: each
   * listener hears them in order, and every sink of a signal gets the same object.
   */
  async function handOut(room: Room): Promise<void> {
    room.handing = true
    try {
      let handed = 0
      for (let signal = room.pending.shift(); signal; signal = room.pending.shift()) {
        for (const each of [...room.sinks]) {
          if (!room.sinks.has(each)) continue
          each(signal)
          if (++handed % FAN_OUT_SLICE === 0 && room.pending.length < MOST_PENDING_FOR_SLICING) {
            await new Promise<void>((resolve) => setImmediate(resolve))
          }
        }
      }
    } finally {
      room.handing = false
    }
  }

  /** Adds a sink to a conversation's room; returns its removal. */
  function join(topic: string, sink: Sink): () => void {
    let room = rooms.get(topic)
    if (!room) {
      room = { sinks: new Set(), pending: [], handing: false }
      rooms.set(topic, room)
    }
    const joined = room
    joined.sinks.add(sink)
    return () => {
      joined.sinks.delete(sink)
      if (joined.sinks.size > 0 || rooms.get(topic) !== joined) return
      rooms.delete(topic)
      joined.pending.length = 0
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
    const room = rooms.get(`${integrationId}/${signal.conversationId}`)
    if (room) {
      room.pending.push(signal)
      if (!room.handing) void handOut(room)
    }
    // Most instances have no agent feed open: no copy of an empty set on every signal.
    if (everyone.size > 0) for (const reader of [...everyone]) reader({ integrationId, signal })
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
    all: () => {
      const reader = (routed: RoutedSignal) => queue.push(routed)
      const queue: SignalQueue<RoutedSignal> = new SignalQueue(
        () => {
          active++
          everyone.add(reader)
        },
        () => {
          everyone.delete(reader)
          active--
        },
      )
      return queue
    },
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
