import { Client as ChatClient } from '@botpress/chat'
import { Client, PayloadTooLargeError, ResourceNotFoundError, UnauthorizedError } from '@botpress/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BotContext } from '../../src/bots/handler.ts'
import { iso } from '../helpers/app.ts'
import { aliceC1 } from '../helpers/bot-events.ts'
import { type Listening, recordSignals, startListening } from '../helpers/listening.ts'
import { adminClient } from '../bots/sdk-bot.ts'
import { eventually } from '../helpers/wait.ts'

// Every runtime operation (/v1/chat/…) through @botpress/client as a bot calls it: a bot API key
// from createBotApiKey, x-bot-id, acting within the bot's own chat integration.

let confab: Listening
let botId: string
let key: string
let bot: Client
let alice: Awaited<ReturnType<typeof ChatClient.connect>>
let otherBotConversation: string

beforeAll(async () => {
  confab = await startListening({ handlers: {} })
  botId = confab.botId
  const admin = adminClient(confab.baseUrl)
  ;({ value: key } = await admin.createBotApiKey({ botId, note: 'runtime test' }))
  bot = new Client({ apiUrl: confab.baseUrl, token: key, botId, retry: { retries: 0 } })
  alice = await ChatClient.connect({ apiUrl: confab.apiUrl, userId: 'alice' })
  await alice.createConversation({ id: 'c1' })
  // Another bot, with a conversation in its own integration.
  const { bot: other } = await admin.createBot({ name: 'other' })
  const otherChat = await ChatClient.connect({ apiUrl: `${confab.baseUrl}/${await webhookIdOf(other.id)}`, userId: 'bob' })
  otherBotConversation = (await otherChat.createConversation({ id: 'theirs' })).conversation.id
}, 60_000)

afterAll(async () => {
  await confab?.close()
})

async function webhookIdOf(id: string): Promise<string> {
  const { bot } = (await adminClient(confab.baseUrl).getBot({ id })) as unknown as {
    bot: { integrations: { chat: { webhookId: string } } }
  }
  return bot.integrations.chat.webhookId
}

describe('runtime API through @botpress/client', () => {
  it('getConversation answers the conversation of the bot’s integration, with the chat integration’s tags', async () => {
    const { conversation } = await bot.getConversation({ id: 'c1' })
    expect(conversation).toEqual(aliceC1(iso))
  })

  it('createMessage as the bot stores a Chat API payload; chat clients read it, runtime clients read type beside payload', async () => {
    const { message } = await bot.createMessage({
      conversationId: 'c1',
      userId: botId,
      type: 'text',
      payload: { text: 'hi from the bot' },
      tags: {},
    })
    expect(message).toEqual({
      id: expect.any(String),
      createdAt: iso,
      updatedAt: iso,
      type: 'text',
      payload: { text: 'hi from the bot' },
      direction: 'outgoing',
      userId: botId,
      conversationId: 'c1',
      tags: {},
    })
    const { messages } = await alice.listMessages({ conversationId: 'c1' })
    expect(messages[0]).toMatchObject({ id: message.id, userId: botId, payload: { type: 'text', text: 'hi from the bot' } })
    expect((await bot.getMessage({ id: message.id })).message).toEqual(message)
    const listed = await bot.listMessages({ conversationId: 'c1' })
    expect(listed.messages.map((m) => m.id)).toContain(message.id)
    await bot.deleteMessage({ id: message.id })
    await expect(bot.getMessage({ id: message.id })).rejects.toBeInstanceOf(ResourceNotFoundError)
  })

  it('createMessage as a user of the integration is that user’s (incoming) message', async () => {
    const { message } = await bot.createMessage({ conversationId: 'c1', userId: 'alice', type: 'text', payload: { text: 'as alice' }, tags: {} })
    expect(message).toMatchObject({ userId: 'alice', direction: 'incoming' })
  })

  it('conversations: create and getOrCreate (id from tags.id) are the bot’s; list has those it participates in', async () => {
    const { conversation } = await bot.createConversation({ channel: 'channel', tags: { id: 'bot-made' } })
    expect(conversation).toMatchObject({ id: 'bot-made', integration: 'chat' })
    await expect(bot.createConversation({ channel: 'channel', tags: { id: 'bot-made' } })).rejects.toMatchObject({ code: 409, type: 'AlreadyExists' })
    expect((await bot.getOrCreateConversation({ channel: 'channel', tags: { id: 'bot-made' } })).conversation.id).toBe('bot-made')
    const generated = (await bot.getOrCreateConversation({ channel: 'channel', tags: {} })).conversation.id
    expect(generated).toMatch(/^[A-Za-z0-9._:-]{1,64}$/)
    const { conversations } = await bot.listConversations({})
    expect(conversations.map((c) => c.id)).toEqual(expect.arrayContaining(['bot-made', generated]))
    expect(conversations.map((c) => c.id)).not.toContain(otherBotConversation)
    // a user can be added to the bot's conversation and read it through @botpress/chat
    await bot.addParticipant({ id: 'bot-made', userId: 'alice' })
    expect((await alice.getConversation({ id: 'bot-made' })).conversation.id).toBe('bot-made')
  })

  it('users: create and getOrCreate (id from tags.id)', async () => {
    const { user } = await bot.createUser({ tags: { id: 'dave' }, name: 'Dave' })
    expect(user).toMatchObject({ id: 'dave', name: 'Dave', tags: {} })
    await expect(bot.createUser({ tags: { id: 'dave' } })).rejects.toMatchObject({ code: 409, type: 'AlreadyExists' })
    expect((await bot.getOrCreateUser({ tags: { id: 'dave' }, name: 'ignored' })).user).toMatchObject({ id: 'dave', name: 'Dave' })
  })

  it('updateMessage replaces the payload and keeps its type', async () => {
    const { message } = await bot.createMessage({ conversationId: 'c1', userId: botId, type: 'text', payload: { text: 'draft' }, tags: {} })
    const { message: updated } = await bot.updateMessage({ id: message.id, tags: {}, payload: { text: 'final' } })
    expect(updated).toMatchObject({ id: message.id, type: 'text', payload: { text: 'final' } })
    expect((await alice.getMessage({ id: message.id })).message.payload).toEqual({ type: 'text', text: 'final' })
    // The metadata is in the runtime payload: replacing the payload replaces it.
    await bot.updateMessage({ id: message.id, tags: {}, payload: { text: 'final', metadata: { edited: true } } })
    expect((await alice.getMessage({ id: message.id })).message).toMatchObject({ payload: { type: 'text', text: 'final' }, metadata: { edited: true } })
    expect((await bot.getMessage({ id: message.id })).message.payload).toEqual({ text: 'final', metadata: { edited: true } })
  })

  it('users: get and update', async () => {
    expect((await bot.getUser({ id: 'alice' })).user).toMatchObject({ id: 'alice', createdAt: iso, tags: {} })
    const { user } = await bot.updateUser({ id: 'alice', name: 'Alice' })
    expect(user).toMatchObject({ id: 'alice', name: 'Alice' })
  })

  it('participants: add, list, remove', async () => {
    await ChatClient.connect({ apiUrl: confab.apiUrl, userId: 'carol' })
    const { participant } = await bot.addParticipant({ id: 'c1', userId: 'carol' })
    expect(participant).toMatchObject({ id: 'carol' })
    expect((await bot.listParticipants({ id: 'c1' })).participants.map((p) => p.id)).toEqual(expect.arrayContaining(['alice', 'carol']))
    await bot.removeParticipant({ id: 'c1', userId: 'carol' })
    expect((await bot.listParticipants({ id: 'c1' })).participants.map((p) => p.id)).not.toContain('carol')
  })

  it('events: create (its payload carries its type) and get', async () => {
    const { event } = await bot.createEvent({ type: 'ping', conversationId: 'c1', payload: { nonce: 'x' } })
    expect(event).toMatchObject({ id: expect.any(String), type: 'ping', payload: { type: 'ping', nonce: 'x' }, conversationId: 'c1', userId: botId })
    expect((await bot.getEvent({ id: event.id })).event).toMatchObject({ id: event.id, type: 'ping' })
  })

  it('callAction chat:sendEvent: an event of the bot in the conversation, its payload as given; answers {output: {}, meta}', async () => {
    const listener = await alice.listenConversation({ id: 'c1' })
    const { received } = recordSignals(listener)
    const answer = await bot.callAction({ type: 'chat:sendEvent', input: { conversationId: 'c1', payload: { hello: 'world' } } })
    expect(answer).toEqual({ output: {}, meta: { cached: false } })
    await eventually(() =>
      expect(received.filter((s) => s.type === 'event_created')).toEqual([
        {
          type: 'event_created',
          data: { id: expect.any(String), createdAt: iso, conversationId: 'c1', userId: botId, payload: { hello: 'world' }, isBot: true },
        },
      ]),
    )
    await listener.disconnect()
  })

  it('states: an unset state is 404; set, getOrSet, patch (shallow merge) and delete', async () => {
    const at = { type: 'conversation', id: 'c1', name: 'counter' } as const
    await expect(bot.getState(at)).rejects.toBeInstanceOf(ResourceNotFoundError)
    const first = await bot.getOrSetState({ ...at, payload: { count: 0, keep: true } })
    expect(first).toMatchObject({
      state: { name: 'counter', type: 'conversation', conversationId: 'c1', botId, payload: { count: 0, keep: true } },
      meta: { cached: false },
    })
    await bot.setState({ ...at, payload: { count: 1, keep: true } })
    expect(await bot.getOrSetState({ ...at, payload: { count: 0 } })).toMatchObject({ state: { payload: { count: 1, keep: true } }, meta: { cached: true } })
    expect((await bot.patchState({ ...at, payload: { count: 2 } })).state.payload).toEqual({ count: 2, keep: true })
    expect((await bot.getState(at)).state.payload).toEqual({ count: 2, keep: true })
    const deleted = await fetch(`${confab.baseUrl}/v1/chat/states/conversation/c1/counter`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}`, 'x-bot-id': botId },
    })
    expect(deleted.status).toBe(200)
    await expect(bot.getState(at)).rejects.toBeInstanceOf(ResourceNotFoundError)
    await expect(bot.patchState({ ...at, payload: { count: 3 } })).rejects.toBeInstanceOf(ResourceNotFoundError)
    // user and bot states; a bot state is the bot's own only
    await bot.setState({ type: 'user', id: 'alice', name: 'prefs', payload: { lang: 'fr' } })
    expect((await bot.getState({ type: 'user', id: 'alice', name: 'prefs' })).state).toMatchObject({ userId: 'alice', payload: { lang: 'fr' } })
    await bot.setState({ type: 'bot', id: botId, name: 'config', payload: { on: true } })
    expect((await bot.getState({ type: 'bot', id: botId, name: 'config' })).state.payload).toEqual({ on: true })
    await expect(bot.getState({ type: 'bot', id: 'someone-else', name: 'config' })).rejects.toBeInstanceOf(ResourceNotFoundError)
  })

  it('another bot’s conversation is not found', async () => {
    await expect(bot.getConversation({ id: otherBotConversation })).rejects.toBeInstanceOf(ResourceNotFoundError)
    await expect(
      bot.createMessage({ conversationId: otherBotConversation, userId: botId, type: 'text', payload: { text: 'x' }, tags: {} }),
    ).rejects.toBeInstanceOf(ResourceNotFoundError)
  })

  it('a wrong key, a key of another bot and a deleted key are Unauthorized', async () => {
    const wrong = new Client({ apiUrl: confab.baseUrl, token: 'bak_wrong', botId, retry: { retries: 0 } })
    await expect(wrong.getConversation({ id: 'c1' })).rejects.toBeInstanceOf(UnauthorizedError)
    const admin = adminClient(confab.baseUrl)
    const { bot: other } = await admin.createBot({ name: 'third' })
    const otherKey = await admin.createBotApiKey({ botId: other.id })
    const mismatched = new Client({ apiUrl: confab.baseUrl, token: otherKey.value, botId, retry: { retries: 0 } })
    await expect(mismatched.getConversation({ id: 'c1' })).rejects.toBeInstanceOf(UnauthorizedError)
    const temporary = await admin.createBotApiKey({ botId })
    const client = new Client({ apiUrl: confab.baseUrl, token: temporary.value, botId, retry: { retries: 0 } })
    await client.getConversation({ id: 'c1' })
    await admin.deleteBotApiKey({ id: temporary.id })
    await expect(client.getConversation({ id: 'c1' })).rejects.toBeInstanceOf(UnauthorizedError)
  })

  it('the Runtime limit: a body of exactly 1 MB is taken, 1 MB + 1 byte is PayloadTooLarge', async () => {
    const sized = (size: number) => {
      const head = `{"conversationId":"c1","userId":"${botId}","type":"text","tags":{},"payload":{"text":"`
      const tail = '"}}'
      return head + 'y'.repeat(size - head.length - tail.length) + tail
    }
    const post = (body: string) =>
      fetch(`${confab.baseUrl}/v1/chat/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'x-bot-id': botId, 'content-type': 'application/json' },
        body,
      })
    expect((await post(sized(1024 * 1024))).status).toBe(200)
    const refused = await post(sized(1024 * 1024 + 1))
    expect(refused.status).toBe(413)
    expect(await refused.json()).toMatchObject({ code: 413, type: 'PayloadTooLarge' })
  })

  it('the client’s PayloadTooLargeError for a larger message', async () => {
    const text = 'x'.repeat(1024 * 1024)
    await expect(bot.createMessage({ conversationId: 'c1', userId: botId, type: 'text', payload: { text }, tags: {} })).rejects.toBeInstanceOf(
      PayloadTooLargeError,
    )
  })
})

describe('runtime states and event.state', () => {
  it('are one store: a state set through the runtime API is the event.state of the next event, and the other way round', async () => {
    const seen: BotContext['state'][] = []
    const app = await startListening({
      handlers: {
        echo: async ({ state, setState }) => {
          seen.push(state)
          await setState({ user: { ...state.user, visits: 1 } })
        },
      },
    })
    try {
      const admin = adminClient(app.baseUrl)
      const { value } = await admin.createBotApiKey({ botId: app.botId })
      const client = new Client({ apiUrl: app.baseUrl, token: value, botId: app.botId, retry: { retries: 0 } })
      const user = await ChatClient.connect({ apiUrl: app.apiUrl, userId: 'erin' })
      await user.createConversation({ id: 'shared' })
      await client.setState({ type: 'conversation', id: 'shared', name: 'counter', payload: { count: 41 } })
      await user.createMessage({ conversationId: 'shared', payload: { type: 'text', text: 'hi' } })
      await eventually(() => expect(seen).toHaveLength(1))
      expect(seen[0]).toEqual({ conversation: { counter: { count: 41 } }, user: {}, bot: {} })
      await eventually(async () => expect((await client.getState({ type: 'user', id: 'erin', name: 'visits' })).state.payload).toBe(1))
    } finally {
      await app.close()
    }
  })
})
