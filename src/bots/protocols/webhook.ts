import { parseBotAnswer } from '../../domain/bots/chat/answers.ts'
import type { BotEvent } from '../../domain/bots/delivery/event.ts'
import type { EventPost } from './protocol.ts'

/**
 * The `webhook` protocol: the spec's event object (with `state`), signed; a 2xx body may be the
 * bot's answer (`{messages?, events?, state?}`), which it may read back as it takes the next event.
 */
export const webhookPost = (event: BotEvent): EventPost => ({
  body: JSON.stringify({ type: event.type, timestamp: event.createdOn.toISOString(), data: event }),
  waitsForBotApiCalls: false,
  readAnswer: parseBotAnswer,
  quotesRefusal: false,
})
