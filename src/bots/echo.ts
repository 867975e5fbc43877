import type { BotHandler } from './handler.ts'

/** The default bot: says back every message (payload and metadata) and every custom event. */
export const echoBot: BotHandler = async ({ event, message, reply, emit }) => {
  if (event.type === 'message' && message) {
    await reply(message.payload, message.metadata ?? undefined)
  } else {
    await emit(event.payload)
  }
}
