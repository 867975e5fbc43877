import { Writable } from 'node:stream'
import { Client as ChatClient } from '@botpress/chat'
import { pino } from 'pino'
import { Webhook } from 'standardwebhooks'
import { afterEach, describe, expect, it } from 'vitest'
import { rotateEncryptionKey } from '../../src/domain/key-rotation.ts'
import { openSecret, sealSecret } from '../../src/domain/secret-box.ts'
import { adminFetch } from '../helpers/admin-fetch.ts'
import { iso } from '../helpers/app.ts'
import { type Listening, startListening } from '../helpers/listening.ts'
import { eventually } from '../helpers/wait.ts'
import { type Answer, type Receiver, type Received, startReceiver } from './receiver.ts'

// Issue 51 item 6: the chat integration's configuration webhookUrl + webhookSecret, as Botpress'
// chat integration has them. Through a real server and a real receiver: every stored signal of the
// integration is POSTed there in the Chat API's shape, with x-secret-key and a Standard Webhooks
// signature, in order, retried after a failure; the secret is never in an answer nor a log line.

const SECRET = 'integration-webhook-secret-0123456789'

let s: Listening
let receiver: Receiver
let bot: Receiver | undefined
let logged = ''
const answers: Answer[] = []

afterEach(async () => {
  await s?.close()
  await receiver?.close()
  await bot?.close()
  bot = undefined
  logged = ''
  answers.length = 0
})

/**
 * A server whose bots' retries come after 50 ms, a receiver that answers `answers` in turn (200 once
 * they run out), and a bot whose integration posts there: the echo bot when `echo`, else one with a
 * url of its own that answers nothing (so that only the user's signals are posted).
 */
async function start(configuration: Record<string, unknown> = {}, { echo = false } = {}) {
  receiver = await startReceiver((_request, index) => answers[index] ?? { status: 200 })
  if (!echo) bot = await startReceiver()
  const log = pino({ level: 'debug' }, new Writable({ write: (chunk, _encoding, done) => done(void (logged += String(chunk))) }))
  s = await startListening({ log, botRetrySchedule: [0, 0.05, 0.05], botSweepMs: 100 })
  const created = await adminFetch(s.baseUrl, 'POST', '/bots', {
    name: 'hooked',
    ...(bot ? { url: bot.url } : {}),
    integrations: { chat: { configuration: { webhookUrl: receiver.url, webhookSecret: SECRET, ...configuration } } },
  })
  expect(created.status).toBe(200)
  const { id: botId, signingSecret, integrations } = created.body.bot
  const apiUrl = `${s.baseUrl}/${integrations.chat.webhookId}`
  return { botId, signingSecret: signingSecret as string, apiUrl, created: created.body }
}

const signals = () => receiver.received.map((r) => r.json)

/** The bodies of the requests, each verified against the bot's signing secret. */
const verified = (signingSecret: string, requests: Received[] = receiver.received) => requests.map((r) => new Webhook(signingSecret).verify(r.body, r.headers))

describe('configuring the webhook (admin REST and GraphQL)', () => {
  it('takes webhookUrl and webhookSecret, shows the url and hasWebhookSecret, never the secret', async () => {
    const { botId, created } = await start()
    expect(created.bot.integrations.chat).toEqual({
      enabled: true,
      webhookId: expect.any(String),
      webhookUrl: `${s.baseUrl}/${created.bot.integrations.chat.webhookId}`,
      encryptionMode: 'shared',
      configuration: { webhookUrl: receiver.url, hasWebhookSecret: true },
    })
    const read = await adminFetch(s.baseUrl, 'GET', `/bots/${botId}`)
    expect(read.body.bot.integrations.chat.configuration).toEqual({ webhookUrl: receiver.url, hasWebhookSecret: true })
    const graphql = await fetch(`${s.baseUrl}/v1/admin/graphql`, {
      method: 'POST',
      headers: { authorization: 'Bearer bp_pat_test_admin_token', 'x-workspace-id': 'wkspace_test', 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ bot(id: "${botId}") { integrations { chat { webhookUrl configuration { webhookUrl hasWebhookSecret } } } } }` }),
    })
    const answer = await graphql.text()
    expect(JSON.parse(answer).data.bot.integrations.chat).toEqual({
      webhookUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/[^/]+$/),
      configuration: { webhookUrl: receiver.url, hasWebhookSecret: true },
    })
    // The secret is sealed at rest: the column holds neither it nor anything that opens without the integration's key.
    const [row] = await s.t.query<{ webhook_secret: string }>('select webhook_secret from chat_integrations where bot_id = ?', botId)
    expect(row?.webhook_secret).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/)
    expect(row?.webhook_secret).not.toContain(SECRET)
    for (const text of [JSON.stringify(created), JSON.stringify(read.body), answer, logged]) expect(text).not.toContain(SECRET)
  })

  it('a configuration without webhookUrl removes the webhook (it replaces the whole configuration)', async () => {
    const { botId } = await start()
    const updated = await adminFetch(s.baseUrl, 'PUT', `/bots/${botId}`, { integrations: { chat: { configuration: {} } } })
    expect(updated.status).toBe(200)
    expect(updated.body.bot.integrations.chat.configuration).toEqual({ hasWebhookSecret: false })
    // An update that leaves the configuration out leaves the webhook as it is.
    await adminFetch(s.baseUrl, 'PUT', `/bots/${botId}`, { integrations: { chat: { configuration: { webhookUrl: receiver.url } } } })
    const renamed = await adminFetch(s.baseUrl, 'PUT', `/bots/${botId}`, { name: 'renamed' })
    expect(renamed.body.bot.integrations.chat.configuration).toEqual({ webhookUrl: receiver.url, hasWebhookSecret: false })
  })

  it('refuses a url that is no absolute http(s) URL or points where Confab never sends, and a secret it cannot send (400)', async () => {
    const { botId } = await start()
    const put = (configuration: Record<string, unknown>) => adminFetch(s.baseUrl, 'PUT', `/bots/${botId}`, { integrations: { chat: { configuration } } })
    const refused = (message: string) => ({ status: 400, body: { code: 400, type: 'InvalidPayload', message, id: expect.any(String) } })
    expect(await put({ webhookUrl: 'not a url' })).toEqual(
      refused('integrations.chat.configuration.webhookUrl must be an absolute http or https URL, got "not a url"'),
    )
    expect(await put({ webhookUrl: 'ftp://example.com/x' })).toEqual(refused('integrations.chat.configuration.webhookUrl must use http or https, got "ftp"'))
    expect(await put({ webhookUrl: 'http://169.254.169.254/latest' })).toEqual(
      refused(
        'integrations.chat.configuration.webhookUrl points at 169.254.169.254, a link-local address (cloud metadata services answer at 169.254.169.254), which Confab never connects to',
      ),
    )
    expect(await put({ webhookSecret: SECRET })).toEqual(refused('integrations.chat.configuration.webhookSecret is sent to a webhookUrl: give one'))
    expect(await put({ webhookUrl: receiver.url, webhookSecret: 'two\nlines' })).toEqual(
      refused('integrations.chat.configuration.webhookSecret must be 1-1024 visible ASCII characters (it is sent as a header), spaces only inside'),
    )
    // Nothing refused changed the webhook.
    expect((await adminFetch(s.baseUrl, 'GET', `/bots/${botId}`)).body.bot.integrations.chat.configuration).toEqual({
      webhookUrl: receiver.url,
      hasWebhookSecret: true,
    })
  })
})

describe('delivery of the integration’s signals', () => {
  it('POSTs every stored signal in order, in the Chat API’s shape, with x-secret-key and a valid Standard Webhooks signature', async () => {
    const { botId, signingSecret, apiUrl } = await start({}, { echo: true })
    const alice = await ChatClient.connect({ apiUrl, userId: 'alice' })
    await ChatClient.connect({ apiUrl, userId: 'bob' })
    const { conversation } = await alice.createConversation({ id: 'c1' })
    await alice.addParticipant({ conversationId: conversation.id, userId: 'bob' })
    const { message } = await alice.createMessage({ conversationId: 'c1', payload: { type: 'text', text: 'hello' } })
    // The echo bot answers: it joins, then its message comes after alice's.
    await eventually(() => expect(signals().filter((x) => x.type === 'message_created')).toHaveLength(2))
    await alice.createEvent({ conversationId: 'c1', payload: { kind: 'ping' } })
    // The echo bot sends the event back.
    await eventually(() => expect(signals().filter((x) => x.type === 'event_created')).toHaveLength(2))
    await alice.deleteMessage({ id: message.id })
    await alice.removeParticipant({ conversationId: 'c1', userId: 'bob' })
    await eventually(() => expect(signals()).toHaveLength(8))
    await s.t.app.webhooks.idle()

    const [added, created, botJoined, echoed, event, eventBack, deleted, removed] = verified(signingSecret) as Record<string, any>[]
    expect(added).toEqual({ type: 'participant_added', data: { conversationId: 'c1', participantId: 'bob' } })
    expect(created).toEqual({
      type: 'message_created',
      data: { id: message.id, createdAt: message.createdAt, conversationId: 'c1', userId: 'alice', payload: { type: 'text', text: 'hello' }, isBot: false },
    })
    expect(botJoined).toEqual({ type: 'participant_added', data: { conversationId: 'c1', participantId: botId } })
    expect(echoed).toMatchObject({ type: 'message_created', data: { conversationId: 'c1', isBot: true, createdAt: iso } })
    expect(event).toEqual({
      type: 'event_created',
      data: { id: expect.any(String), createdAt: iso, conversationId: 'c1', userId: 'alice', payload: { kind: 'ping' }, isBot: false },
    })
    expect(eventBack).toMatchObject({ type: 'event_created', data: { payload: { kind: 'ping' }, isBot: true } })
    expect(deleted).toEqual({ type: 'message_deleted', data: { id: message.id, conversationId: 'c1', userId: 'alice' } })
    expect(removed).toEqual({ type: 'participant_removed', data: { conversationId: 'c1', participantId: 'bob' } })
    for (const request of receiver.received) {
      expect(request.headers['x-secret-key']).toBe(SECRET)
      expect(request.headers['content-type']).toBe('application/json')
    }
    // Each delivery its own webhook-id; a receiver holding another secret rejects them.
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(8)
    expect(() =>
      new Webhook(`whsec_${Buffer.from('another key of 32 bytes, exactly!').toString('base64')}`).verify(
        receiver.received[0]!.body,
        receiver.received[0]!.headers,
      ),
    ).toThrow()
    expect(await s.t.query('select * from integration_webhook_deliveries')).toEqual([])
    expect(logged).not.toContain(SECRET)
  })

  it('sends no x-secret-key without a secret; typing is not posted (transient)', async () => {
    const { apiUrl } = await start({ webhookSecret: null })
    const alice = await ChatClient.connect({ apiUrl, userId: 'alice' })
    await alice.createConversation({ id: 'c1' })
    const typing = await fetch(`${apiUrl}/conversations/c1/typing`, {
      method: 'POST',
      headers: { 'x-user-key': alice.user.key, 'content-type': 'application/json' },
      body: '{}',
    })
    await typing.body?.cancel()
    await alice.createEvent({ conversationId: 'c1', payload: { n: 1 } })
    await eventually(() => expect(signals()).toHaveLength(1))
    await s.t.app.webhooks.idle()
    expect(signals().map((x) => x.type)).toEqual(['event_created'])
    expect(receiver.received[0]!.headers).not.toHaveProperty('x-secret-key')
  })

  it('tries again after a 500, the integration’s later signals waiting behind it; the failure is a bot log line without the secret', async () => {
    const { botId, signingSecret, apiUrl } = await start()
    answers.push({ status: 500, body: { error: 'not now' } })
    const alice = await ChatClient.connect({ apiUrl, userId: 'alice' })
    await alice.createConversation({ id: 'c1' })
    await alice.createEvent({ conversationId: 'c1', payload: { n: 1 } })
    await alice.createEvent({ conversationId: 'c1', payload: { n: 2 } })
    await eventually(() => expect(receiver.received).toHaveLength(3))
    await s.t.app.webhooks.idle()
    const [first, again] = receiver.received
    expect(again!.headers['webhook-id']).toBe(first!.headers['webhook-id'])
    expect(verified(signingSecret).map((x: any) => x.data.payload.n)).toEqual([1, 1, 2])
    const { body } = await adminFetch(s.baseUrl, 'GET', `/bots/${botId}/logs?timeStart=2020-01-01T00:00:00Z`)
    expect(body.logs.map((l: { level: string; message: string }) => [l.level, l.message])).toContainEqual([
      'warn',
      expect.stringMatching(
        new RegExp(
          `^integration webhook ${first!.headers['webhook-id']} \\(event_created\\) to http://127\\.0\\.0\\.1:\\d+/bot: attempt 1 failed, answered 500: \\{"error":"not now"\\}; tried again in 0 s$`,
        ),
      ),
    ])
    expect(JSON.stringify(body)).not.toContain(SECRET)
    expect(logged).not.toContain(SECRET)
  })

  it('gives up once the retry schedule is spent, and goes on with the next signal', async () => {
    const { botId, apiUrl } = await start()
    answers.push({ status: 503 }, { status: 503 }, { status: 503 })
    const alice = await ChatClient.connect({ apiUrl, userId: 'alice' })
    await alice.createConversation({ id: 'c1' })
    await alice.createEvent({ conversationId: 'c1', payload: { n: 1 } })
    await alice.createEvent({ conversationId: 'c1', payload: { n: 2 } })
    await eventually(() => expect(receiver.received).toHaveLength(4))
    await s.t.app.webhooks.idle()
    expect(signals().map((x) => x.data.payload.n)).toEqual([1, 1, 1, 2])
    const { body } = await adminFetch(s.baseUrl, 'GET', `/bots/${botId}/logs?timeStart=2020-01-01T00:00:00Z`)
    expect(body.logs.filter((l: { level: string }) => l.level === 'error').map((l: { message: string }) => l.message)).toEqual([
      expect.stringMatching(/attempt 3 failed, answered 503; given up$/),
    ])
  })
})

describe('a rotation of the shared encryption key', () => {
  it('seals the secret again: the webhook still gets it', async () => {
    const { apiUrl, created } = await start()
    await rotateEncryptionKey(s.t.store, created.bot.integrations.chat.webhookId, 0)
    const alice = await ChatClient.connect({ apiUrl, userId: 'alice' })
    await alice.createConversation({ id: 'c1' })
    await alice.createEvent({ conversationId: 'c1', payload: { n: 1 } })
    await eventually(() => expect(receiver.received).toHaveLength(1))
    expect(receiver.received[0]!.headers['x-secret-key']).toBe(SECRET)
  })
})

describe('the sealed secret', () => {
  it('opens with the key and integration it was sealed for only', () => {
    const key = { integrationId: 'i1', encryptionKey: 'k'.repeat(43) }
    const sealed = sealSecret(SECRET, key)
    expect(openSecret(sealed, key)).toBe(SECRET)
    expect(sealSecret(SECRET, key)).not.toBe(sealed)
    expect(() => openSecret(sealed, { ...key, integrationId: 'i2' })).toThrow()
    expect(() => openSecret(sealed, { ...key, encryptionKey: 'x'.repeat(43) })).toThrow()
  })
})
