import type { BotHandler } from './handler.ts'

/**
 * The default bot: says back every message (payload and metadata) and every custom event. A web
 * chat's `clientMessageId` marks the user's own message, so the bot's copy never carries it.
 */
export const echoBot: BotHandler = async ({ event, message, reply, emit }) => {
  if (event.type === 'message' && message) {
    const { clientMessageId: _own, ...metadata } = message.metadata ?? {}
    await reply(message.payload, message.metadata ? metadata : undefined)
  } else {
    await emit(event.payload)
  }
}
