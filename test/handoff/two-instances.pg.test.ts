import { randomUUID } from 'node:crypto'
import { Client as ChatClient } from '@botpress/chat'
import { Client } from '@botpress/client'
import pg from 'pg'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ConfabServer, createServer } from '../../src/index.ts'
import { type Call, createAgent, jsonCaller } from '../helpers/agent-api.ts'
import { ownDatabase, queryOnce } from '../helpers/own-database.ts'
import { sample, scrape } from '../helpers/prometheus.ts'
import { TEST_REDIS_URL } from '../helpers/redis.ts'
import { SseReader } from '../helpers/sse.ts'
import { eventually } from '../helpers/wait.ts'

/*
 * A handoff across two real servers (createServer, as `npm start` makes them) on one PostgreSQL
 * database and one Redis: an agent's queue feed on B hears a startHitl made through A, two agents
 * claiming through A and B at once get one 200 and one 409, and both instances' metrics read the
 * same handoffs from the database. Always runs on PostgreSQL (TEST_DATABASE_URL, or 127.0.0.1:5432)
 * and Redis (TEST_REDIS_URL, or 127.0.0.1:6379).
 */
const database = ownDatabase('confab_handoff_two')
const bootstrap = {
  webhookId: 'handoff-two',
  adminToken: 'bp_pat_handoff_two_admin',
  workspaceId: 'wkspace_handoff_two',
  encryptionKey: 'handoff-two-shared-key',
}

let a: ConfabServer
let b: ConfabServer
let botId: string
let bot: Client
const agents: Record<'ada' | 'bo', { id: string; key: string }> = {} as never

const start = () =>
  createServer({
    databaseUrl: database.url,
    redisUrl: TEST_REDIS_URL,
    // The rate limits' counters of this file's own in the suite's Redis.
    rateLimitPrefix: `handoff-two-${randomUUID()}:`,
    log: pino({ level: 'silent' }),
    bootstrap,
    metricsPort: 0,
  })

beforeAll(async () => {
  await database.create()
  a = await start()
  b = await start()
  const call: Call = jsonCaller(a.url)
  const admin = new Client({ apiUrl: a.url, token: bootstrap.adminToken, workspaceId: bootstrap.workspaceId })
  botId = (await admin.listBots({})).bots[0]!.id
  bot = new Client({ apiUrl: a.url, token: (await admin.createBotApiKey({ botId, note: 'two' })).value, botId, retry: { retries: 0 } })
  const admins = { token: bootstrap.adminToken, workspaceId: bootstrap.workspaceId }
  agents.ada = await createAgent(call, 'Ada', undefined, admins)
  agents.bo = await createAgent(call, 'Bo', undefined, admins)
  const alice = await ChatClient.connect({ apiUrl: `${b.url}/${bootstrap.webhookId}`, userId: 'alice', encryptionKey: bootstrap.encryptionKey })
  for (const id of ['r1', 'r2']) await alice.createConversation({ id })
}, 60_000)

afterAll(async () => {
  await Promise.allSettled([a?.close(), b?.close()])
  await database.drop()
})

const claimOn = (server: ConfabServer, who: keyof typeof agents, conversationId: string) =>
  jsonCaller(server.url)(agents[who].key, 'POST', `/v1/agent/bots/${botId}/conversations/${conversationId}/claim`, {})

describe('a handoff across two instances (PostgreSQL + Redis)', () => {
  it('an agent’s queue feed on B hears a startHitl made through A, and the claim made through A', async () => {
    const before = b.app.signals.activeSubscriptions()
    const feed = await fetch(`${b.url}/v1/agent/queue/listen`, { headers: { authorization: `Bearer ${agents.bo.key}` } })
    expect(feed.status).toBe(200)
    const updates = new SseReader(feed.body as ReadableStream<Uint8Array>)
    await eventually(() => expect(b.app.signals.activeSubscriptions()).toBe(before + 1))
    const next = async () => JSON.parse((await updates.message((block) => !block.data?.includes('handoff_changed')))?.data ?? 'null')

    await bot.callAction({ type: 'hitl:startHitl', input: { userId: 'alice', conversationId: 'r1', title: 'Across', messageHistory: [] } })
    expect(await next()).toEqual({ type: 'handoff_changed', botId, conversationId: 'r1', handledBy: 'waiting', title: 'Across' })
    expect((await claimOn(a, 'ada', 'r1')).status).toBe(200)
    // Bo hears that another agent holds it, not whom.
    expect(await next()).toEqual({ type: 'handoff_changed', botId, conversationId: 'r1', handledBy: 'agent' })
    await updates.cancel()
  })

  it('two agents claiming at once through A and B: one 200, one 409 AlreadyExists', async () => {
    await bot.callAction({ type: 'hitl:startHitl', input: { userId: 'alice', conversationId: 'r2', messageHistory: [] } })
    // The conversation's row locked elsewhere: both claims read it waiting, then queue on the lock.
    const holder = new pg.Client({ connectionString: database.url })
    await holder.connect()
    try {
      await holder.query('begin')
      await holder.query(`select 1 from conversations where id = 'r2' for update`)
      const claims = Promise.all([claimOn(a, 'ada', 'r2'), claimOn(b, 'bo', 'r2')])
      await eventually(async () => {
        const waiting = await queryOnce<{ n: string }>(
          database.url,
          `select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        )
        expect(Number(waiting[0]!.n)).toBe(2)
      })
      await holder.query('rollback')
      const results = await claims
      expect(results.map((r) => r.status).sort()).toEqual([200, 409])
      expect(results.find((r) => r.status === 409)?.body).toMatchObject({ code: 409, type: 'AlreadyExists' })
      const winner = results.find((r) => r.status === 200)?.body.conversation.agentId
      expect([agents.ada.id, agents.bo.id]).toContain(winner)
    } finally {
      await holder.end()
    }
  })

  it('both instances’ metrics read the same handoffs from the database', async () => {
    for (const server of [a, b]) {
      const text = await scrape(server.metricsUrl as string)
      expect(['waiting', 'agent', 'closed'].map((handledBy) => sample(text, 'confab_handoff_conversations', { handled_by: handledBy }))).toEqual([0, 2, 0])
    }
  })
})
