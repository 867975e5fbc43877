import type { Store } from '../../db/store.ts'
import { botpressDelivery } from '../../domain/bots/delivery/botpress-event.ts'
import type { PendingDelivery } from '../../domain/bots/delivery/outbox.ts'
import type { EventPost } from './protocol.ts'

/**
 * The `botpress` protocol, the @botpress/sdk's format: the bot answers 200 once its handlers are
 * done (its bot API calls made meanwhile, which hold the timeout off), or 500 when one threw
 * (retried). Its answer is not read. Undefined when what the event was about is gone.
 */
export async function botpressPost(store: Store, delivery: PendingDelivery): Promise<EventPost | undefined> {
  const made = await botpressDelivery(store, delivery)
  if (!made) return undefined
  return { body: made.body, headers: made.headers, about: made.headers['x-bp-type'], waitsForBotApiCalls: true, quotesRefusal: true }
}
