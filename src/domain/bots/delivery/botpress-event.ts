import type { Store } from '../../../db/store.ts'
import type { PendingDelivery } from './outbox.ts'
import { toRuntimeCustomEvent } from '../../bot-api/chat-messages.ts'
import { botApiConversation, botApiMessage, botApiUser } from '../../bot-api/shapes.ts'

/** What an @botpress/sdk bot is POSTed for one event: its headers (besides the signature's) and body. */
export interface BotpressDelivery {
  headers: Record<string, string>
  body: string
}

/**
 * The delivery in the SDK's format (operation `event_received`): a user's message is a
 * `message_created` event carrying the message, its author and the conversation as the bot API
 * shows them; a custom event is the chat integration's event `chat:custom`, its payload
 * `{userId, conversationId, payload}` (the payload as the user sent it), which `bot.on.event('chat:custom')` gets.
 * Undefined when what it is about is gone (the message, its author or its conversation deleted).
 */
export async function botpressDelivery(store: Store, delivery: PendingDelivery): Promise<BotpressDelivery | undefined> {
  const { event } = delivery
  const botId = delivery.target.botId
  const common = {
    id: event.id,
    createdAt: event.createdOn.toISOString(),
    conversationId: delivery.conversationId,
    userId: delivery.userId,
    status: 'pending',
    failureReason: null,
  }
  let body: Record<string, unknown>
  const { message } = delivery
  if (event.type === 'message' && delivery.messageId !== undefined) {
    const found = await store.read(async (q) => {
      const user = await q.users.find(delivery.integrationId, delivery.userId)
      const conversation = await q.conversations.find(delivery.integrationId, delivery.conversationId)
      return message && user && conversation ? { message, user, conversation } : undefined
    })
    if (!found) return undefined
    body = {
      ...common,
      type: 'message_created',
      messageId: found.message.id,
      payload: {
        message: botApiMessage(found.message, botId),
        user: botApiUser(found.user),
        conversation: botApiConversation(found.conversation, botId),
      },
    }
  } else if (event.type.startsWith('hitl:')) {
    // The hitl interface's events (hitlAssigned, hitlStopped), which `bot.on.event('hitl:hitlAssigned')` gets.
    body = { ...common, type: event.type, payload: event.payload, messageId: null }
  } else {
    const custom = toRuntimeCustomEvent({ userId: delivery.userId, conversationId: delivery.conversationId, payload: event.payload })
    body = { ...common, ...custom, messageId: null }
  }
  return {
    headers: {
      'x-bot-id': botId,
      'x-bot-user-id': botId,
      'x-bp-operation': 'event_received',
      'x-bp-type': String(body.type),
      'x-bp-configuration': Buffer.from('{}').toString('base64'),
    },
    body: JSON.stringify({ event: body }),
  }
}
