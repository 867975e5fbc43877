import { z } from 'zod'
import type { After, Queries } from '../../../db/store.ts'
import type { BotEvent } from '../delivery/event.ts'
import { type BotState, type StateKey, storeBotState } from './state.ts'
import { emitInUnitAsBot, postAsBot } from './as-bot.ts'
import type { ChatContext } from '../../context.ts'
import type { Answer } from '../delivery/settlement.ts'
import { invalidPayload } from '../../errors.ts'
import { checkEvent } from '../../events.ts'
import { checkMessage } from '../../messages.ts'

const object = z.record(z.string(), z.unknown())

/** What a webhook bot may answer in a 2xx body; every part optional. */
const botAnswerSchema = z.object({
  messages: z.array(z.object({ payload: z.unknown(), metadata: object.nullish() })).optional(),
  events: z.array(z.object({ payload: object })).optional(),
  state: z.object({ conversation: object.optional(), user: object.optional(), bot: object.optional() }).optional(),
})

export type BotAnswer = z.infer<typeof botAnswerSchema>

/**
 * A 2xx body as the bot's answer: none when it is empty or not JSON by its content type (a bare
 * "OK" acknowledges), a 400 DomainError when it is JSON but not a valid answer.
 */
export function parseBotAnswer(contentType: string | null, body: string): BotAnswer | undefined {
  if (body.trim() === '' || !/^application\/([\w.+-]+\+)?json\b/i.test(contentType ?? '')) return undefined
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    throw invalidPayload('the answer is not valid JSON')
  }
  return checkBotAnswer(json)
}

/** A value as the bot's answer: none for undefined or null, a 400 DomainError when it is not a valid answer. */
export function checkBotAnswer(value: unknown): BotAnswer | undefined {
  if (value == null) return undefined
  const parsed = botAnswerSchema.safeParse(value)
  if (!parsed.success) throw invalidPayload(`the answer is not {messages?, events?, state?}: ${z.prettifyError(parsed.error)}`)
  return parsed.data
}

/**
 * Inside the unit that settles the delivery: posts the answer's messages and events as the bot (who
 * joins the conversation) and stores its state. Every payload is checked first, so that a bad one
 * refuses the whole answer before anything is written; a failure further in rolls back the unit.
 */
export function answerApplier(ctx: ChatContext, incoming: BotEvent, key: StateKey, answer: BotAnswer, { readsBack }: { readsBack: boolean }): Answer {
  const conversationId = key.conversationId
  const messages = (answer.messages ?? []).map((m) => checkMessage({ conversationId, payload: m.payload, metadata: m.metadata ?? null }))
  const events = (answer.events ?? []).map((e) => checkEvent({ conversationId, payload: e.payload }))
  return {
    async apply(q: Queries, after: After, at: Date) {
      for (const message of messages) await postAsBot(ctx, q, after, incoming, message)
      for (const event of events) await emitInUnitAsBot(ctx, q, after, incoming, event)
      if (answer.state) await storeBotState(q, key, answer.state as Partial<BotState>, at)
    },
    // The next event carries the state; a bot that reads back more (through the chat API) waits for all of it.
    holdsTheNext: readsBack || answer.state !== undefined,
  }
}
