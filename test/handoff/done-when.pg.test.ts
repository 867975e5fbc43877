import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ownDatabase } from '../helpers/own-database.ts'
import { TEST_REDIS_URL } from '../helpers/redis.ts'
import { ensureBuilt, randomAdminToken, randomEncryptionKey, type RunningServer, START_TIMEOUT, startServer } from '../helpers/server.ts'
import { type SdkBot, startSdkBot } from '../bots/sdk-bot.ts'
import { botLogLines, type PathSetup, walkTheHandoffPath } from './path.ts'

/*
 * Issue 52's done-when path on two real instances (`npm start`) on one PostgreSQL database and one
 * Redis: the stock @botpress/sdk bot and its @botpress/chat user on instance A, the agent on instance
 * B (test/handoff/path.ts has the steps). Always runs on PostgreSQL (TEST_DATABASE_URL, or
 * 127.0.0.1:5432) and Redis (TEST_REDIS_URL, or 127.0.0.1:6379).
 */
const database = ownDatabase('confab_handoff')

const env = {
  REDIS_URL: TEST_REDIS_URL,
  CONFAB_WORKSPACE_ID: 'wkspace_handoff',
  CONFAB_ADMIN_TOKEN: randomAdminToken(),
  CONFAB_WEBHOOK_ID: 'handoff-two',
  CONFAB_ENCRYPTION_KEY: randomEncryptionKey(),
}

let a: RunningServer
let b: RunningServer
let bot: SdkBot
let setup: PathSetup

/** One call of A's admin REST API, as the workspace's operator. */
async function admin(method: string, path: string, body?: unknown) {
  const res = await fetch(`${a.baseUrl}/v1/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${env.CONFAB_ADMIN_TOKEN}`, 'x-workspace-id': env.CONFAB_WORKSPACE_ID, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() }
}

beforeAll(async () => {
  // Built once first: two instances building at once each take twice as long.
  await ensureBuilt()
  await database.create()
  ;[a, b] = await Promise.all([startServer({ databaseUrl: database.url, env }), startServer({ databaseUrl: database.url, env })])
  const created = await admin('POST', '/bots', { name: 'Handoff bot' })
  expect(created.status).toBe(200)
  const botId = created.body.bot.id as string
  const key = await admin('POST', '/bots/baks', { botId, note: 'handoff bot' })
  expect(key.status).toBe(200)
  bot = await startSdkBot({ BP_API_URL: a.baseUrl, BP_TOKEN: key.body.value }, 'test/handoff/hitl-bot/bot.ts')
  const put = await admin('PUT', `/bots/${botId}`, { url: bot.url, protocol: 'botpress' })
  expect(put.status).toBe(200)
  const agent = await admin('POST', '/agents', { name: 'Ada' })
  expect(agent.status).toBe(200)
  setup = {
    userApiUrl: put.body.bot.integrations.chat.webhookUrl,
    agentBaseUrl: b.baseUrl,
    agent: { id: agent.body.agent.id, key: agent.body.key, name: 'Ada' },
    botId,
    botLogs: botLogLines(async (path) => (await admin('GET', path)).body, botId),
  }
}, 3 * START_TIMEOUT)

afterAll(async () => {
  await bot?.stop()
  await Promise.allSettled([a?.stop(), b?.stop()])
  await database.drop()
}, 2 * START_TIMEOUT)

describe('the handoff path on two instances (PostgreSQL + Redis): the user on A, the agent on B', () => {
  it('runs, each step asserted', async () => {
    expect(setup.userApiUrl.startsWith(a.baseUrl)).toBe(true)
    await walkTheHandoffPath(setup, 'done-when-two')
  }, 120_000)
})
