import { Client } from '@botpress/chat'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { adminFetchOn } from '../helpers/admin-fetch.ts'
import { type Listening, recordSignals, startListening } from '../helpers/listening.ts'
import { botWithApiKey, type SdkBot, startSdkBot } from './sdk-bot.ts'

// A real @botpress/sdk 7.2.4 bot (test/bots/sdk-bot/bot.ts) in its own process, pointed at Confab
// with BP_API_URL and BP_TOKEN (a key from createBotApiKey), chatting with a @botpress/chat user.

let confab: Listening
let bot: SdkBot
let botId: string
let apiUrl: string

const admin = adminFetchOn(() => confab)

beforeAll(async () => {
  confab = await startListening({ botRetrySchedule: [0, 0.2, 0.2] })
  const created = await botWithApiKey(confab.baseUrl, 'SDK bot')
  botId = created.botId
  bot = await startSdkBot({ BP_API_URL: confab.baseUrl, BP_TOKEN: created.token })
  const put = await admin('PUT', `/bots/${botId}`, { url: bot.url, protocol: 'botpress' })
  expect(put.status).toBe(200)
  expect(put.body.bot).toMatchObject({ url: bot.url, protocol: 'botpress' })
  apiUrl = put.body.bot.integrations.chat.webhookUrl
}, 60_000)

afterAll(async () => {
  await bot?.stop()
  await confab?.close()
})

async function chatting(conversationId: string) {
  const user = await Client.connect({ apiUrl })
  await user.createConversation({ id: conversationId })
  const listener = await user.listenConversation({ id: conversationId })
  const signals = recordSignals(listener)
  const botTexts = () =>
    signals.received.flatMap((s) => (s.type === 'message_created' && s.data.userId === botId ? [(s.data.payload as { text: string }).text] : []))
  return { user, listener, botTexts }
}

const waitLong = { timeout: 20_000, interval: 50 }

describe('an @botpress/sdk bot on Confab', () => {
  it('echoes over listenConversation with a counter kept in conversation state across messages', async () => {
    const { user, listener, botTexts } = await chatting('sdk-c1')
    await user.createMessage({ conversationId: 'sdk-c1', payload: { type: 'text', text: 'hello' } })
    await vi.waitFor(() => expect(botTexts()).toEqual(['#1: hello']), waitLong)
    await user.createMessage({ conversationId: 'sdk-c1', payload: { type: 'text', text: 'again' } })
    await vi.waitFor(() => expect(botTexts()).toEqual(['#1: hello', '#2: again']), waitLong)
    // The state is the conversation's: a new conversation counts from 1.
    const other = await chatting('sdk-c2')
    await other.user.createMessage({ conversationId: 'sdk-c2', payload: { type: 'text', text: 'elsewhere' } })
    await vi.waitFor(() => expect(other.botTexts()).toEqual(['#1: elsewhere']), waitLong)
    // Chat clients read the bot's reply as a Chat API message.
    const { messages } = await user.listMessages({ conversationId: 'sdk-c1' })
    expect(messages[0]).toMatchObject({ userId: botId, payload: { type: 'text', text: '#2: again' } })
    await listener.disconnect()
    await other.listener.disconnect()
  }, 60_000)

  it("hands a custom event to bot.on.event('chat:custom')", async () => {
    const { user, listener, botTexts } = await chatting('sdk-c3')
    await user.createEvent({ conversationId: 'sdk-c3', payload: { type: 'ping', nonce: 'n1' } })
    await vi.waitFor(() => expect(botTexts()).toEqual(['pong n1']), waitLong)
    await listener.disconnect()
  }, 60_000)

  it('retries a delivery whose handler threw, and logs the failure', async () => {
    const { user, listener, botTexts } = await chatting('sdk-c4')
    const since = new Date().toISOString()
    await user.createMessage({ conversationId: 'sdk-c4', payload: { type: 'text', text: 'fail' } })
    await vi.waitFor(() => expect(botTexts()).toEqual(['#1: fail']), waitLong)
    // The reply is posted while the bot handles the event: its answer (and the log line) come after.
    await vi.waitFor(async () => {
      const logs = await admin('GET', `/bots/${botId}/logs?timeStart=${encodeURIComponent(since)}&conversationId=sdk-c4`)
      const lines = (logs.body.logs as { level: string; message: string }[]).map((l) => `${l.level} ${l.message}`).reverse()
      expect(lines).toEqual([
        expect.stringMatching(
          /^warn POST http:\/\/127\.0\.0\.1:\d+ \(message_created, attempt 1 of 3\): HTTP 500 in \d+ ms: .*"An unexpected error occurred in the bot\."/,
        ),
        expect.stringMatching(/^info POST http:\/\/127\.0\.0\.1:\d+ \(message_created, attempt 2 of 3\): HTTP 200 in \d+ ms$/),
      ])
    }, waitLong)
    await listener.disconnect()
  }, 60_000)
})
