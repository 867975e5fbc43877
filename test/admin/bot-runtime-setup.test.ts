import { Client, ResourceNotFoundError } from '@botpress/client'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, ISO, OTHER, WORKSPACE_ID } from '../helpers/app.ts'
import { adminFetchOn } from '../helpers/admin-fetch.ts'
import { type Listening, startListening } from '../helpers/listening.ts'

// What running an @botpress/sdk bot takes on the administration side: a bot whose protocol is
// `botpress` (admin REST and GraphQL), and bot API keys (createBotApiKey / deleteBotApiKey).

let s: Listening
let admin: Client

beforeEach(async () => {
  s = await startListening({ handlers: {} })
  admin = new Client({ apiUrl: s.baseUrl, token: ADMIN_TOKEN, workspaceId: WORKSPACE_ID, retry: { retries: 0 } })
})

afterEach(async () => {
  await s.close()
})

const adminFetch = adminFetchOn(() => s)

const runtimeCall = (key: string, botId: string) =>
  fetch(`${s.baseUrl}/v1/chat/states/bot/${botId}/x`, { headers: { authorization: `Bearer ${key}`, 'x-bot-id': botId } })

describe('a bot’s protocol', () => {
  it('is webhook by default, set to botpress with PUT /v1/admin/bots/{id} and back, and refused when unknown', async () => {
    const { bot } = await admin.createBot({ name: 'sdk' })
    expect((await adminFetch('GET', `/bots/${bot.id}`)).body.bot.protocol).toBe('webhook')
    const put = await adminFetch('PUT', `/bots/${bot.id}`, { url: 'http://127.0.0.1:9/bot', protocol: 'botpress' })
    expect(put).toMatchObject({ status: 200, body: { bot: { protocol: 'botpress', url: 'http://127.0.0.1:9/bot' } } })
    expect((await adminFetch('GET', `/bots/${bot.id}`)).body.bot.protocol).toBe('botpress')
    expect((await adminFetch('PUT', `/bots/${bot.id}`, { protocol: 'webhook' })).body.bot.protocol).toBe('webhook')
    const refused = await adminFetch('PUT', `/bots/${bot.id}`, { protocol: 'carrier-pigeon' })
    expect(refused).toMatchObject({
      status: 400,
      body: { code: 400, type: 'InvalidPayload', message: 'protocol: expected one of botpress, webhook, got the string "carrier-pigeon"' },
    })
    const created = await adminFetch('POST', '/bots', { name: 'direct', protocol: 'botpress' })
    expect(created).toMatchObject({ status: 200, body: { bot: { protocol: 'botpress' } } })
  })

  it('is a field of the admin GraphQL Bot, settable by createBot and updateBot', async () => {
    const gql = (query: string) => adminFetch('POST', '/graphql', { query })
    const created = await gql('mutation { createBot(input: { name: "g", protocol: botpress }) { bot { botId protocol } } }')
    expect(created.body.data.createBot.bot.protocol).toBe('botpress')
    const id = created.body.data.createBot.bot.botId
    const updated = await gql(`mutation { updateBot(input: { id: "${id}", protocol: webhook }) { bot { protocol } } }`)
    expect(updated.body.data.updateBot.bot.protocol).toBe('webhook')
  })
})

describe('bot API keys', () => {
  it('createBotApiKey answers {id, createdAt, note, value}; the key opens the runtime API for its bot; deleteBotApiKey closes it', async () => {
    const key = await admin.createBotApiKey({ botId: s.botId, note: 'for my bot' })
    expect(key).toEqual({ id: expect.any(String), createdAt: expect.stringMatching(ISO), note: 'for my bot', value: expect.stringMatching(/^bak_/) })
    expect((await runtimeCall(key.value, s.botId)).status).toBe(404)
    await admin.deleteBotApiKey({ id: key.id })
    const refused = await runtimeCall(key.value, s.botId)
    expect(refused.status).toBe(401)
    expect(await refused.json()).toMatchObject({ code: 401, type: 'Unauthorized', id: expect.stringMatching(/^err_/) })
    await expect(admin.deleteBotApiKey({ id: key.id })).rejects.toBeInstanceOf(ResourceNotFoundError)
  })

  it('listBotApiKeys lists a bot’s keys without their values, oldest first; an unknown bot is 404', async () => {
    const first = await admin.createBotApiKey({ botId: s.botId, note: 'one' })
    const second = await admin.createBotApiKey({ botId: s.botId })
    expect(await admin.listBotApiKeys({ botId: s.botId })).toEqual({
      baks: [
        { id: first.id, createdAt: first.createdAt, note: 'one' },
        { id: second.id, createdAt: second.createdAt },
      ],
    })
    await admin.deleteBotApiKey({ id: first.id })
    expect((await admin.listBotApiKeys({ botId: s.botId })).baks.map((k) => k.id)).toEqual([second.id])
    await expect(admin.listBotApiKeys({ botId: 'no-such-bot' })).rejects.toBeInstanceOf(ResourceNotFoundError)
  })

  it('leaves note out when none is given, and refuses an unknown bot with 404', async () => {
    const key = await admin.createBotApiKey({ botId: s.botId })
    expect(key).not.toHaveProperty('note')
    await expect(admin.createBotApiKey({ botId: 'no-such-bot' })).rejects.toBeInstanceOf(ResourceNotFoundError)
  })

  it('createBotApiKey and deleteBotApiKey are admin GraphQL mutations too', async () => {
    const gql = (query: string) => adminFetch('POST', '/graphql', { query })
    const created = await gql(`mutation { createBotApiKey(input: { botId: "${s.botId}", note: "g" }) { botApiKey { id createdAt note value } } }`)
    const key = created.body.data.createBotApiKey.botApiKey
    expect(key).toEqual({ id: expect.any(String), createdAt: expect.stringMatching(ISO), note: 'g', value: expect.stringMatching(/^bak_/) })
    expect((await runtimeCall(key.value, s.botId)).status).toBe(404)
    expect((await gql(`mutation { deleteBotApiKey(input: { id: "${key.id}" }) { botApiKeyId } }`)).body.data.deleteBotApiKey).toEqual({ botApiKeyId: key.id })
    expect((await runtimeCall(key.value, s.botId)).status).toBe(401)
  })

  it('another workspace can neither make a key for the bot nor delete one of its keys (404)', async () => {
    await s.t.otherTenant()
    const other = new Client({ apiUrl: s.baseUrl, token: OTHER.adminToken, workspaceId: OTHER.workspaceId, retry: { retries: 0 } })
    await expect(other.createBotApiKey({ botId: s.botId })).rejects.toBeInstanceOf(ResourceNotFoundError)
    const key = await admin.createBotApiKey({ botId: s.botId })
    await expect(other.deleteBotApiKey({ id: key.id })).rejects.toBeInstanceOf(ResourceNotFoundError)
    expect((await runtimeCall(key.value, s.botId)).status).toBe(404)
  })

  it('a key acts for its bot only', async () => {
    const { bot } = await admin.createBot({ name: 'other' })
    const key = await admin.createBotApiKey({ botId: bot.id })
    expect((await runtimeCall(key.value, bot.id)).status).toBe(404)
    expect((await runtimeCall(key.value, s.botId)).status).toBe(401)
  })
})
