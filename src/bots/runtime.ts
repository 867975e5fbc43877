import type { Logger } from 'pino'
import type { Db } from '../db/client.ts'
import type { EventRow, MessageRow } from '../db/schema.ts'
import {
  type BotEvent,
  customEventType,
  incomingCustomEvent,
  incomingMessageEvent,
  previewOf,
} from '../domain/bot-event.ts'
import { botChatContext, findBotOfIntegration, recordBotEvent } from '../domain/bots.ts'
import { createEvent } from '../domain/events.ts'
import { newId } from '../domain/ids.ts'
import { createMessage } from '../domain/messages.ts'
import { joinConversation } from '../domain/participants.ts'
import type { MessagePayload } from '../domain/payloads.ts'
import type { ConversationSignal } from '../domain/signals.ts'
import type { SignalHub } from '../signals/hub.ts'
import type { BotHandler } from './handler.ts'

export interface BotRuntime {
  /** Resolves when every event received so far has been handled. */
  idle(): Promise<void>
  stop(): Promise<void>
}

class HandlerTimeout extends Error {}

/**
 * Hands every user message and custom event to the bot of its chat integration. It runs after the
 * user's write has committed (it hears of it through the signal hub), one event at a time per
 * conversation so that replies keep the order of what they answer, and a handler that throws or
 * hangs past `timeoutMs` is logged and cut off without touching the user's request.
 */
export function startBotRuntime({
  db,
  log,
  signals,
  handlers,
  timeoutMs = 10_000,
}: {
  db: Db
  log: Logger
  signals: SignalHub
  handlers: Record<string, BotHandler>
  timeoutMs?: number
}): BotRuntime {
  const feed = signals.all()
  const queues = new Map<string, Promise<void>>()

  const enqueue = (key: string, task: () => Promise<void>) => {
    const next = (queues.get(key) ?? Promise.resolve()).then(task)
    queues.set(key, next)
    void next.finally(() => {
      if (queues.get(key) === next) queues.delete(key)
    })
  }

  async function handle(integrationId: string, signal: ConversationSignal) {
    if ((signal.type !== 'message_created' && signal.type !== 'event_created') || signal.isBot) return
    const found = findBotOfIntegration(db, integrationId)
    if (!found) return
    const { bot, integration } = found
    const handler = handlers[bot.handler]
    if (!handler) {
      log.warn({ botId: bot.id, handler: bot.handler }, 'bot has no known handler; event left unanswered')
      return
    }
    const event =
      signal.type === 'message_created'
        ? incomingMessageEvent(bot.id, newId(), signal.message)
        : incomingCustomEvent(bot.id, newId(), signal.event)
    recordBotEvent(db, integrationId, event)

    const ctx = botChatContext(db, integration, signals)
    const conversationId = signal.conversationId
    let open = true
    const outgoing = (fields: Pick<BotEvent, 'type' | 'payload' | 'preview' | 'messageId'>) =>
      recordBotEvent(db, integrationId, {
        ...event,
        ...fields,
        id: newId(),
        direction: 'outgoing',
        createdOn: new Date(),
      })
    const act = <T>(write: () => T): Promise<T> => {
      if (!open) return Promise.reject(new HandlerTimeout('the handler ran past its time; its answer was dropped'))
      joinConversation(ctx, conversationId, bot.id)
      return Promise.resolve(write())
    }
    const reply = (payload: Record<string, unknown>, metadata?: Record<string, unknown>) =>
      act((): MessageRow => {
        const message = createMessage({ ctx, input: { conversationId, payload, metadata } })
        outgoing({ type: 'message', payload, preview: previewOf(payload as MessagePayload), messageId: message.id })
        return message
      })
    const emit = (payload: Record<string, unknown>) =>
      act((): EventRow => {
        const created = createEvent({ ctx, input: { conversationId, payload } })
        outgoing({ type: customEventType(payload), payload, preview: JSON.stringify(payload), messageId: undefined })
        return created
      })

    let timer: NodeJS.Timeout | undefined
    try {
      await Promise.race([
        Promise.resolve().then(() =>
          handler({
            event,
            message: signal.type === 'message_created' ? signal.message : undefined,
            reply,
            emit,
            log: log.child({ botId: bot.id, eventId: event.id }),
          }),
        ),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new HandlerTimeout(`bot handler timed out after ${timeoutMs} ms`)), timeoutMs)
        }),
      ])
    } catch (error) {
      log.error({ err: error, botId: bot.id, eventId: event.id, conversationId }, 'bot handler failed')
    } finally {
      open = false
      clearTimeout(timer)
    }
  }

  const loop = (async () => {
    for await (const { integrationId, signal } of feed) {
      enqueue(`${integrationId}/${signal.conversationId}`, () =>
        handle(integrationId, signal).catch((error: unknown) => {
          log.error({ err: error, conversationId: signal.conversationId }, 'bot runtime failed on a signal')
        }),
      )
    }
  })()

  const idle = async () => {
    while (queues.size > 0) await Promise.allSettled([...queues.values()])
  }

  return {
    idle,
    async stop() {
      await feed.return?.(undefined)
      await loop
      await idle()
    },
  }
}
