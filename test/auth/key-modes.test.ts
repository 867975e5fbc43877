import { Client as ChatClient, UnauthorizedError as ChatUnauthorizedError } from '@botpress/chat'
import { type Client, InvalidPayloadError } from '@botpress/client'
import { decodeJwt } from 'jose'
import { describe, expect, it } from 'vitest'
import { signUserKey } from '../../src/auth/user-key.ts'
import { createUserRefusal } from '../../src/domain/key-modes.ts'
import { firstVisitRefusal } from '../../src/domain/webchat.ts'
import { ADMIN_TOKEN, ENCRYPTION_KEY, errorBody, WORKSPACE_ID } from '../helpers/app.ts'
import { fieldError } from '../helpers/graphql.ts'
import { eachListening, expectApiError, type Listening, PING, sign } from '../helpers/listening.ts'
import { SseReader } from '../helpers/sse.ts'

// Key modes, as Botpress' chat integration has them. An integration signs its user keys with the
// server's shared key (CONFAB_ENCRYPTION_KEY for the bootstrap bot; never printed or returned), and
// then anyone may create a user; or with a personal encryption key its operator sets through
// updateBot (integrations.chat.configuration.encryptionKey) and signs with, and then createUser and
// the web chat's first visit are 401: only keys the operator signs get in. The hole this closes: in
// shared mode, `POST /users {"id":"customer-123"}` before the customer's first visit returns the very
// key the operator's backend would later sign for that id.

const PERSONAL_KEY = 'operator-personal-key-0123456789abcdef'
const NEXT_PERSONAL_KEY = 'operator-next-personal-key-fedcba9876543210'

let s: Listening
let admin: Client
eachListening((started, client) => ([s, admin] = [started, client]))

/** The bootstrap bot's chat integration signs with `encryptionKey` from now on (null: the shared key again). */
const setPersonalKey = (encryptionKey: string | null) => admin.updateBot({ id: s.botId, integrations: { chat: { configuration: { encryptionKey } } } })

/** A raw request to the bootstrap bot's chat API, for what the official client hides. */
async function chat(method: string, path: string, { key, body, headers = {} }: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${s.apiUrl}${path}`, {
    method,
    headers: {
      ...headers,
      ...(key === undefined ? {} : { 'x-user-key': key }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

const chatGraphql = (query: string, key?: string) => chat('POST', '/graphql', { key, body: { query } })

/** How many users the integration holds besides its bot: what a refused creation must leave as it was. */
const userCount = async () => Number((await s.t.query<{ n: number }>('select count(*) as n from users where not is_bot'))[0]?.n)

/** The web chat's stream: its `init` message, or the refusal. */
async function initialize(key?: string) {
  const response = await fetch(`${s.apiUrl}/initialize`, { headers: { timeout: '60000', ...(key ? { 'x-user-key': key } : {}) } })
  if (response.status !== 200) return { status: response.status, body: await response.json() }
  const sse = new SseReader(response.body!)
  const block = await sse.message((b) => b.data === PING)
  await sse.cancel()
  return { status: response.status, init: JSON.parse(block!.data as string) }
}

describe('personal mode: the takeover of a user before its first visit', () => {
  it("the attacker's createUser is 401 with the reason, creates nothing, and the operator-signed key gets the real user in", async () => {
    await setPersonalKey(PERSONAL_KEY)
    const before = await userCount()

    const attack = await chat('POST', '/users', { body: { id: 'customer-123' } })
    expect(attack).toEqual({ status: 401, body: { ...errorBody(401, 'Unauthorized'), message: createUserRefusal } })
    // Botpress' chat integration's own words (integrations/chat, createUser) come first.
    expect(createUserRefusal.startsWith('The "createUser" operation can only be called when using the shared encryption key. ')).toBe(true)
    await expectApiError(new ChatClient({ apiUrl: s.apiUrl }).createUser({ id: 'customer-123' }), ChatUnauthorizedError, 401, 'Unauthorized')
    const viaGraphql = await chatGraphql('mutation { createUser(input: { id: "customer-123" }) { key } }')
    expect(viaGraphql.body).toEqual(fieldError('Unauthorized', 401, ['createUser']))
    expect(viaGraphql.body.errors[0].message).toBe(createUserRefusal)
    // Without an id too: personal mode has no anonymous users at all.
    expect((await chat('POST', '/users', { body: {} })).status).toBe(401)
    expect(await userCount()).toBe(before)

    const customer = await ChatClient.connect({ apiUrl: s.apiUrl, userId: 'customer-123', encryptionKey: PERSONAL_KEY })
    const { conversation } = await customer.createConversation({ id: 'support' })
    await customer.createMessage({ conversationId: conversation.id, payload: { type: 'text', text: 'my order number is 42' } })
    expect((await customer.listMessages({ conversationId: 'support' })).messages.length).toBeGreaterThan(0)
    // A key the attacker signs with anything else (the shared key among them) reads nothing.
    for (const secret of [ENCRYPTION_KEY, 'guessed-key-guessed-key-guessed-key']) {
      const forged = await sign({ id: 'customer-123' }, secret)
      expect(await chat('GET', '/conversations/support/messages', { key: forged })).toEqual({ status: 401, body: errorBody(401, 'Unauthorized') })
    }
  })

  it('a key signed with the shared key no longer works once a personal key is set, on REST, GraphQL and streams', async () => {
    const sharedKey = await signUserKey('early-user', ENCRYPTION_KEY)
    expect((await chat('POST', '/users/get-or-create', { key: sharedKey, body: {} })).status).toBe(200)
    expect((await chat('POST', '/conversations', { key: sharedKey, body: { id: 'early' } })).status).toBe(200)
    const listening = await fetch(`${s.apiUrl}/conversations/early/listen`, { headers: { 'x-user-key': sharedKey } })
    expect(listening.status).toBe(200)

    await setPersonalKey(PERSONAL_KEY)
    // The listener it opened ends: the key it opened with no longer holds.
    const reader = listening.body!.getReader()
    while (!(await reader.read()).done);
    expect(await chat('GET', '/users/me', { key: sharedKey })).toEqual({ status: 401, body: errorBody(401, 'Unauthorized') })
    expect((await chatGraphql('{ me { userId } }', sharedKey)).status).toBe(401)
    expect((await fetch(`${s.apiUrl}/conversations/early/listen`, { headers: { 'x-user-key': sharedKey } })).status).toBe(401)
    // The same user, with a key its operator signs, finds what it had.
    const operatorKey = await signUserKey('early-user', PERSONAL_KEY)
    expect((await chat('GET', '/conversations/early', { key: operatorKey })).status).toBe(200)
  })

  it('a new personal key replaces the old one at once: keys signed with the old one are 401', async () => {
    await setPersonalKey(PERSONAL_KEY)
    const old = await ChatClient.connect({ apiUrl: s.apiUrl, userId: 'rotated', encryptionKey: PERSONAL_KEY })
    await setPersonalKey(NEXT_PERSONAL_KEY)
    await expectApiError(old.getUser({}), ChatUnauthorizedError, 401, 'Unauthorized')
    const renewed = await ChatClient.connect({ apiUrl: s.apiUrl, userId: 'rotated', encryptionKey: NEXT_PERSONAL_KEY })
    expect((await renewed.getUser({})).user.id).toBe('rotated')
  })

  it("the web chat's first visit without a key is 401; an operator-signed key starts it (making its user) and init hands that key back", async () => {
    await setPersonalKey(PERSONAL_KEY)
    const before = await userCount()
    expect(await initialize()).toEqual({ status: 401, body: { ...errorBody(401, 'Unauthorized'), message: firstVisitRefusal } })
    expect(await userCount()).toBe(before)

    // An hour-long key stays an hour-long key: init does not sign a key of its own that never expires.
    const key = await signUserKey('visitor', PERSONAL_KEY, Date.now() + 3_600_000)
    const { status, init } = await initialize(key)
    expect(status).toBe(200)
    expect(init.type).toBe('init')
    expect(init.data.user).toMatchObject({ id: 'visitor', userKey: key })
    expect(decodeJwt(init.data.user.userKey).exp).toEqual(expect.any(Number))
  })

  it('POST /users/key takes the personal key as x-admin-secret, and no longer the shared key', async () => {
    await setPersonalKey(PERSONAL_KEY)
    await ChatClient.connect({ apiUrl: s.apiUrl, userId: 'ada', encryptionKey: PERSONAL_KEY })
    const refused = await chat('POST', '/users/key', { headers: { 'x-admin-secret': ENCRYPTION_KEY }, body: { id: 'ada' } })
    expect(refused).toEqual({ status: 401, body: errorBody(401, 'Unauthorized') })
    const issued = await chat('POST', '/users/key', { headers: { 'x-admin-secret': PERSONAL_KEY }, body: { id: 'ada' } })
    expect(issued.status).toBe(200)
    expect((await chat('GET', '/users/me', { key: issued.body.key })).body.user.id).toBe('ada')
  })
})

describe('back to shared mode (encryptionKey null, or a configuration without it)', () => {
  for (const [how, chatIntegration] of [
    ['encryptionKey: null', { configuration: { encryptionKey: null } }],
    ['configuration: {}', { configuration: {} }],
  ] as const) {
    it(`${how}: createUser is open again, personal keys are 401 and shared keys work again`, async () => {
      const sharedKey = await signUserKey('returning', ENCRYPTION_KEY)
      await setPersonalKey(PERSONAL_KEY)
      const personal = await ChatClient.connect({ apiUrl: s.apiUrl, userId: 'signed', encryptionKey: PERSONAL_KEY })

      const { bot } = await admin.updateBot({ id: s.botId, integrations: { chat: chatIntegration } })
      expect(bot.integrations.chat).toMatchObject({ encryptionMode: 'shared', configuration: { hasWebhookSecret: false } })
      const created = await new ChatClient({ apiUrl: s.apiUrl }).createUser({ id: 'newcomer' })
      expect(created.user.id).toBe('newcomer')
      expect((await chat('GET', '/users/me', { key: created.key })).status).toBe(200)
      await expectApiError(personal.getUser({}), ChatUnauthorizedError, 401, 'Unauthorized')
      expect((await chat('POST', '/users/get-or-create', { key: sharedKey, body: {} })).status).toBe(200)
      const { init } = await initialize()
      expect(init.data.user.userKey).toEqual(expect.any(String))
    })
  }

  it('an update that leaves integrations out, or gives chat without configuration, keeps the personal key', async () => {
    await setPersonalKey(PERSONAL_KEY)
    await admin.updateBot({ id: s.botId, name: 'Renamed' })
    const { bot } = await admin.updateBot({ id: s.botId, integrations: { chat: { enabled: true } } })
    expect(bot.integrations.chat).toMatchObject({ encryptionMode: 'personal' })
    expect((await chat('POST', '/users', { body: {} })).status).toBe(401)
  })
})

describe('getBot, listBots, updateBot and createBot never return a key', () => {
  it('shows encryptionMode and a configuration without keys, in REST and admin GraphQL', async () => {
    const { bot: updated } = await setPersonalKey(PERSONAL_KEY)
    const { bot } = await admin.getBot({ id: s.botId })
    expect(bot).toEqual(updated)
    expect(bot.integrations.chat).toEqual({
      enabled: true,
      webhookId: expect.any(String),
      webhookUrl: s.apiUrl,
      encryptionMode: 'personal',
      configuration: { hasWebhookSecret: false },
    })
    // @botpress/client's createBot sends no integrations: a raw request sets the key at creation.
    const createdResponse = await fetch(`${s.baseUrl}/v1/admin/bots`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Signed from the start', integrations: { chat: { configuration: { encryptionKey: NEXT_PERSONAL_KEY } } } }),
    })
    const { bot: created } = (await createdResponse.json()) as Awaited<ReturnType<typeof admin.createBot>>
    expect(created.integrations.chat).toMatchObject({ encryptionMode: 'personal', configuration: { hasWebhookSecret: false } })
    const other = await ChatClient.connect({ apiUrl: created.integrations.chat!.webhookUrl, userId: 'u', encryptionKey: NEXT_PERSONAL_KEY })
    expect(other.user.id).toBe('u')

    const everything = JSON.stringify([bot, created, await admin.listBots({}), await admin.getBot({ id: created.id })])
    for (const secret of [PERSONAL_KEY, NEXT_PERSONAL_KEY, ENCRYPTION_KEY]) expect(everything).not.toContain(secret)

    const graphql = await fetch(`${s.baseUrl}/v1/admin/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `{ bot(id: "${s.botId}") { integrations { chat { encryptionMode } } }
          __type(name: "ChatIntegration") { fields { name } } }`,
      }),
    })
    const { data } = await graphql.json()
    expect(data.bot).toEqual({ integrations: { chat: { encryptionMode: 'personal' } } })
    // No field could show a key: the schema has none.
    expect(data.__type.fields.map((f: { name: string }) => f.name).sort()).toEqual(['configuration', 'enabled', 'encryptionMode', 'webhookId', 'webhookUrl'])
  })
})

describe('admin GraphQL updateBot(input: { integrations })', () => {
  const update = async (integrations: unknown) => {
    const response = await fetch(`${s.baseUrl}/v1/admin/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation ($input: UpdateBotInput!) { updateBot(input: $input) { bot { integrations { chat { encryptionMode } } } } }',
        variables: { input: { id: s.botId, integrations } },
      }),
    })
    return response.json()
  }

  it('sets and clears the personal key through the same verb as REST', async () => {
    expect(await update({ chat: { configuration: { encryptionKey: PERSONAL_KEY } } })).toEqual({
      data: { updateBot: { bot: { integrations: { chat: { encryptionMode: 'personal' } } } } },
    })
    expect((await chat('POST', '/users', { body: {} })).status).toBe(401)
    expect(await update({ chat: { configuration: { encryptionKey: null } } })).toEqual({
      data: { updateBot: { bot: { integrations: { chat: { encryptionMode: 'shared' } } } } },
    })
    expect((await chat('POST', '/users', { body: {} })).status).toBe(200)
  })
})

describe('updateBot refuses what it cannot take, and leaves the mode as it was', () => {
  it('a key under 32 characters, a removed or disabled chat integration, other configuration or integrations: 400 InvalidPayload', async () => {
    const { bot } = await admin.getBot({ id: s.botId })
    const refused: unknown[] = [
      { chat: { configuration: { encryptionKey: 'short' } } },
      { chat: { configuration: { encryptionKey: 'x'.repeat(1025) } } },
      { chat: { configuration: { encryptionKey: 42 } } },
      { chat: null },
      { chat: { enabled: false, configuration: { encryptionKey: PERSONAL_KEY } } },
      { chat: { configuration: { encryptionKey: PERSONAL_KEY, webhookUrl: 'ftp://example.com' } } },
      { chat: { configuration: { encryptionKey: PERSONAL_KEY, signalUrl: 'https://example.com' } } },
      { slack: { configuration: {} } },
    ]
    for (const integrations of refused) {
      await expectApiError(admin.updateBot({ id: s.botId, integrations } as never), InvalidPayloadError, 400, 'InvalidPayload')
    }
    expect(await admin.getBot({ id: s.botId })).toEqual({ bot })
    expect((await chat('POST', '/users', { body: {} })).status).toBe(200)
  })
})

describe('keys the operator signs may carry exp', () => {
  it('a key past its exp is 401; one before it gets in', async () => {
    await setPersonalKey(PERSONAL_KEY)
    const seconds = Math.floor(Date.now() / 1000)
    const expired = await sign({ id: 'timed', exp: seconds - 60 }, PERSONAL_KEY)
    expect(await chat('POST', '/users/get-or-create', { key: expired, body: {} })).toEqual({ status: 401, body: errorBody(401, 'Unauthorized') })
    const current = await sign({ id: 'timed', exp: seconds + 3600 }, PERSONAL_KEY)
    expect((await chat('POST', '/users/get-or-create', { key: current, body: {} })).status).toBe(200)
    expect(await chat('GET', '/users/me', { key: expired })).toEqual({ status: 401, body: errorBody(401, 'Unauthorized') })
  })
})
