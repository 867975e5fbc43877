import { Client } from '@botpress/chat'
import { Client as RuntimeClient } from '@botpress/client'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { adminFetch } from '../helpers/admin-fetch.ts'
import { type Listening, recordSignals, startListening } from '../helpers/listening.ts'
import { botWithApiKey, type SdkBot, startSdkBot } from './sdk-bot.ts'

// A stock @botpress/sdk bot written for Botpress' chat integration (test/bots/chat-bot/bot.ts, the
// echo bot's behaviour) in its own process, chatted with through @botpress/chat: every message kind
// goes to the bot and back (metadata included), a custom event comes back through chat:sendEvent,
// and the bot reads the integration's tags.

let confab: Listening
let bot: SdkBot
let botId: string
let apiUrl: string
let runtime: RuntimeClient

beforeAll(async () => {
  confab = await startListening({ botRetrySchedule: [0, 0.2, 0.2] })
  const created = await botWithApiKey(confab.baseUrl, 'Chat integration bot')
  botId = created.botId
  runtime = new RuntimeClient({ apiUrl: confab.baseUrl, token: created.token, botId, retry: { retries: 0 } })
  bot = await startSdkBot({ BP_API_URL: confab.baseUrl, BP_TOKEN: created.token }, 'test/bots/chat-bot/bot.ts')
  const put = await adminFetch(confab.baseUrl, 'PUT', `/bots/${botId}`, { url: bot.url, protocol: 'botpress' })
  expect(put.status).toBe(200)
  apiUrl = put.body.bot.integrations.chat.webhookUrl
}, 60_000)

afterAll(async () => {
  await bot?.stop()
  await confab?.close()
})

const waitLong = { timeout: 20_000, interval: 50 }

/** A user (its id chosen, with a profile) in a conversation of its own, listening to it. */
async function chatting(userId: string, conversationId: string) {
  const { key } = await new Client({ apiUrl }).createUser({ id: userId, profile: `{"plan":"${userId}"}` })
  const user = await Client.connect({ apiUrl, userKey: key })
  await user.createConversation({ id: conversationId })
  const listener = await user.listenConversation({ id: conversationId })
  const signals = recordSignals(listener)
  const fromBot = <T extends 'message_created' | 'event_created'>(type: T) =>
    signals.received.flatMap((s) => (s.type === type && s.data.userId === botId ? [s.data as Extract<typeof s, { type: T }>['data']] : []))
  return { user, listener, fromBot }
}

const card = {
  type: 'card',
  title: 'A card',
  subtitle: 'with a subtitle',
  imageUrl: 'https://files.test/card.png',
  actions: [
    { action: 'url', label: 'Open', value: 'https://files.test' },
    { action: 'say', label: 'Say', value: 'hello' },
  ],
}
const options = [
  { label: 'One', value: '1' },
  { label: 'Two', value: '2' },
]

/** One payload of every kind the chat integration carries. */
const payloads = [
  { type: 'text', text: 'hello' },
  { type: 'markdown', markdown: '# Title' },
  { type: 'image', imageUrl: 'https://files.test/a.png' },
  { type: 'audio', audioUrl: 'https://files.test/a.mp3' },
  { type: 'video', videoUrl: 'https://files.test/a.mp4' },
  { type: 'file', fileUrl: 'https://files.test/a.pdf', title: 'A file' },
  { type: 'location', latitude: 45.5, longitude: -73.6, address: '1 Main St', title: 'Home' },
  card,
  { type: 'carousel', items: [card, { ...card, title: 'Another card' }] },
  { type: 'choice', text: 'Pick one', options },
  { type: 'dropdown', text: 'Pick from the list', options },
  {
    type: 'bloc',
    items: [
      { type: 'text', text: 'first' },
      { type: 'image', imageUrl: 'https://files.test/b.png' },
      { type: 'location', latitude: 1, longitude: 2 },
    ],
  },
]

describe('a Botpress bot written for the chat integration, on Confab', () => {
  it('answers every message kind with the same message, with and without metadata, as the chat client sent it', async () => {
    const { user, listener, fromBot } = await chatting('ana', 'kinds')
    const sent: { payload: Record<string, unknown>; metadata?: Record<string, unknown> }[] = []
    for (const [i, payload] of payloads.entries()) {
      for (const metadata of [undefined, { n: i, nested: { kind: payload.type } }]) {
        await user.createMessage({ conversationId: 'kinds', payload: payload as never, ...(metadata ? { metadata } : {}) })
        sent.push(metadata ? { payload, metadata } : { payload })
      }
    }
    await vi.waitFor(() => expect(fromBot('message_created')).toHaveLength(sent.length), waitLong)
    // The message_created signals: the payload as sent, the metadata as the message's (none when none was sent).
    expect(fromBot('message_created').map(({ payload, metadata }) => (metadata ? { payload, metadata } : { payload }))).toEqual(sent)
    // Chat clients read the same messages (newest first, a page at a time).
    const messages = []
    let nextToken: string | undefined
    do {
      const page = await user.listMessages({ conversationId: 'kinds', nextToken })
      messages.push(...page.messages)
      nextToken = page.meta.nextToken
    } while (nextToken)
    const answers = messages.filter((m) => m.userId === botId).reverse()
    expect(answers.map(({ payload, metadata }) => (metadata ? { payload, metadata } : { payload }))).toEqual(sent)
    await listener.disconnect()
  }, 60_000)

  it('reads the runtime shapes: metadata inside the payload, bloc items as {type, payload}', async () => {
    const { user, listener, fromBot } = await chatting('ben', 'shapes')
    await user.createMessage({ conversationId: 'shapes', payload: { type: 'text', text: 'hi' }, metadata: { a: 1 } })
    await user.createMessage({ conversationId: 'shapes', payload: payloads.at(-1) as never })
    await vi.waitFor(() => expect(fromBot('message_created')).toHaveLength(2), waitLong)
    const { messages } = await runtime.listMessages({ conversationId: 'shapes' })
    const fromUser = messages.filter((m) => m.userId === 'ben').reverse()
    expect(fromUser.map(({ type, payload, direction }) => ({ type, payload, direction }))).toEqual([
      { type: 'text', payload: { text: 'hi', metadata: { a: 1 } }, direction: 'incoming' },
      {
        type: 'bloc',
        payload: {
          type: 'bloc',
          items: [
            { type: 'text', payload: { text: 'first' } },
            { type: 'image', payload: { imageUrl: 'https://files.test/b.png' } },
            { type: 'location', payload: { latitude: 1, longitude: 2 } },
          ],
        },
        direction: 'incoming',
      },
    ])
    await listener.disconnect()
  }, 60_000)

  it('sends its own bloc, written in the SDK shape, which reaches the chat client flattened, its metadata the message’s', async () => {
    const { user, listener, fromBot } = await chatting('cleo', 'bloc')
    await user.createMessage({ conversationId: 'bloc', payload: { type: 'text', text: 'bloc' } })
    await vi.waitFor(() => expect(fromBot('message_created')).toHaveLength(1), waitLong)
    const [answer] = fromBot('message_created')
    expect(answer).toMatchObject({
      isBot: true,
      payload: {
        type: 'bloc',
        items: [
          { type: 'text', text: 'Hello, world!' },
          { type: 'image', imageUrl: 'https://files.test/steak.jpg' },
          { type: 'markdown', markdown: '**bold**' },
        ],
      },
      metadata: { from: 'the bot' },
    })
    expect(answer!.payload).not.toHaveProperty('metadata')
    await listener.disconnect()
  }, 60_000)

  it('answers a custom event through chat:sendEvent: an event_created from the bot with the payload as given', async () => {
    const { user, listener, fromBot } = await chatting('dan', 'custom')
    const { event } = await user.createEvent({ conversationId: 'custom', payload: { foo: 'bar' } })
    expect(event).toMatchObject({ conversationId: 'custom', userId: 'dan', payload: { foo: 'bar' } })
    await vi.waitFor(() => expect(fromBot('event_created')).toHaveLength(1), waitLong)
    // The bot hands chat:sendEvent the whole chat:custom payload ({userId, conversationId, payload}):
    // the action reads its conversationId and payload, and drops the userId it does not take.
    expect(fromBot('event_created')[0]).toEqual({
      id: expect.any(String),
      createdAt: expect.any(String),
      conversationId: 'custom',
      userId: botId,
      payload: { foo: 'bar' },
      isBot: true,
    })
    await listener.disconnect()
  }, 60_000)

  it('reads the integration’s tags of its user and conversation, which the Chat API does not show', async () => {
    const { user, listener, fromBot } = await chatting('eve', 'tags')
    await user.createMessage({ conversationId: 'tags', payload: { type: 'text', text: 'tags' } })
    await vi.waitFor(() => expect(fromBot('message_created')).toHaveLength(1), waitLong)
    const tags = {
      user: { 'chat:fid': 'eve', 'chat:profile': '{"plan":"eve"}' },
      conversation: { 'chat:owner': 'eve', 'chat:fid': 'tags' },
    }
    expect(JSON.parse(String(fromBot('message_created')[0]!.payload.text))).toEqual({ read: tags, delivered: tags })
    const { participants } = await runtime.listParticipants({ id: 'tags' })
    expect(participants.find((p) => p.id === 'eve')?.tags).toEqual(tags.user)
    // A user and a conversation whose ids were generated have no fid; getOrCreate sets none either.
    const anonymous = await Client.connect({ apiUrl })
    const { conversation } = await anonymous.createConversation({})
    expect((await runtime.getUser({ id: anonymous.user.id })).user.tags).toEqual({})
    expect((await runtime.getConversation({ id: conversation.id })).conversation.tags).toEqual({ 'chat:owner': anonymous.user.id })
    await anonymous.getOrCreateConversation({ id: 'got' })
    expect((await runtime.getConversation({ id: 'got' })).conversation.tags).toEqual({ 'chat:owner': anonymous.user.id })
    // The Chat API shows its own fields only.
    expect((await user.getUser({})).user).toEqual({
      id: 'eve',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      profile: '{"plan":"eve"}',
    })
    expect((await user.getConversation({ id: 'tags' })).conversation).toEqual({
      id: 'tags',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    await listener.disconnect()
  }, 60_000)
})
