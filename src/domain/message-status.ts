import type { After, Queries } from '../db/store.ts'
import type { PendingDelivery } from './bots/delivery/outbox.ts'
import type { SignalPublisher } from './signals.ts'

/** Where a user's message stands with the bot (the web chat's message statuses). */
export type MessageStatus = 'pending' | 'processing' | 'processed' | 'failed'

/**
 * Inside the unit that settles a delivery: tells the conversation, once it commits, how the bot's
 * handling of a user's message ended: `processed` when its delivery is over, `failed` when it died
 * (it became `processing` when posted: postMessage). Events other than messages have no status.
 */
export async function publishMessageStatus(
  q: Queries,
  after: After,
  signals: SignalPublisher,
  delivery: PendingDelivery,
  change: { oldStatus: MessageStatus; newStatus: MessageStatus; failureReason?: string },
): Promise<void> {
  if (!delivery.messageId) return
  const message = await q.messages.find(delivery.integrationId, delivery.messageId)
  if (!message) return
  after(() =>
    signals.publish(delivery.integrationId, {
      type: 'message_status_changed',
      conversationId: delivery.conversationId,
      message,
      ...change,
    }),
  )
}
