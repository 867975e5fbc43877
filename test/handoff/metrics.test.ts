import { Client as ChatClient } from '@botpress/chat'
import { Client } from '@botpress/client'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ConfabServer, createServer } from '../../src/index.ts'
import { type Call, createAgent, jsonCaller } from '../helpers/agent-api.ts'
import { setClock } from '../helpers/clock.ts'
import { onPostgres } from '../helpers/engine.ts'
import { ownDatabase } from '../helpers/own-database.ts'
import { sample, scrape } from '../helpers/prometheus.ts'

// The handoff metrics (docs/operations/metrics.md) of a real server with METRICS_PORT, on the
// suite's engine: the conversations handed off by who handles them and the queue's oldest wait, read
// from the database at each scrape, and the time from a handoff's request to its first agent reply.
// The clock is set (Date only), so that every figure is exact.

const webhookId = 'handoff-metrics'
const adminToken = 'bp_pat_handoff_metrics_admin'
const workspaceId = 'wkspace_handoff_metrics'
const encryptionKey = 'handoff-metrics-shared-key'
const database = onPostgres ? ownDatabase('confab_handoff_metrics') : undefined

let confab: ConfabServer
let call: Call
let bot: Client
let botId: string

beforeAll(async () => {
  await database?.create()
  confab = await createServer({
    databaseUrl: database?.url ?? ':memory:',
    log: pino({ level: 'silent' }),
    bootstrap: { webhookId, adminToken, workspaceId, encryptionKey },
    metricsPort: 0,
  })
  call = jsonCaller(confab.url)
  const admin = new Client({ apiUrl: confab.url, token: adminToken, workspaceId })
  botId = (await admin.listBots({})).bots[0]!.id
  bot = new Client({ apiUrl: confab.url, token: (await admin.createBotApiKey({ botId, note: 'metrics' })).value, botId, retry: { retries: 0 } })
  const alice = await ChatClient.connect({ apiUrl: `${confab.url}/${webhookId}`, userId: 'alice', encryptionKey })
  for (const id of ['m1', 'm2']) await alice.createConversation({ id })
}, 60_000)

afterAll(async () => {
  await confab?.close()
  await database?.drop()
})

const t0 = Date.parse('2026-06-01T10:00:00.000Z')
const clockAt = (seconds: number) => setClock(new Date(t0 + seconds * 1000).toISOString())
const startHitl = (conversationId: string) => bot.callAction({ type: 'hitl:startHitl', input: { userId: 'alice', conversationId, messageHistory: [] } })

async function handoffs() {
  const text = await scrape(confab.metricsUrl as string)
  const handledBy = (value: string) => sample(text, 'confab_handoff_conversations', { handled_by: value })
  return {
    waiting: handledBy('waiting'),
    agent: handledBy('agent'),
    closed: handledBy('closed'),
    oldestWaitingSeconds: sample(text, 'confab_handoff_oldest_waiting_seconds'),
    firstReply: {
      count: sample(text, 'confab_handoff_first_reply_seconds_count'),
      sum: sample(text, 'confab_handoff_first_reply_seconds_sum'),
      within120: sample(text, 'confab_handoff_first_reply_seconds_bucket', { le: '120' }),
      within300: sample(text, 'confab_handoff_first_reply_seconds_bucket', { le: '300' }),
    },
  }
}

describe('the handoff metrics', () => {
  it('count the queue and the conversations agents hold or closed, time the first agent reply of each handoff once', async () => {
    const ada = await createAgent(call, 'Ada', undefined, { token: adminToken, workspaceId })
    const asAda = (method: string, path: string, body: unknown = {}) => call(ada.key, method, `/v1/agent/bots/${botId}/conversations/${path}`, body)
    const reply = async (conversationId: string) =>
      expect((await asAda('POST', `${conversationId}/messages`, { payload: { type: 'text', text: 'hi' } })).status).toBe(200)
    const none = { count: 0, sum: 0, within120: 0, within300: 0 }
    expect(await handoffs()).toEqual({ waiting: 0, agent: 0, closed: 0, oldestWaitingSeconds: 0, firstReply: none })

    clockAt(0)
    await startHitl('m1')
    clockAt(30)
    await startHitl('m2')
    clockAt(100)
    expect(await handoffs()).toEqual({ waiting: 2, agent: 0, closed: 0, oldestWaitingSeconds: 100, firstReply: none })

    expect((await asAda('POST', 'm1/claim')).status).toBe(200)
    clockAt(160)
    await reply('m1')
    clockAt(200)
    await reply('m1')
    expect(await handoffs()).toEqual({
      waiting: 1,
      agent: 1,
      closed: 0,
      oldestWaitingSeconds: 170,
      firstReply: { count: 1, sum: 160, within120: 0, within300: 1 },
    })

    expect((await asAda('POST', 'm1/close')).status).toBe(200)
    expect((await asAda('POST', 'm2/claim')).status).toBe(200)
    clockAt(250)
    await reply('m2')
    expect(await handoffs()).toEqual({
      waiting: 0,
      agent: 1,
      closed: 1,
      oldestWaitingSeconds: 0,
      firstReply: { count: 2, sum: 380, within120: 0, within300: 2 },
    })

    // Handed off again: a new request, timed again.
    clockAt(300)
    await startHitl('m1')
    expect((await asAda('POST', 'm1/claim')).status).toBe(200)
    clockAt(360)
    await reply('m1')
    expect(await handoffs()).toEqual({
      waiting: 0,
      agent: 2,
      closed: 0,
      oldestWaitingSeconds: 0,
      firstReply: { count: 3, sum: 440, within120: 1, within300: 3 },
    })
  })
})
