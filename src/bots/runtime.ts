import type { Logger } from 'pino'
import type { Store } from '../db/store.ts'
import type { BotDelivery, BotInbox } from '../domain/bot-deliveries.ts'
import { botChatContext, emitAsBot, findBotOfIntegration, replyAsBot } from '../domain/bots.ts'
import type { SignalPublisher } from '../domain/signals.ts'
import { type BotHandler, toBotCustomEvent, toBotMessage } from './handler.ts'

export interface BotRuntime extends BotInbox {
  /** Resolves when every event delivered so far has been handled. */
  idle(): Promise<void>
  /** Takes no more deliveries and waits for the ones under way. */
  stop(): Promise<void>
}

class HandlerTimeout extends Error {}

/**
 * Hands every user message and custom event to the bot of its chat integration. A delivery comes
 * once the unit that recorded the incoming event has committed; the runtime handles one event at
 * a time per conversation so that replies keep the order of what they answer, and a handler that
 * throws or hangs past `timeoutMs` is logged and cut off without touching the user's request.
 * Each reply or emit is one unit of work: the bot joins, posts and records its outgoing event.
 */
export function startBotRuntime({
  store,
  log,
  signals,
  handlers,
  timeoutMs = 10_000,
}: {
  store: Store
  log: Logger
  signals: SignalPublisher
  handlers: Record<string, BotHandler>
  timeoutMs?: number
}): BotRuntime {
  const queues = new Map<string, Promise<void>>()
  let stopped = false

  const enqueue = (key: string, task: () => Promise<void>) => {
    const next = (queues.get(key) ?? Promise.resolve()).then(task)
    queues.set(key, next)
    void next.finally(() => {
      if (queues.get(key) === next) queues.delete(key)
    })
  }

  async function handle({ integrationId, event, message }: BotDelivery) {
    const found = await findBotOfIntegration(store, integrationId)
    if (!found) return
    const { bot, integration } = found
    const handler = handlers[bot.handler]
    if (!handler) {
      log.warn({ botId: bot.id, handler: bot.handler }, 'bot has no known handler; event left unanswered')
      return
    }
    const ctx = botChatContext(store, integration, signals, runtime)
    let open = true
    const act = <T>(answer: () => Promise<T>): Promise<T> =>
      open ? answer() : Promise.reject(new HandlerTimeout('the handler ran past its time; its answer was dropped'))

    let timer: NodeJS.Timeout | undefined
    try {
      await Promise.race([
        Promise.resolve().then(() =>
          handler({
            event,
            message: message && toBotMessage(message),
            reply: (payload, metadata) => act(() => replyAsBot(ctx, event, payload, metadata)).then(toBotMessage),
            emit: (payload) => act(() => emitAsBot(ctx, event, payload)).then(toBotCustomEvent),
            log: log.child({ botId: bot.id, eventId: event.id }),
          }),
        ),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new HandlerTimeout(`bot handler timed out after ${timeoutMs} ms`)), timeoutMs)
        }),
      ])
    } catch (error) {
      log.error({ err: error, botId: bot.id, eventId: event.id, conversationId: event.conversationId }, 'bot handler failed')
    } finally {
      open = false
      clearTimeout(timer)
    }
  }

  const idle = async () => {
    while (queues.size > 0) await Promise.allSettled([...queues.values()])
  }

  const runtime: BotRuntime = {
    deliver(delivery) {
      // After stop, a delivery stays recorded in bot_events; it is not handled by this process.
      if (stopped) return
      enqueue(`${delivery.integrationId}/${delivery.event.conversationId}`, () =>
        handle(delivery).catch((error: unknown) => {
          log.error({ err: error, conversationId: delivery.event.conversationId }, 'bot runtime failed on a delivery')
        }),
      )
    },
    idle,
    async stop() {
      stopped = true
      await idle()
    },
  }
  return runtime
}
