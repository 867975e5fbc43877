import { type AuthenticatedClient, Client as ChatClient } from '@botpress/chat'
import { Client, InvalidPayloadError, ResourceNotFoundError } from '@botpress/client'
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import type { BotRow } from '../../src/db/schema.ts'
import { tables } from '../helpers/tables.ts'

const { chatIntegrations, conversations, users } = tables
import { signingSecretsOf } from '../../src/domain/bots/admin/secrets.ts'
import { createTenant } from '../../src/domain/tenancy.ts'
import { ADMIN_TOKEN, ENCRYPTION_KEY, errorBody, ISO, WEBHOOK_ID, WORKSPACE_ID } from '../helpers/app.ts'
import { eachListening, expectApiError, type Listening } from '../helpers/listening.ts'
import { eventually } from '../helpers/wait.ts'

const OTHER_WORKSPACE = 'wkspace_other'
const OTHER_TOKEN = 'bp_pat_other_token'
/** `whsec_` and the standard base64 of 32 random bytes. */
const SIGNING_SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/

let s: Listening
let admin: Client
eachListening((started, client) => ([s, admin] = [started, client]))

/** The exact bot body: every field, the optional url only when set. */
const botBody = (fields: { id?: unknown; name: unknown; tags?: Record<string, string>; url?: string }) => ({
  id: fields.id ?? expect.any(String),
  name: fields.name,
  createdAt: expect.stringMatching(ISO),
  updatedAt: expect.stringMatching(ISO),
  deployedAt: expect.stringMatching(ISO),
  tags: fields.tags ?? {},
  ...(fields.url === undefined ? {} : { url: fields.url }),
  protocol: 'webhook',
  integrations: {
    chat: {
      enabled: true,
      webhookId: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
      webhookUrl: expect.any(String),
      // Neither key is ever shown: the mode says which one signs.
      encryptionMode: 'shared',
      configuration: { hasWebhookSecret: false },
    },
  },
})

/** createBot's answer split in two: the bot as every later read shows it, and the signing secret it shows this once. */
async function createBot(input: Parameters<Client['createBot']>[0]) {
  const {
    bot: { signingSecret, ...bot },
  } = (await admin.createBot(input)) as { bot: Awaited<ReturnType<Client['getBot']>>['bot'] & { signingSecret: string } }
  return { bot, signingSecret }
}

/** A raw admin request, to send what the official client would not. */
async function adminFetch(method: string, path: string, body?: unknown, token = ADMIN_TOKEN, workspaceId = WORKSPACE_ID) {
  const response = await fetch(`${s.baseUrl}/v1/admin${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'x-workspace-id': workspaceId,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

async function adminGraphql(query: string, variables: Record<string, unknown> = {}) {
  const { status, body } = await adminFetch('POST', '/graphql', { query, variables })
  return { status, body }
}

/** Waits until the bot's answer is the newest message of the conversation, and returns it. */
const botAnswer = (client: AuthenticatedClient, conversationId: string, botId: string) =>
  eventually(async () => {
    const { messages } = await client.listMessages({ conversationId })
    expect(messages[0]?.userId).toBe(botId)
    return messages[0]!
  })

/** A new bot named `name`; a @botpress/chat user at its webhookUrl says `text` in a new conversation; and the bot's answer. */
async function chatWithNewBot(name: string, text: string) {
  const { bot } = await admin.createBot({ name })
  const chat = bot.integrations.chat!
  const client = await ChatClient.connect({ apiUrl: chat.webhookUrl })
  const { conversation } = await client.createConversation({})
  await client.createMessage({ conversationId: conversation.id, payload: { type: 'text', text } })
  const answer = await botAnswer(client, conversation.id, bot.id)
  return { bot, chat, client, conversation, answer }
}

describe('createBot and getBot through @botpress/client', () => {
  it('creates a bot with its own chat integration and signing secret (shown this once), and getBot returns the same without it', async () => {
    const { bot, signingSecret } = await createBot({ name: 'Support', url: 'https://bot.example/hook', tags: { team: 'care' } })
    expect(bot).toEqual(botBody({ name: 'Support', url: 'https://bot.example/hook', tags: { team: 'care' } }))
    expect(bot.updatedAt).toBe(bot.createdAt)
    const chat = bot.integrations.chat!
    expect(chat.webhookUrl).toBe(`${s.baseUrl}/${chat.webhookId}`)
    expect(signingSecret).toMatch(SIGNING_SECRET)
    expect(Buffer.from(signingSecret.slice('whsec_'.length), 'base64')).toHaveLength(32)
    expect(chat.webhookId).not.toBe(WEBHOOK_ID)
    expect(JSON.stringify(bot)).not.toContain(ENCRYPTION_KEY)

    expect(await admin.getBot({ id: bot.id })).toEqual({ bot })
    const { bots } = await admin.listBots({})
    expect(bots.map((b) => b.id)).toEqual([s.botId, bot.id])
  })

  it('names a bot when no name is given, and leaves url out', async () => {
    const { bot } = await createBot({})
    expect(bot).toEqual(botBody({ name: expect.stringMatching(/^Bot \w{6}$/) }))
    expect(bot).not.toHaveProperty('url')
  })

  it('the bootstrap bot is an ordinary bot: its integration is the bootstrap webhook id, in shared mode', async () => {
    const { bot } = await admin.getBot({ id: s.botId })
    const expected = botBody({ id: s.botId, name: 'Echo bot' })
    expect(bot).toEqual({
      ...expected,
      integrations: {
        chat: { enabled: true, webhookId: WEBHOOK_ID, webhookUrl: s.apiUrl, encryptionMode: 'shared', configuration: { hasWebhookSecret: false } },
      },
    })
  })

  it('a @botpress/chat client at the webhookUrl chats with the new bot (the echo handler answers)', async () => {
    const { chat, client, conversation, answer } = await chatWithNewBot('Second', 'hello')
    expect(answer.payload).toEqual({ type: 'text', text: 'hello' })

    // The integrations are apart: the user and the conversation exist under the new webhook id only.
    const other = new ChatClient({ apiUrl: s.apiUrl })
    await expectApiError(other.getUser({ 'x-user-key': client.user.key }), Error, 401, 'Unauthorized')
    const again = new ChatClient({ apiUrl: chat.webhookUrl })
    expect((await again.getConversation({ id: conversation.id, 'x-user-key': client.user.key })).conversation.id).toBe(conversation.id)
  })

  it('refuses a bad url, bad tags and properties it does not take with 400 InvalidPayload', async () => {
    for (const url of ['ftp://bot.example/hook', 'not a url', 'javascript:alert(1)', '/relative']) {
      await expectApiError(admin.createBot({ url }), InvalidPayloadError, 400, 'InvalidPayload')
    }
    await expectApiError(admin.createBot({ tags: { n: 1 } as never }), InvalidPayloadError, 400, 'InvalidPayload')
    await expectApiError(admin.createBot({ dev: true }), InvalidPayloadError, 400, 'InvalidPayload')
    const refusals: [object, string][] = [
      [{ tags: ['a'] }, 'tags: expected an object, got a list'],
      [{ tags: 'a' }, 'tags: expected an object, got the string "a"'],
      [{ name: 5 }, 'name: expected a string, got the number 5'],
      [{ protocol: 'carrier-pigeon' }, 'protocol: expected one of botpress, webhook, got the string "carrier-pigeon"'],
      [{ name: '' }, 'name: expected at least 1 character, got 0'],
      [{ name: 'n'.repeat(256) }, 'name: expected at most 255 characters, got 256'],
      [{ url: 'ftp://bot.example/hook' }, 'url: expected an absolute http or https URL, got the string "ftp://bot.example/hook"'],
      [{ tags: { n: 1 } }, 'tags.n: expected a string, got the number 1'],
      [{ dev: true }, 'the request body has a property "dev" that this operation does not take'],
    ]
    for (const [body, message] of refusals) {
      expect(await adminFetch('POST', '/bots', body)).toEqual({ status: 400, body: { ...errorBody(400, 'InvalidPayload'), message } })
    }
    const { bots } = await admin.listBots({})
    expect(bots).toHaveLength(1)
  })

  it('answers 404 for an unknown bot and for another workspace’s bot', async () => {
    const { botId: otherBot } = await createTenant(s.t.store, {
      workspaceId: OTHER_WORKSPACE,
      adminToken: OTHER_TOKEN,
      webhookId: 'other-webhook',
      encryptionKey: 'other-key',
      botName: 'Other',
      botHandler: 'echo',
    })
    for (const id of ['no-such-bot', otherBot]) {
      await expectApiError(admin.getBot({ id }), ResourceNotFoundError, 404, 'ResourceNotFound')
      await expectApiError(admin.updateBot({ id, name: 'x' }), ResourceNotFoundError, 404, 'ResourceNotFound')
      await expectApiError(admin.deleteBot({ id }), ResourceNotFoundError, 404, 'ResourceNotFound')
      await expectApiError(admin.rotateBotSigningSecrets({ id }), ResourceNotFoundError, 404, 'ResourceNotFound')
      await expectApiError(admin.getBotLogs({ id, timeStart: '2020-01-01T00:00:00.000Z' }), ResourceNotFoundError, 404, 'ResourceNotFound')
    }
    // The other workspace's own token still opens it.
    const other = new Client({ apiUrl: s.baseUrl, token: OTHER_TOKEN, workspaceId: OTHER_WORKSPACE })
    expect((await other.getBot({ id: otherBot })).bot.name).toBe('Other')
  })
})

describe('updateBot', () => {
  it('changes the fields given, merges tags (null or empty removes one) and clears url with null', async () => {
    const { bot } = await createBot({ name: 'A', url: 'http://127.0.0.1:9/a', tags: { keep: '1', drop: '2', empty: '3' } })
    const { bot: renamed } = await admin.updateBot({ id: bot.id, name: 'B', tags: { drop: null, empty: '', add: '4' } })
    expect(renamed).toEqual({
      ...bot,
      name: 'B',
      tags: { keep: '1', add: '4' },
      updatedAt: expect.stringMatching(ISO),
    })
    expect(renamed.updatedAt >= bot.updatedAt).toBe(true)

    const { bot: moved } = await admin.updateBot({ id: bot.id, url: 'https://bot.example/b' })
    expect(moved).toEqual({ ...renamed, url: 'https://bot.example/b', updatedAt: expect.stringMatching(ISO) })

    const { bot: cleared } = await admin.updateBot({ id: bot.id, url: null })
    expect(cleared).not.toHaveProperty('url')
    const { url: _, ...withoutUrl } = renamed as typeof renamed & { url?: string }
    expect(cleared).toEqual({ ...withoutUrl, updatedAt: expect.stringMatching(ISO) })
    expect(await admin.getBot({ id: bot.id })).toEqual({ bot: cleared })
  })

  it('an update without fields changes only updatedAt', async () => {
    const { bot } = await createBot({ name: 'Same', url: 'https://bot.example/x' })
    const { bot: same } = await admin.updateBot({ id: bot.id })
    expect(same).toEqual({ ...bot, updatedAt: expect.stringMatching(ISO) })
  })

  it('refuses a bad url, bad tags and unknown properties, and leaves the bot as it was', async () => {
    const { bot } = await createBot({ name: 'Kept', url: 'https://bot.example/kept' })
    await expectApiError(admin.updateBot({ id: bot.id, url: 'mailto:bot@example.com' }), InvalidPayloadError, 400, 'InvalidPayload')
    await expectApiError(admin.updateBot({ id: bot.id, blocked: true }), InvalidPayloadError, 400, 'InvalidPayload')
    const refusals: [object, string][] = [
      [{ tags: ['x'] }, 'tags: expected an object, got a list'],
      [{ tags: { n: 2 } }, 'tags.n: expected a string, got the number 2'],
      [{ url: 'http//no' }, 'url: expected an absolute http or https URL, got the string "http//no"'],
      [{ protocol: 'grpc' }, 'protocol: expected one of botpress, webhook, got the string "grpc"'],
      [{ blocked: true }, 'the request body has a property "blocked" that this operation does not take'],
    ]
    for (const [body, message] of refusals) {
      expect(await adminFetch('PUT', `/bots/${bot.id}`, body)).toEqual({ status: 400, body: { ...errorBody(400, 'InvalidPayload'), message } })
    }
    expect(await admin.getBot({ id: bot.id })).toEqual({ bot })
  })
})

describe('deleteBot', () => {
  it('deletes the bot with its chat integration, users and conversations; its webhook id is then 404 for every chat route', async () => {
    const { bot, chat, client, conversation } = await chatWithNewBot('Doomed', 'bye')
    const listening = await fetch(`${chat.webhookUrl}/conversations/${conversation.id}/listen`, {
      headers: { 'x-user-key': client.user.key },
    })
    expect(listening.status).toBe(200)

    expect(await admin.deleteBot({ id: bot.id })).toEqual({})
    // Its live listeners end, as a deleted conversation's do.
    const reader = listening.body!.getReader()
    while (!(await reader.read()).done);

    await expectApiError(admin.getBot({ id: bot.id }), ResourceNotFoundError, 404, 'ResourceNotFound')
    expect((await admin.listBots({})).bots.map((b) => b.id)).toEqual([s.botId])

    const db = s.t.db
    expect(await db.select().from(chatIntegrations).where(eq(chatIntegrations.botId, bot.id))).toEqual([])
    expect(await db.select().from(users).where(eq(users.id, client.user.id))).toEqual([])
    expect(await db.select().from(conversations).where(eq(conversations.id, conversation.id))).toEqual([])

    const key = { 'x-user-key': client.user.key }
    const routes: [string, string, unknown?][] = [
      ['GET', '/hello'],
      ['GET', '/users/me'],
      ['POST', '/users', {}],
      ['POST', '/conversations', {}],
      ['GET', `/conversations/${conversation.id}/messages`],
      ['GET', `/conversations/${conversation.id}/listen`],
      ['POST', '/messages', { conversationId: conversation.id, payload: { type: 'text', text: 'x' } }],
      ['POST', '/graphql', { query: '{ me { userId } }' }],
    ]
    for (const [method, path, body] of routes) {
      const response = await fetch(`${chat.webhookUrl}${path}`, {
        method,
        headers: { ...key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      expect(response.status, `${method} ${path}`).toBe(404)
      const answer = await response.json()
      if (path === '/graphql') expect(answer.errors[0].extensions).toMatchObject({ type: 'ResourceNotFound' })
      else expect(answer).toEqual(errorBody(404, 'ResourceNotFound'))
    }
    // The other bots go on.
    expect((await fetch(`${s.apiUrl}/hello`)).status).toBe(200)
  })
})

describe('rotateBotSigningSecrets', () => {
  it('gives a new secret; the previous one keeps signing for 24 hours', async () => {
    const { bot, signingSecret } = await createBot({ name: 'Rotating' })
    const before = Date.now()
    const { newSigningSecret } = await admin.rotateBotSigningSecrets({ id: bot.id })
    const after = Date.now()
    expect(newSigningSecret).toMatch(SIGNING_SECRET)
    expect(newSigningSecret).not.toBe(signingSecret)
    // Shown by the rotation only: getBot shows neither secret.
    expect((await admin.getBot({ id: bot.id })).bot).toEqual(bot)

    const stored = await s.t.store.read((q) => q.bots.find(WORKSPACE_ID, bot.id))
    const secretsAt = (ms: number) => signingSecretsOf(stored as BotRow, new Date(ms).toISOString())
    const day = 24 * 60 * 60 * 1000
    expect(secretsAt(after)).toEqual([newSigningSecret, signingSecret])
    expect(secretsAt(before + day - 1)).toEqual([newSigningSecret, signingSecret])
    expect(secretsAt(after + day)).toEqual([newSigningSecret])

    // A second rotation keeps the secret it replaces, and retires the one before it at once.
    const { newSigningSecret: third } = await admin.rotateBotSigningSecrets({ id: bot.id })
    const rotatedTwice = await s.t.store.read((q) => q.bots.find(WORKSPACE_ID, bot.id))
    expect(signingSecretsOf(rotatedTwice as BotRow)).toEqual([third, newSigningSecret])
  })

  it('answers exactly {newSigningSecret}', async () => {
    const response = await adminFetch('POST', `/bots/${s.botId}/signing-secrets/rotate`, {})
    expect(response).toEqual({ status: 200, body: { newSigningSecret: expect.stringMatching(SIGNING_SECRET) } })
  })
})

describe('admin GraphQL', () => {
  const BOT_FIELDS = `botId name url tags deployedAt
    integrations { chat { enabled webhookId webhookUrl encryptionMode } }`

  it('createBot, bot, updateBot, rotateBotSigningSecrets and deleteBot', async () => {
    const created = await adminGraphql(`mutation ($input: CreateBotInput!) { createBot(input: $input) { bot { ${BOT_FIELDS} } signingSecret } }`, {
      input: { name: 'Graph', url: 'https://bot.example/g', tags: { a: 'b' } },
    })
    expect(created.status).toBe(200)
    const bot = created.body.data.createBot.bot
    expect(created.body.data.createBot.signingSecret).toMatch(SIGNING_SECRET)
    expect(bot).toEqual({
      botId: expect.any(String),
      name: 'Graph',
      url: 'https://bot.example/g',
      tags: { a: 'b' },
      deployedAt: expect.stringMatching(ISO),
      integrations: {
        chat: {
          enabled: true,
          webhookId: expect.any(String),
          webhookUrl: `${s.baseUrl}/${bot.integrations.chat.webhookId}`,
          encryptionMode: 'shared',
        },
      },
    })

    const read = await adminGraphql(`query ($id: String!) { bot(id: $id) { ${BOT_FIELDS} } }`, { id: bot.botId })
    expect(read.body).toEqual({ data: { bot } })

    const updated = await adminGraphql(`mutation ($input: UpdateBotInput!) { updateBot(input: $input) { bot { name url tags } } }`, {
      input: { id: bot.botId, url: null, tags: { a: null, c: 'd' } },
    })
    expect(updated.body).toEqual({ data: { updateBot: { bot: { name: 'Graph', url: null, tags: { c: 'd' } } } } })

    const rotated = await adminGraphql(`mutation ($id: String!) { rotateBotSigningSecrets(input: { id: $id }) { newSigningSecret } }`, { id: bot.botId })
    expect(rotated.body.data.rotateBotSigningSecrets.newSigningSecret).toMatch(SIGNING_SECRET)

    const deleted = await adminGraphql(`mutation ($id: String!) { deleteBot(input: { id: $id }) { botId } }`, { id: bot.botId })
    expect(deleted.body).toEqual({ data: { deleteBot: { botId: bot.botId } } })
    const gone = await adminGraphql(`query ($id: String!) { bot(id: $id) { botId } }`, { id: bot.botId })
    expect(gone.body).toEqual({
      data: null,
      errors: [expect.objectContaining({ path: ['bot'], extensions: expect.objectContaining({ type: 'ResourceNotFound', status: 404 }) })],
    })
  })

  it('refuses a bad url or tags with InvalidPayload', async () => {
    const create = (input: Record<string, unknown>) =>
      adminGraphql(`mutation ($input: CreateBotInput!) { createBot(input: $input) { bot { botId } } }`, { input })
    for (const input of [{ url: 'file:///etc/passwd' }, { tags: { n: true } }]) {
      const { body } = await create(input)
      expect(body.errors[0].extensions).toMatchObject({ type: 'InvalidPayload', status: 400 })
    }
    for (const input of [{ tags: ['a'] }, { protocol: 'x' }]) {
      const { status, body } = await create(input)
      expect(status).toBe(400)
      expect(body.data).toBeUndefined()
    }
  })
})
