import { Client as ChatClient } from '@botpress/chat'
import { Client } from '@botpress/client'
import { pino } from 'pino'
import { afterEach, expect, it } from 'vitest'
import { type BotHandler, type ConfabServer, createServer } from '../../src/index.ts'
import { eventually } from '../helpers/wait.ts'

// Confab used as a library, as docs/guides/library.md shows it: createServer with a handler of one's own.

let confab: ConfabServer | undefined
afterEach(async () => {
  await confab?.close()
  confab = undefined
})

it('createServer listens with the given handlers; the handler answers through @botpress/chat, with state', async () => {
  const shout: BotHandler = async ({ event, message, state, reply, setState }) => {
    if (event.type !== 'message' || message?.payload.type !== 'text') return
    const count = Number(state.conversation.count ?? 0) + 1
    await setState({ conversation: { count } })
    await reply({ type: 'text', text: `${message.payload.text.toUpperCase()} (${count})` })
  }
  confab = await createServer({
    databaseUrl: ':memory:',
    log: pino({ level: 'silent' }),
    bootstrap: { workspaceId: 'wkspace_lib', adminToken: 'bp_pat_lib_token' },
    handlers: { echo: shout },
  })
  expect(confab.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  expect(confab.created?.workspaceId).toBe('wkspace_lib')

  const admin = new Client({ apiUrl: confab.url, token: 'bp_pat_lib_token', workspaceId: 'wkspace_lib' })
  const { bot } = await admin.createBot({ name: 'Shouter' })
  const chat = await ChatClient.connect({ apiUrl: bot.integrations.chat!.webhookUrl })
  const { conversation } = await chat.createConversation({})
  const botTexts = async () => {
    const { messages } = await chat.listMessages({ conversationId: conversation.id })
    return messages.filter((m) => m.userId === bot.id).map((m) => (m.payload as { text: string }).text)
  }
  await chat.createMessage({ conversationId: conversation.id, payload: { type: 'text', text: 'hi' } })
  await eventually(async () => expect(await botTexts()).toEqual(['HI (1)']))
  await chat.createMessage({ conversationId: conversation.id, payload: { type: 'text', text: 'again' } })
  await eventually(async () => expect((await botTexts()).sort()).toEqual(['AGAIN (2)', 'HI (1)']))
})

it('createServer refuses a port in use, and closes what it opened', async () => {
  confab = await createServer({ databaseUrl: ':memory:', log: pino({ level: 'silent' }) })
  const port = Number(new URL(confab.url).port)
  await expect(createServer({ databaseUrl: ':memory:', port, log: pino({ level: 'silent' }) })).rejects.toThrow(/EADDRINUSE/)
})
