import { Client as ChatClient } from '@botpress/chat'
import { Client } from '@botpress/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, WORKSPACE_ID } from '../helpers/app.ts'
import { serve, type Served } from '../helpers/listening.ts'
import { eventually } from '../helpers/wait.ts'
import { logsOf, type Receiver, startReceiver, webhookBotApp } from '../bots/receiver.ts'
import type { TestApp } from '../helpers/app.ts'

// The hitl interface's actions (interfaces/hitl) as a bot calls them through @botpress/client on
// the real HTTP server: startHitl hands the conversation to the queue, and while it waits (or an
// agent holds it) the user's messages are kept from the bot, recorded as skipped; stopHitl gives it
// back. The bot is a webhook bot played by a receiver that answers each message it gets.

let t: TestApp
let served: Served
let receiver: Receiver
let botId: string
let bot: Client
let alice: Awaited<ReturnType<typeof ChatClient.connect>>

const text = (value: string) => ({ type: 'text' as const, text: value })
const messagesToBot = () => receiver.received.filter((r) => r.json.type === 'message').map((r) => r.json.data.payload.text as string)

beforeAll(async () => {
  receiver = await startReceiver((request) =>
    request.json.type === 'message' ? { status: 200, body: { messages: [{ payload: text(`bot: ${request.json.data.payload.text}`) }] } } : { status: 200 },
  )
  ;({ t, botId } = await webhookBotApp({ url: receiver.url }))
  served = await serve(t)
  const admin = new Client({ apiUrl: served.baseUrl, token: ADMIN_TOKEN, workspaceId: WORKSPACE_ID })
  const { value: key } = await admin.createBotApiKey({ botId, note: 'hitl test' })
  bot = new Client({ apiUrl: served.baseUrl, token: key, botId, retry: { retries: 0 } })
  alice = await ChatClient.connect({ apiUrl: served.apiUrl, userId: 'alice' })
  await alice.createConversation({ id: 'c1' })
}, 60_000)

afterAll(async () => {
  await served?.close()
  await t?.close()
  await receiver?.close()
})

const handledBy = async (conversationId: string) => {
  const res = await t.admin('GET', `/bots/${botId}/conversations`)
  expect(res.status).toBe(200)
  return (res.body.conversations as { id: string; handledBy: string; agentId?: string }[]).find((c) => c.id === conversationId)
}

const botTexts = async () =>
  (await alice.listMessages({ conversationId: 'c1' })).messages.filter((m) => m.userId === botId).map((m) => (m.payload as { text: string }).text)

describe('hitl:startHitl then hitl:stopHitl — the user’s messages skip the bot meanwhile', () => {
  it('runs the whole path on the real server', async () => {
    await alice.createMessage({ conversationId: 'c1', payload: text('hello') })
    await eventually(async () => expect(await botTexts()).toContain('bot: hello'))
    expect(await handledBy('c1')).toMatchObject({ handledBy: 'bot' })

    const started = await bot.callAction({
      type: 'hitl:startHitl',
      input: { userId: 'alice', title: 'Wants a person', description: 'asked for a human', conversationId: 'c1', messageHistory: [] },
    })
    expect(started.output).toEqual({ conversationId: 'c1' })
    expect(await handledBy('c1')).toEqual(expect.objectContaining({ id: 'c1', handledBy: 'waiting' }))
    // Asking again changes nothing.
    expect(
      (await bot.callAction({ type: 'hitl:startHitl', input: { userId: 'alice', hitlSession: { conversationId: 'c1' }, messageHistory: [] } })).output,
    ).toEqual({
      conversationId: 'c1',
    })

    const { message: skipped } = await alice.createMessage({ conversationId: 'c1', payload: text('is anyone there?') })
    await eventually(async () =>
      expect((await logsOf(t)).map((l) => l.message)).toContain(
        `skipped message ${skipped.id}: the conversation is handled by a person (waiting), not delivered to the bot`,
      ),
    )
    await t.app.bots.idle()
    expect(messagesToBot()).toEqual(['hello'])
    // The bot may still read it.
    expect((await bot.listMessages({ conversationId: 'c1' })).messages.map((m) => m.id)).toContain(skipped.id)
    // Nothing waits in the outbox: the skipped message is never retried.
    expect(await t.db.select().from(t.tables.botDeliveries)).toEqual([])

    expect((await bot.callAction({ type: 'hitl:stopHitl', input: { conversationId: 'c1' } })).output).toEqual({})
    expect(await handledBy('c1')).toMatchObject({ handledBy: 'bot' })
    await alice.createMessage({ conversationId: 'c1', payload: text('thanks') })
    await eventually(async () => expect(await botTexts()).toContain('bot: thanks'))
    expect(messagesToBot()).toEqual(['hello', 'thanks'])
    // The bot is not told hitlStopped of its own stopHitl.
    expect(receiver.received.filter((r) => r.json.type.startsWith('hitl:'))).toEqual([])
  })
})

describe('hitl actions — refusals in the documented error body', () => {
  const refused = async (type: string, input: Record<string, unknown>) => {
    const res = await fetch(`${served.baseUrl}/v1/chat/actions`, {
      method: 'POST',
      headers: { 'x-bot-id': botId, 'content-type': 'application/json' },
      body: JSON.stringify({ type, input }),
    })
    return { status: res.status, body: await res.json() }
  }

  it('answers 401 without a bot API key', async () => {
    expect(await refused('hitl:startHitl', { userId: 'alice', conversationId: 'c1' })).toEqual({
      status: 401,
      body: expect.objectContaining({ code: 401, type: 'Unauthorized' }),
    })
  })

  it.each([
    [
      'hitl:startHitl',
      { userId: 'alice', messageHistory: [] },
      'input.conversationId (or input.hitlSession.conversationId) names the conversation to hand off, and is required',
    ],
    ['hitl:startHitl', { conversationId: 'c1', messageHistory: [] }, 'input.userId'],
    ['hitl:startHitl', { userId: 'alice', conversationId: 'c1', title: 'x'.repeat(257) }, 'input.title must be at most 256 characters'],
    ['hitl:startHitl', { userId: 'alice', conversationId: 'c1', messageHistory: 'all of it' }, 'input.messageHistory must be an array'],
    ['hitl:stopHitl', {}, 'input.conversationId'],
    ['hitl:createUser', {}, 'input.name'],
  ])('%s %j is 400 InvalidPayload naming the field', async (type, input, words) => {
    await expect(bot.callAction({ type, input })).rejects.toMatchObject({ code: 400, type: 'InvalidPayload', message: expect.stringContaining(words) })
  })

  it('a conversation or user of no such id is 404 ResourceNotFound', async () => {
    await expect(bot.callAction({ type: 'hitl:startHitl', input: { userId: 'alice', conversationId: 'nope', messageHistory: [] } })).rejects.toMatchObject({
      code: 404,
      type: 'ResourceNotFound',
    })
    await expect(bot.callAction({ type: 'hitl:startHitl', input: { userId: 'nobody', conversationId: 'c1', messageHistory: [] } })).rejects.toMatchObject({
      code: 404,
      type: 'ResourceNotFound',
    })
    await expect(bot.callAction({ type: 'hitl:stopHitl', input: { conversationId: 'nope' } })).rejects.toMatchObject({ code: 404, type: 'ResourceNotFound' })
  })
})

describe('hitl:createUser', () => {
  it('makes a user of the chat integration with that name, and answers its id', async () => {
    const { output } = await bot.callAction({ type: 'hitl:createUser', input: { name: 'Dana', email: 'dana@example.com' } })
    expect(output).toEqual({ userId: expect.any(String) })
    expect((await bot.getUser({ id: String(output.userId) })).user).toMatchObject({ id: output.userId, name: 'Dana' })
  })
})

describe('agent user ids are reserved', () => {
  it('createUser with an id beginning with "agent:" is 403 Forbidden', async () => {
    const res = await t.chat('POST', '/users', { body: { id: 'agent:someone' } })
    expect(res).toMatchObject({ status: 403, body: { code: 403, type: 'Forbidden' } })
  })

  it('a user key naming such an id is refused', async () => {
    const res = await t.chat('GET', '/users/me', { key: await t.keyFor('agent:someone') })
    expect(res.status).toBe(403)
  })
})
