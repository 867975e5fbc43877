import type { BotHandler } from './handler.ts'

/**
 * The default bot: says back every message (payload and metadata) and every custom event. A web
 * chat's `clientMessageId` marks the user's own message, so the bot's copy never carries it. It
 * answers (rather than calling `reply`) so that its message commits with the delivery it answers.
 */
export const echoBot: BotHandler = ({ event, message }) => {
  if (event.type === 'message' && message) {
    const { clientMessageId: _own, ...metadata } = message.metadata ?? {}
    return { messages: [{ payload: message.payload, metadata: message.metadata ? metadata : undefined }] }
  }
  // A handoff's events (hitl:…) are the bot's news, not the user's.
  if (event.type.startsWith('hitl:')) return {}
  return { events: [{ payload: event.payload }] }
}
