import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminFetch } from '../helpers/admin-fetch.ts'
import { type Listening, startListening } from '../helpers/listening.ts'
import { botWithApiKey, type SdkBot, startSdkBot } from '../bots/sdk-bot.ts'
import { botLogLines, type PathSetup, walkTheHandoffPath } from './path.ts'

// Issue 52's done-when path on one instance (SQLite, or PostgreSQL under TEST_DATABASE_URL): a stock
// @botpress/sdk bot hands a @botpress/chat user to an agent working through the agent GraphQL API,
// and gets the conversation back (test/handoff/path.ts has the steps; the .pg file runs them on two
// instances).

let confab: Listening
let bot: SdkBot
let setup: PathSetup

beforeAll(async () => {
  confab = await startListening()
  const { botId, token } = await botWithApiKey(confab.baseUrl, 'Handoff bot')
  bot = await startSdkBot({ BP_API_URL: confab.baseUrl, BP_TOKEN: token }, 'test/handoff/hitl-bot/bot.ts')
  const put = await adminFetch(confab.baseUrl, 'PUT', `/bots/${botId}`, { url: bot.url, protocol: 'botpress' })
  expect(put.status).toBe(200)
  const created = await adminFetch(confab.baseUrl, 'POST', '/agents', { name: 'Ada' })
  expect(created.status).toBe(200)
  setup = {
    userApiUrl: put.body.bot.integrations.chat.webhookUrl,
    agentBaseUrl: confab.baseUrl,
    agent: { id: created.body.agent.id, key: created.body.key, name: 'Ada' },
    botId,
    botLogs: botLogLines(async (path) => (await adminFetch(confab.baseUrl, 'GET', path)).body, botId),
  }
}, 60_000)

afterAll(async () => {
  await bot?.stop()
  await confab?.close()
})

describe('the handoff path: @botpress/sdk bot → hitl:startHitl → agent GraphQL → @botpress/chat user → hitl:hitlStopped', () => {
  it('runs on one instance, each step asserted', async () => {
    await walkTheHandoffPath(setup, 'done-when')
  }, 120_000)
})
