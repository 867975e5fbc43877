import type { MessageRow } from '../db/schema.ts'
import type { After, Queries } from '../db/store.ts'
import type { PendingDelivery } from './bots/delivery/outbox.ts'
import type { SignalPublisher } from './signals.ts'

/** Where a user's message stands with the bot (the web chat's message statuses). */
export type MessageStatus = 'pending' | 'processing' | 'processed' | 'failed'

export interface StatusChange {
  oldStatus: MessageStatus
  newStatus: MessageStatus
  failureReason?: string
}

/**
 * Inside the unit that settles deliveries: tells the conversation, once it commits, how the bot's
 * handling of each user's message ended: `processed` when its delivery is over, `failed` when it
 * died (it became `processing` when posted: postMessage). Events other than messages have no
 * status. Each change is told in its place among the unit's other effects, with its message as the
 * unit leaves it, read for all of them at once by `read` (none for a message deleted meanwhile).
 */
export function messageStatuses(q: Queries, after: After, signals: SignalPublisher) {
  const wanted = new Map<string, string[]>()
  const found = new Map<string, MessageRow>()
  return {
    change(delivery: PendingDelivery, change: StatusChange): void {
      const { integrationId, conversationId, messageId } = delivery
      if (!messageId) return
      wanted.set(integrationId, [...(wanted.get(integrationId) ?? []), messageId])
      after(() => {
        const message = found.get(`${integrationId}/${messageId}`)
        if (message) signals.publish(integrationId, { type: 'message_status_changed', conversationId, message, ...change })
      })
    },
    /** Reads the messages of the changes told so far: before the unit ends. */
    async read(): Promise<void> {
      for (const [integrationId, ids] of wanted) {
        for (const message of await q.messages.findMany(integrationId, ids)) found.set(`${integrationId}/${message.id}`, message)
      }
      wanted.clear()
    },
  }
}
