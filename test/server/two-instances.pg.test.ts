import { Client as ChatClient } from '@botpress/chat'
import { Client } from '@botpress/client'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startReceiver } from '../bots/receiver.ts'
import { ownDatabase, queryOnce } from '../helpers/own-database.ts'
import { TEST_REDIS_URL } from '../helpers/redis.ts'
import { randomAdminToken, randomEncryptionKey, type RunningServer, START_TIMEOUT, startServer } from '../helpers/server.ts'
import { eventually } from '../helpers/wait.ts'

/*
 * Two real instances (`npm start`) on one PostgreSQL database and one Redis: what a listener on one
 * hears of writes on the other, a webhook bot's deliveries, and SIGKILL of one under load. Always
 * runs on PostgreSQL (TEST_DATABASE_URL, or 127.0.0.1:5432) and Redis (TEST_REDIS_URL, or
 * 127.0.0.1:6379): it fails if either does not answer.
 */
const database = ownDatabase('confab_two')
const databaseUrl = database.url

const env = {
  REDIS_URL: TEST_REDIS_URL,
  CONFAB_WORKSPACE_ID: 'wkspace_two',
  CONFAB_ADMIN_TOKEN: randomAdminToken(),
  CONFAB_WEBHOOK_ID: 'two-instances',
  CONFAB_ENCRYPTION_KEY: randomEncryptionKey(),
  CONFAB_BOT_LEASE_SECONDS: '3',
  CONFAB_BOT_RETRY_SCHEDULE: '0,1,1,1,1,1',
}

const receiver = await startReceiver()
let a: RunningServer
let b: RunningServer

/** The deliveries to a bot still in the shared outbox. */
const pendingDeliveries = async (botId: string) =>
  Number((await queryOnce<{ n: string }>(databaseUrl, 'select count(*) as n from bot_deliveries where bot_id = $1', [botId]))[0]!.n)

beforeAll(async () => {
  await database.create()
  // Both at once, on the empty database: one applies the migrations and makes the first tenant.
  ;[a, b] = await Promise.all([startServer({ databaseUrl, env }), startServer({ databaseUrl, env })])
}, 2 * START_TIMEOUT)

afterAll(async () => {
  await Promise.allSettled([a?.stop(), b?.stop()])
  await receiver.close()
  await database.drop()
}, 2 * START_TIMEOUT)

const chatUrl = (server: RunningServer) => `${server.baseUrl}/${env.CONFAB_WEBHOOK_ID}`
const admin = (server: RunningServer) => new Client({ apiUrl: server.baseUrl, token: env.CONFAB_ADMIN_TOKEN, workspaceId: env.CONFAB_WORKSPACE_ID })

const text = (value: string) => ({ type: 'text' as const, text: value })

/** A bot made on `server` whose user keys its operator signs (personal mode), with that key. */
async function signedBot(server: RunningServer, name: string, url: string) {
  const { bot } = await admin(server).createBot({ name, url })
  const encryptionKey = `personal-key-of-${name.replaceAll(' ', '-')}-0123456789abcdef`
  await admin(server).updateBot({ id: bot.id, integrations: { chat: { configuration: { encryptionKey } } } })
  return { bot, webhookId: bot.integrations.chat!.webhookId, encryptionKey }
}

describe('two instances on one PostgreSQL and one Redis', () => {
  it('started together, made one first tenant, and both are ready', async () => {
    const printed = [a, b].filter((server) => server.stdout().includes('Confab bootstrap: created the default tenant'))
    expect(printed).toHaveLength(1)
    for (const server of [a, b]) {
      const res = await fetch(`${server.baseUrl}/readyz`)
      expect([res.status, await res.json()]).toEqual([200, { status: 'ready' }])
    }
  })

  it('a @botpress/chat listener on A hears the messages created on B, in order, and a GraphQL subscription on A does too', async () => {
    const onA = await ChatClient.connect({ apiUrl: chatUrl(a), userId: 'listener-user', encryptionKey: env.CONFAB_ENCRYPTION_KEY })
    const onB = await ChatClient.connect({ apiUrl: chatUrl(b), userId: 'listener-user', encryptionKey: env.CONFAB_ENCRYPTION_KEY })
    const { conversation } = await onA.createConversation({ id: 'across' })
    const listener = await onA.listenConversation({ id: conversation.id })
    const heard: string[] = []
    listener.on('message_created', (message) => {
      if (message.userId === 'listener-user') heard.push(message.id)
    })

    // A GraphQL subscription over SSE on A, open before the writes.
    const controller = new AbortController()
    const subscription = await fetch(`${chatUrl(a)}/graphql`, {
      method: 'POST',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-user-key': onA.user.key },
      body: JSON.stringify({
        query: `subscription { conversationSignals(conversationId: "across") { __typename ... on MessageCreatedSignal { isBot message { messageId } } } }`,
      }),
    })
    expect(subscription.status).toBe(200)
    let streamed = ''
    void (async () => {
      const decoder = new TextDecoder()
      try {
        for await (const chunk of subscription.body as unknown as AsyncIterable<Uint8Array>) streamed += decoder.decode(chunk)
      } catch {}
    })()

    const sent: string[] = []
    for (const n of [1, 2, 3, 4, 5]) sent.push((await onB.createMessage({ conversationId: conversation.id, payload: text(`from B ${n}`) })).message.id)
    await eventually(() => expect(heard).toEqual(sent))
    await eventually(() => {
      const ids = [...streamed.matchAll(/"isBot":false,"message":\{"messageId":"([^"]+)"/g)].map((match) => match[1])
      expect(ids).toEqual(sent)
    })
    controller.abort()
    await listener.disconnect()
  })

  it('a webhook bot gets each event exactly once, in order, whichever instance the messages went to', async () => {
    const { bot, webhookId, encryptionKey } = await signedBot(a, 'Webhook bot', receiver.url)
    const clients = await Promise.all([a, b].map((server) => ChatClient.connect({ apiUrl: `${server.baseUrl}/${webhookId}`, userId: 'poster', encryptionKey })))
    const { conversation } = await clients[0]!.createConversation({ id: 'ordered' })
    const before = receiver.received.length
    const sent: string[] = []
    for (let n = 0; n < 12; n++) {
      const { message } = await clients[n % 2]!.createMessage({ conversationId: conversation.id, payload: text(`m${n}`) })
      sent.push(message.id)
    }
    await vi.waitFor(() => expect(receiver.received.length - before).toBe(12), { timeout: 20_000 })
    const got = receiver.received.slice(before)
    expect(got.map((request) => request.json.data.messageId)).toEqual(sent)
    expect(new Set(got.map((request) => request.headers['webhook-id'])).size).toBe(12)
    // And nothing more comes: once the outbox is empty, no instance has a delivery left to make.
    await vi.waitFor(async () => expect(await pendingDeliveries(bot.id)).toBe(0), { timeout: 20_000 })
    expect(receiver.received.length - before).toBe(12)
  }, 60_000)

  it("a personal key set through A holds on B at once (createUser 401, shared keys refused, B's listeners end), and null on B opens A again", async () => {
    const { bot } = await admin(a).createBot({ name: 'Keyed bot' })
    const on = (server: RunningServer) => `${server.baseUrl}/${bot.integrations.chat!.webhookId}`
    const early = await ChatClient.connect({ apiUrl: on(b) })
    const { conversation } = await early.createConversation({})
    const listening = await fetch(`${on(b)}/conversations/${conversation.id}/listen`, { headers: { 'x-user-key': early.user.key } })
    expect(listening.status).toBe(200)

    const encryptionKey = 'the-operator-of-keyed-bot-signs-with-this'
    await admin(a).updateBot({ id: bot.id, integrations: { chat: { configuration: { encryptionKey } } } })
    const reader = listening.body!.getReader()
    while (!(await reader.read()).done);
    const attacker = await fetch(`${on(b)}/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'customer-123' }),
    })
    expect(attacker.status).toBe(401)
    expect((await attacker.json()).message).toContain('can only be called when using the shared encryption key')
    expect((await fetch(`${on(b)}/users/me`, { headers: { 'x-user-key': early.user.key } })).status).toBe(401)
    const customer = await ChatClient.connect({ apiUrl: on(b), userId: 'customer-123', encryptionKey })
    expect(customer.user.id).toBe('customer-123')

    await admin(b).updateBot({ id: bot.id, integrations: { chat: { configuration: { encryptionKey: null } } } })
    expect((await fetch(`${on(a)}/users/me`, { headers: { 'x-user-key': customer.user.key } })).status).toBe(401)
    expect((await ChatClient.connect({ apiUrl: on(a) })).user.key).toEqual(expect.any(String))
  })

  it("SIGKILL of A under steady writes: no acknowledged message lost, no request to B fails, A's delivery in flight is completed by B", async () => {
    const { webhookId, encryptionKey: key } = await signedBot(b, 'Held bot', receiver.url)
    const botOnA = await ChatClient.connect({ apiUrl: `${a.baseUrl}/${webhookId}`, userId: 'held', encryptionKey: key })
    const { conversation: held } = await botOnA.createConversation({ id: 'held' })
    // The bot holds A's delivery open: A dies holding it.
    receiver.answer = () => 'hang'
    const before = receiver.received.length
    await botOnA.createMessage({ conversationId: held.id, payload: text('held by A') })
    await eventually(() => expect(receiver.received.length).toBe(before + 1))
    const inFlight = receiver.received[before]!

    // Steady writes to both instances (the echo bot answering each), until A is killed.
    const onA = await ChatClient.connect({ apiUrl: chatUrl(a), userId: 'writer', encryptionKey: env.CONFAB_ENCRYPTION_KEY })
    const onB = await ChatClient.connect({ apiUrl: chatUrl(b), userId: 'writer', encryptionKey: env.CONFAB_ENCRYPTION_KEY })
    const { conversation } = await onB.createConversation({ id: 'load' })
    const acknowledged: string[] = []
    const failuresOnB: unknown[] = []
    let killed = false
    let stop = false
    const writer = async (client: typeof onA, onB: boolean) => {
      let n = 0
      while (!stop) {
        try {
          const { message } = await client.createMessage({ conversationId: conversation.id, payload: text(`${onB ? 'B' : 'A'}${n++}`) })
          acknowledged.push(message.id)
        } catch (error) {
          if (onB) failuresOnB.push(error)
          else if (killed) return
          else throw error
        }
      }
    }
    const writers = [writer(onA, false), writer(onB, true), writer(onB, true)]
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThan(30), { timeout: 20_000 })
    killed = true
    receiver.answer = () => ({ status: 200 })
    await a.kill()
    await inFlight.closed
    const atKill = acknowledged.length
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThan(atKill + 30), { timeout: 20_000 })
    stop = true
    await Promise.all(writers)
    expect(failuresOnB).toEqual([])

    // Every acknowledged message is there (read through B), and the echo bot answered each, B
    // taking over what A held.
    const stored = new Set<string>()
    let nextToken: string | undefined
    do {
      const page = await onB.listMessages({ conversationId: conversation.id, nextToken })
      for (const message of page.messages) stored.add(message.id)
      nextToken = page.meta.nextToken
    } while (nextToken)
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([])

    // A's delivery in flight: taken by B once A's lease ran out, with the same webhook-id.
    await vi.waitFor(
      () => {
        const again = receiver.received.slice(before + 1).filter((request) => request.headers['webhook-id'] === inFlight.headers['webhook-id'])
        expect(again.length).toBeGreaterThanOrEqual(1)
      },
      { timeout: 20_000 },
    )
    const res = await fetch(`${b.baseUrl}/readyz`)
    expect(res.status).toBe(200)
  }, 120_000)

  it('SIGTERM drains B: its live streams end (their clients reconnect elsewhere) and it exits cleanly', async () => {
    const client = await ChatClient.connect({ apiUrl: chatUrl(b), userId: 'drained', encryptionKey: env.CONFAB_ENCRYPTION_KEY })
    const { conversation } = await client.createConversation({ id: 'drained' })
    const stream = await fetch(`${chatUrl(b)}/conversations/${conversation.id}/listen`, { headers: { 'x-user-key': client.user.key } })
    expect(stream.status).toBe(200)
    const ended = (async () => {
      for await (const _ of stream.body as unknown as AsyncIterable<Uint8Array>) {
      }
      return 'ended'
    })().catch(() => 'ended')
    const status = await b.terminate()
    expect(status).toEqual({ code: 0, signal: null })
    expect(await ended).toBe('ended')
  }, 60_000)
})
