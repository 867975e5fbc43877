import { describe, expect, it } from 'vitest'
import type { BotContext } from '../../src/bots/handler.ts'
import { createTestApp } from '../helpers/app.ts'
import { openInitialize, type Signal } from '../helpers/webchat.ts'

// The bot sees what the official web chat sends as events (conversation_started, custom), through
// the durable delivery; a handler's replies reach the web chat's stream.

describe("bots and the web chat's events", () => {
  it('delivers conversation_started and custom events to the bot, whose reply reaches the stream', async () => {
    const seen: { type: string; payload: unknown }[] = []
    const t = createTestApp({
      handlers: {
        echo: async ({ event, reply }: BotContext) => {
          seen.push({ type: event.type, payload: event.payload })
          if (event.type === 'conversation_started') await reply({ type: 'text', text: 'Welcome!' })
        },
      },
    })
    try {
      const { sse, init, signal: next } = await openInitialize(t)
      const key = init.data.user.userKey as string
      const conversationId = init.data.conversation.id as string
      await t.chat('POST', '/events', { key, body: { conversationId, payload: { type: 'conversation_started', data: {} } } })
      await t.chat('POST', '/events', {
        key,
        body: { conversationId, payload: { type: 'custom', data: { page: '/pricing' } }, bindConversation: true, bindUser: true },
      })
      const heard: Signal[] = []
      while (heard.length < 4) heard.push(await next())
      // The user's own two events, and the bot joining before its welcome (the bot may answer between the two events).
      expect(heard.map((s) => s.type).sort()).toEqual(['event_created', 'event_created', 'message_created', 'participant_added'])
      const welcome = heard.findIndex((s) => s.type === 'message_created')
      expect(heard.findIndex((s) => s.type === 'participant_added')).toBeLessThan(welcome)
      expect(heard[welcome]).toMatchObject({ data: { isBot: true, payload: { type: 'text', text: 'Welcome!' } } })
      await t.app.bots.idle()
      expect(seen).toEqual([
        { type: 'conversation_started', payload: { type: 'conversation_started', data: {} } },
        { type: 'custom', payload: { type: 'custom', data: { page: '/pricing' } } },
      ])
      await sse.cancel()
    } finally {
      await t.close()
    }
  })

  it("shows a handler's typing and its message updates on the web chat's stream", async () => {
    const t = createTestApp({
      handlers: {
        echo: async ({ event, reply, typing, stopTyping, updateMessage }: BotContext) => {
          if (event.type !== 'message') return
          await typing(2000)
          const sent = await reply({ type: 'text', text: 'thinking…' })
          await stopTyping()
          await updateMessage(sent.id, { type: 'text', text: 'done' }, { edited: true })
        },
      },
    })
    try {
      const { sse, init, signal: next } = await openInitialize(t)
      const key = init.data.user.userKey as string
      const conversationId = init.data.conversation.id as string
      await t.chat('POST', '/messages', { key, body: { conversationId, payload: { type: 'text', text: 'hi' } } })
      const heard: Signal[] = []
      while (!heard.some((s) => s.type === 'message_updated')) heard.push(await next())
      const botId = t.tenant!.botId
      expect(heard.map((s) => s.type)).toEqual([
        'message_status_changed',
        'message_created',
        'typing_started',
        'participant_added',
        'message_created',
        'typing_stopped',
        'message_updated',
      ])
      expect(heard[2]?.data).toEqual({ conversationId, userId: botId, timeout: 2000 })
      expect(heard[6]?.data).toMatchObject({ isBot: true, userId: botId, payload: { type: 'text', text: 'done' }, metadata: { edited: true } })
      await sse.cancel()
    } finally {
      await t.close()
    }
  })
})
