import { Client as ChatClient } from '@botpress/chat'
import { AlreadyExistsError, Client, InvalidPayloadError, ResourceNotFoundError } from '@botpress/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminClient } from '../bots/sdk-bot.ts'
import { iso } from '../helpers/app.ts'
import { type Listening, recordSignals, startListening } from '../helpers/listening.ts'
import { eventually } from '../helpers/wait.ts'

// The runtime operations of issue 51 through @botpress/client, as a bot calls them: each within the
// bot's own chat integration (another bot's conversations and users are not found), lists paged by
// nextToken, deletions through the same erasure as the Chat and admin APIs (listeners told).

let confab: Listening
let botId: string
let key: string
let bot: Client
let alice: Awaited<ReturnType<typeof ChatClient.connect>>
let theirs: { conversationId: string; userId: string }
let otherBotId: string

beforeAll(async () => {
  confab = await startListening({ handlers: {} })
  botId = confab.botId
  const admin = adminClient(confab.baseUrl)
  ;({ value: key } = await admin.createBotApiKey({ botId, note: 'issue 51' }))
  bot = new Client({ apiUrl: confab.baseUrl, token: key, botId, retry: { retries: 0 } })
  alice = await ChatClient.connect({ apiUrl: confab.apiUrl, userId: 'alice' })
  await ChatClient.connect({ apiUrl: confab.apiUrl, userId: 'bob' })
  await alice.createConversation({ id: 'c1' })
  await alice.addParticipant({ conversationId: 'c1', userId: 'bob' })
  // Another bot, with a conversation and a user of its own integration.
  const { bot: other } = await admin.createBot({ name: 'other' })
  otherBotId = other.id
  const { bot: withIntegration } = (await admin.getBot({ id: other.id })) as unknown as { bot: { integrations: { chat: { webhookId: string } } } }
  const stranger = await ChatClient.connect({ apiUrl: `${confab.baseUrl}/${withIntegration.integrations.chat.webhookId}`, userId: 'stranger' })
  theirs = { conversationId: (await stranger.createConversation({ id: 'theirs' })).conversation.id, userId: 'stranger' }
}, 60_000)

afterAll(async () => {
  await confab?.close()
})

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${confab.baseUrl}/v1/chat${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'x-bot-id': botId, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  return { status: res.status, body: await res.json() }
}

const invalid = (message: string) => ({ status: 400, body: { code: 400, type: 'InvalidPayload', message, id: expect.any(String) } })

describe('updateConversation', () => {
  it('stores the tags a bot sets (null or empty removes one) and answers them beside the integration’s own', async () => {
    const { conversation } = await bot.updateConversation({ id: 'c1', tags: { topic: 'billing', priority: 'high', old: null } })
    expect(conversation).toEqual({
      id: 'c1',
      createdAt: iso,
      updatedAt: iso,
      channel: 'channel',
      integration: 'chat',
      tags: { topic: 'billing', priority: 'high', 'chat:owner': 'alice', 'chat:fid': 'c1' },
    })
    expect((await bot.getConversation({ id: 'c1' })).conversation).toEqual(conversation)
    const { conversation: changed } = await bot.updateConversation({ id: 'c1', tags: { priority: '', topic: 'refund' } })
    expect(changed.tags).toEqual({ topic: 'refund', 'chat:owner': 'alice', 'chat:fid': 'c1' })
    // listConversations lists the bot's own conversations, each with its tags.
    await bot.createConversation({ channel: 'channel', tags: { id: 'listed' } })
    await bot.updateConversation({ id: 'listed', tags: { topic: 'sales' } })
    const listed = (await bot.listConversations({})).conversations.find((c) => c.id === 'listed')
    expect(listed?.tags).toEqual({ topic: 'sales' })
    expect(await call('PUT', '/conversations/c1', { tags: { topic: 3 } })).toMatchObject(invalid('tags.topic must be a string or null'))
    expect(await call('PUT', '/conversations/c1', { tags: { 'chat:owner': 'mallory' } })).toMatchObject(
      invalid("tags.chat:owner is the chat integration's own tag, which a bot does not set"),
    )
    expect(await call('PUT', '/conversations/c1', { tags: { topic: 'x'.repeat(1001) } })).toMatchObject(
      invalid('tags.topic must be at most 1000 characters, got 1001'),
    )
    expect(await call('PUT', '/conversations/c1', { title: 'x' })).toMatchObject(
      invalid('the request has a property "title" that this operation does not take'),
    )
    // Nothing refused changed a tag.
    expect((await bot.getConversation({ id: 'c1' })).conversation.tags).toEqual(changed.tags)
  })

  it('keeps at most 50 tags a bot sets on a conversation (400 past it, nothing changed)', async () => {
    await bot.createConversation({ channel: 'channel', tags: { id: 'crowded' } })
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`t${i}`, 'v']))
    expect(Object.keys((await bot.updateConversation({ id: 'crowded', tags: many })).conversation.tags)).toHaveLength(50)
    expect(await call('PUT', '/conversations/crowded', { tags: { one: 'more' } })).toMatchObject(
      invalid('a conversation keeps at most 50 tags a bot sets; this would make 51'),
    )
    expect((await bot.getConversation({ id: 'crowded' })).conversation.tags).not.toHaveProperty('one')
  })

  it('is 404 for a conversation of another bot', async () => {
    await expect(bot.updateConversation({ id: theirs.conversationId, tags: {} })).rejects.toBeInstanceOf(ResourceNotFoundError)
    await expect(bot.updateConversation({ id: theirs.conversationId, tags: { topic: 'x' } })).rejects.toBeInstanceOf(ResourceNotFoundError)
  })
})

describe('getParticipant', () => {
  it('answers a participant as a user; a user who does not participate is 404', async () => {
    const { participant } = await bot.getParticipant({ id: 'c1', userId: 'bob' })
    expect(participant).toEqual({ id: 'bob', createdAt: iso, updatedAt: iso, tags: { 'chat:fid': 'bob' } })
    await ChatClient.connect({ apiUrl: confab.apiUrl, userId: 'carol' })
    await expect(bot.getParticipant({ id: 'c1', userId: 'carol' })).rejects.toMatchObject({ code: 404, type: 'ResourceNotFound' })
    await expect(bot.getParticipant({ id: theirs.conversationId, userId: theirs.userId })).rejects.toBeInstanceOf(ResourceNotFoundError)
  })
})

describe('listUsers', () => {
  it('lists the users of the bot’s integration (not the bot, not another bot’s), newest first, 20 a page', async () => {
    for (let i = 0; i < 22; i++) await bot.createUser({ tags: { id: `paged-${String(i).padStart(2, '0')}` } })
    const ids: string[] = []
    let nextToken: string | undefined
    let pages = 0
    do {
      const page = await bot.listUsers({ ...(nextToken ? { nextToken } : {}) })
      ids.push(...page.users.map((u) => u.id))
      nextToken = page.meta.nextToken
      pages++
    } while (nextToken)
    expect(pages).toBeGreaterThanOrEqual(2)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toEqual(expect.arrayContaining(['alice', 'bob', 'paged-00', 'paged-21']))
    expect(ids).not.toContain(botId)
    expect(ids).not.toContain(theirs.userId)
    expect(ids.indexOf('paged-21')).toBeLessThan(ids.indexOf('paged-00'))
  })

  it('with conversationId: its participants; with tags: those whose tag has the value', async () => {
    expect((await bot.listUsers({ conversationId: 'c1' })).users.map((u) => u.id).sort()).toEqual(['alice', 'bob'])
    // The filter keeps the matching users of each page read: a page may hold fewer than 20, or none.
    const matching: string[] = []
    for (let nextToken: string | undefined, first = true; first || nextToken; first = false) {
      const page = await bot.listUsers({ tags: { 'chat:fid': 'bob' }, ...(nextToken ? { nextToken } : {}) })
      matching.push(...page.users.map((u) => u.id))
      nextToken = page.meta.nextToken
    }
    expect(matching).toEqual(['bob'])
    expect((await bot.listUsers({ conversationId: 'c1', tags: { 'chat:fid': 'alice' } })).users.map((u) => u.id)).toEqual(['alice'])
    await expect(bot.listUsers({ conversationId: theirs.conversationId })).rejects.toBeInstanceOf(ResourceNotFoundError)
  })

  it('refuses a nextToken it did not issue', async () => {
    await expect(bot.listUsers({ nextToken: 'not-a-token' })).rejects.toMatchObject({ code: 400, message: 'nextToken is not a token this list issued' })
  })
})

describe('listEvents', () => {
  it('lists a conversation’s custom events, newest first, 20 a page, filtered by userId and type', async () => {
    await bot.createConversation({ channel: 'channel', tags: { id: 'events' } })
    await bot.addParticipant({ id: 'events', userId: 'alice' })
    for (let i = 0; i < 21; i++) await alice.createEvent({ conversationId: 'events', payload: { n: i } })
    const mine = await bot.createEvent({ type: 'ping', conversationId: 'events', payload: {} })
    const first = await bot.listEvents({ conversationId: 'events' })
    expect(first.events).toHaveLength(20)
    expect(first.events[0]).toEqual(mine.event)
    expect(first.events[1]).toMatchObject({ type: 'chat:custom', userId: 'alice', payload: { userId: 'alice', conversationId: 'events', payload: { n: 20 } } })
    const second = await bot.listEvents({ conversationId: 'events', nextToken: first.meta.nextToken })
    expect(second.events.map((e) => (e.payload as { payload: { n: number } }).payload.n)).toEqual([1, 0])
    expect(second.meta).toEqual({})
    expect((await bot.listEvents({ conversationId: 'events', userId: botId })).events.map((e) => e.id)).toEqual([mine.event.id])
    expect((await bot.listEvents({ conversationId: 'events', type: 'ping' })).events.map((e) => e.id)).toEqual([mine.event.id])
    expect((await bot.listEvents({ conversationId: 'events', status: 'failed' })).events).toEqual([])
  })

  it('needs conversationId; another bot’s conversation is 404', async () => {
    await expect(bot.listEvents({})).rejects.toMatchObject({ code: 400, type: 'InvalidPayload', message: 'conversationId must be a non-empty string' })
    await expect(bot.listEvents({ conversationId: theirs.conversationId })).rejects.toBeInstanceOf(ResourceNotFoundError)
  })
})

describe('getOrCreateMessage', () => {
  it('creates the message `tags.id` names once (meta.created), then answers it; listeners hear it once', async () => {
    const listener = await alice.listenConversation({ id: 'c1' })
    const { received } = recordSignals(listener)
    const input = { conversationId: 'c1', userId: botId, type: 'text', payload: { text: 'once' }, tags: { id: 'greeting-1' } }
    const created = await bot.getOrCreateMessage(input)
    expect(created).toEqual({
      message: {
        id: 'greeting-1',
        createdAt: iso,
        updatedAt: iso,
        type: 'text',
        payload: { text: 'once' },
        direction: 'outgoing',
        userId: botId,
        conversationId: 'c1',
        tags: {},
      },
      meta: { created: true },
    })
    const again = await bot.getOrCreateMessage({ ...input, payload: { text: 'twice' } })
    expect(again).toEqual({ message: created.message, meta: { created: false } })
    await eventually(() => expect(received.filter((s) => s.type === 'message_created').map((s) => s.data.id)).toEqual(['greeting-1']))
    expect((await alice.getMessage({ id: 'greeting-1' })).message.payload).toEqual({ type: 'text', text: 'once' })
    await listener.disconnect()
  })

  it('without tags.id creates every time; an id of a message of another conversation is 409', async () => {
    const input = { conversationId: 'c1', userId: botId, type: 'text', payload: { text: 'x' }, tags: {} }
    const [a, b] = [await bot.getOrCreateMessage(input), await bot.getOrCreateMessage(input)]
    expect(a.meta.created && b.meta.created).toBe(true)
    expect(a.message.id).not.toBe(b.message.id)
    await bot.createConversation({ channel: 'channel', tags: { id: 'elsewhere' } })
    await expect(bot.getOrCreateMessage({ ...input, conversationId: 'elsewhere', tags: { id: 'greeting-1' } })).rejects.toBeInstanceOf(AlreadyExistsError)
    await expect(bot.getOrCreateMessage({ ...input, tags: { id: 'no spaces' } })).rejects.toBeInstanceOf(InvalidPayloadError)
    await expect(bot.getOrCreateMessage({ ...input, conversationId: theirs.conversationId })).rejects.toBeInstanceOf(ResourceNotFoundError)
  })
})

describe('listTagValues', () => {
  it('lists the distinct values of a conversation tag across the bot’s conversations, in order, 20 a page', async () => {
    for (let i = 0; i < 23; i++) {
      const id = `tagged-${i}`
      await bot.createConversation({ channel: 'channel', tags: { id } })
      // Two conversations share each value: each is listed once.
      await bot.updateConversation({ id, tags: { region: `r${String(Math.floor(i / 2)).padStart(2, '0')}` } })
    }
    const first = await bot.listTagValues({ key: 'region', type: 'conversation' })
    expect(first.tags).toEqual(Array.from({ length: 12 }, (_, i) => ({ value: `r${String(i).padStart(2, '0')}` })))
    expect(first.meta).toEqual({})
    await bot.updateConversation({ id: 'c1', tags: { letter: 'z' } })
    for (let i = 0; i < 21; i++) await bot.updateConversation({ id: `tagged-${i}`, tags: { letter: String.fromCharCode(97 + i) } })
    const page = await bot.listTagValues({ key: 'letter', type: 'conversation' })
    expect(page.tags.map((t) => t.value)).toEqual('abcdefghijklmnopqrst'.split(''))
    expect(page.meta.nextToken).toEqual(expect.any(String))
    const next = await bot.listTagValues({ key: 'letter', type: 'conversation', nextToken: page.meta.nextToken })
    expect(next).toEqual({ tags: [{ value: 'u' }, { value: 'z' }], meta: {} })
    // A token is its key's list's only.
    expect(await call('GET', `/tags/region/values?type=conversation&nextToken=${page.meta.nextToken}`)).toMatchObject(
      invalid('nextToken is not a token this list issued'),
    )
  })

  it('is an empty last page for users and messages (Confab keeps no tags a bot sets on them); the type is checked', async () => {
    expect(await bot.listTagValues({ key: 'topic', type: 'user' })).toEqual({ tags: [], meta: {} })
    expect(await bot.listTagValues({ key: 'nothing-here', type: 'conversation' })).toEqual({ tags: [], meta: {} })
    expect(await call('GET', '/tags/topic/values?type=workflow')).toMatchObject(invalid('type must be user, conversation or message, got "workflow"'))
  })

  it('lists the values of the bot’s own conversations only', async () => {
    const { value: otherKey } = await adminClient(confab.baseUrl).createBotApiKey({ botId: otherBotId, note: 'other' })
    const otherBot = new Client({ apiUrl: confab.baseUrl, token: otherKey, botId: otherBotId, retry: { retries: 0 } })
    await otherBot.updateConversation({ id: theirs.conversationId, tags: { topic: 'theirs' } })
    expect(await otherBot.listTagValues({ key: 'topic', type: 'conversation' })).toEqual({ tags: [{ value: 'theirs' }], meta: {} })
    expect((await bot.listTagValues({ key: 'topic', type: 'conversation' })).tags.map((t) => t.value)).not.toContain('theirs')
  })
})

describe('trackAnalytics', () => {
  it('is a line of the bot’s log the operator reads', async () => {
    expect(await bot.trackAnalytics({ name: 'handoff_started', count: 2 })).toEqual({})
    const { logs } = await adminClient(confab.baseUrl).getBotLogs({ id: botId, timeStart: '2020-01-01T00:00:00Z' })
    expect(logs.map((l) => l.message)).toContain('analytics handoff_started +2')
    expect(await call('POST', '/analytics', { name: 'x', count: 1.5 })).toMatchObject(invalid('count must be a whole number from -1000000000 to 1000000000'))
    expect(await call('POST', '/analytics', { name: '', count: 1 })).toMatchObject(invalid('name must be a non-empty string'))
  })
})

describe('deleteConversation', () => {
  it('erases the conversation as its owner would: its listeners end, it is gone for everyone', async () => {
    await alice.createConversation({ id: 'doomed' })
    await alice.createMessage({ conversationId: 'doomed', payload: { type: 'text', text: 'bye' } })
    const listener = await alice.listenConversation({ id: 'doomed' })
    const ended = new Promise<void>((resolve) => listener.on('error', () => resolve()))
    expect(await bot.deleteConversation({ id: 'doomed' })).toEqual({})
    await ended
    await expect(alice.getConversation({ id: 'doomed' })).rejects.toMatchObject({ code: 404 })
    await expect(bot.getConversation({ id: 'doomed' })).rejects.toBeInstanceOf(ResourceNotFoundError)
    expect(await confab.t.count("select count(*) as n from messages where conversation_id = 'doomed'")).toBe(0)
    await expect(bot.deleteConversation({ id: 'doomed' })).rejects.toBeInstanceOf(ResourceNotFoundError)
    await expect(bot.deleteConversation({ id: theirs.conversationId })).rejects.toBeInstanceOf(ResourceNotFoundError)
  })
})

describe('deleteUser', () => {
  it('erases the user as the admin API does: the others hear they left, their id cannot come back', async () => {
    const dave = await ChatClient.connect({ apiUrl: confab.apiUrl, userId: 'dave' })
    await alice.createConversation({ id: 'with-dave' })
    await alice.addParticipant({ conversationId: 'with-dave', userId: 'dave' })
    await dave.createMessage({ conversationId: 'with-dave', payload: { type: 'text', text: 'mine' } })
    const { received } = recordSignals(await alice.listenConversation({ id: 'with-dave' }))
    expect(await bot.deleteUser({ id: 'dave' })).toEqual({})
    await eventually(() => expect(received).toContainEqual({ type: 'participant_removed', data: { conversationId: 'with-dave', participantId: 'dave' } }))
    await expect(bot.getUser({ id: 'dave' })).rejects.toBeInstanceOf(ResourceNotFoundError)
    expect(await confab.t.count("select count(*) as n from messages where user_id = 'dave'")).toBe(0)
    await expect(bot.createUser({ tags: { id: 'dave' } })).rejects.toMatchObject({ code: 409, type: 'AlreadyExists' })
  })

  it('the bot’s own user, an unknown one and another bot’s are 404', async () => {
    await expect(bot.deleteUser({ id: botId })).rejects.toBeInstanceOf(ResourceNotFoundError)
    await expect(bot.deleteUser({ id: 'nobody' })).rejects.toBeInstanceOf(ResourceNotFoundError)
    await expect(bot.deleteUser({ id: theirs.userId })).rejects.toBeInstanceOf(ResourceNotFoundError)
    expect((await bot.getUser({ id: botId })).user.id).toBe(botId)
  })
})
