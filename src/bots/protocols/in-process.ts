import { performance } from 'node:perf_hooks'
import type { Logger } from 'pino'
import type { Store } from '../../db/store.ts'
import type { PendingDelivery } from '../../domain/bots/delivery/outbox.ts'
import type { BotEvent } from '../../domain/bots/delivery/event.ts'
import { emitAsBot, replyAsBot } from '../../domain/bots/chat/as-bot.ts'
import { type BotState, setBotState, type StateKey } from '../../domain/bots/chat/state.ts'
import type { ChatContext } from '../../domain/context.ts'
import { isGone } from '../../domain/errors.ts'
import { updateMessage } from '../../domain/message-updates.ts'
import { botTyping } from '../../domain/typing.ts'
import type { HandlerOutcome } from './protocol.ts'
import { type BotHandler, toBotCustomEvent, toBotMessage } from '../handler.ts'

class HandlerTimeout extends Error {}

export interface HandlerCall {
  handler: BotHandler
  delivery: PendingDelivery
  event: BotEvent
  state: BotState
  /** The chat context the bot acts in (botChatContext). */
  ctx: ChatContext
  store: Store
  stateKey: StateKey
  log: Logger
  timeoutMs: number
  /**
   * Awaited before each call the handler makes of its API (reply, setState…): the delivery worker
   * settles the attempts of its batch before this one first, so that the handler acts after them
   * as it would have, had each been settled before the next began.
   */
  beforeActing?: () => Promise<void>
}

/**
 * The in-process protocol, for a bot without url: its handler gets the event and the handler API
 * (`reply`, `emit`, `setState`…), whose calls take effect at once and fail once the handler ran
 * past its time. What it returns is its answer, as a webhook's 2xx body is.
 */
export async function callHandler(call: HandlerCall): Promise<HandlerOutcome> {
  const { handler, delivery, event, state, ctx, store, stateKey, log, timeoutMs, beforeActing } = call
  const { target, message } = delivery
  let open = true
  const timedOut = () => Promise.reject(new HandlerTimeout('the handler ran past its time; its answer was dropped'))
  const now = <T>(call: () => Promise<T>): Promise<T> => (open ? call() : timedOut())
  const act = <T>(call: () => Promise<T>): Promise<T> => (beforeActing && open ? beforeActing().then(() => now(call)) : now(call))
  const began = performance.now()
  const took = () => `${Math.round(performance.now() - began)} ms`
  let timer: NodeJS.Timeout | undefined
  try {
    const returned = await Promise.race([
      Promise.resolve().then(() =>
        handler({
          event,
          state,
          message: message && toBotMessage(message),
          reply: (payload, metadata) => act(() => replyAsBot(ctx, event, payload, metadata)).then(toBotMessage),
          emit: (payload) => act(() => emitAsBot(ctx, event, payload)).then(toBotCustomEvent),
          setState: (state) => act(() => setBotState(store, stateKey, state)),
          typing: (timeoutMs) => act(async () => botTyping(ctx, delivery.conversationId, true, timeoutMs)),
          stopTyping: () => act(async () => botTyping(ctx, delivery.conversationId, false)),
          updateMessage: (id, payload, metadata) => act(() => updateMessage({ ctx, id, input: { payload, metadata } })).then(toBotMessage),
          log: log.child({ botId: target.botId, eventId: event.id }),
        }),
      ),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new HandlerTimeout(`bot handler timed out after ${timeoutMs} ms`)), timeoutMs)
      }),
    ])
    open = false
    return { kind: 'done', returned, took: took() }
  } catch (error) {
    // The conversation (or its message) was deleted while the handler ran: nothing is left to answer.
    if (isGone(error)) {
      log.info(
        { botId: target.botId, eventId: event.id, conversationId: event.conversationId, reason: (error as Error).message },
        'bot handler answered what was deleted meanwhile; dropped',
      )
      return { kind: 'done', returned: undefined, took: took() }
    }
    log.error({ err: error, botId: target.botId, eventId: event.id, conversationId: event.conversationId }, 'bot handler failed')
    const reason = error instanceof Error ? error.message : String(error)
    return { kind: 'failed', reason, took: took() }
  } finally {
    open = false
    clearTimeout(timer)
  }
}
