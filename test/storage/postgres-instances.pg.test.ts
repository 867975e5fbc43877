import pg from 'pg'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { newSigningSecret } from '../../src/domain/bots/admin/secrets.ts'
import { createTestApp, errorBody, type TestApp } from '../helpers/app.ts'
import { manualClock, type Receiver, setBot, startReceiver } from '../bots/receiver.ts'
import { eventually } from '../helpers/wait.ts'

/*
 * Two instances (two apps, each with its own pool and delivery worker) on one PostgreSQL schema:
 * the races that one process owning its database (SQLite) never meets. This file always runs on
 * PostgreSQL (TEST_DATABASE_URL, or 127.0.0.1:5432): it fails if the database does not answer.
 */
const url = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

type AppOptions = Parameters<typeof createTestApp>[0]

/** Instance A, on a database of its own. */
async function firstInstance(options: AppOptions = {}): Promise<TestApp> {
  const a = createTestApp({ ...options, databaseUrl: url })
  cleanups.push(a.close)
  await a.ready
  return a
}

/** Instance B, on A's database. */
function secondInstance(a: TestApp, options: AppOptions = {}): TestApp {
  const b = createTestApp({ ...options, besides: a })
  // B closes first: A's close drops the schema.
  cleanups.push(b.close)
  return b
}

/**
 * Holds the first statement that `matches` (on any instance) until `release` is called, and says
 * when it has been reached: a race played in a chosen order, whatever the machine's speed.
 */
function holdStatement(matches: (sql: string) => boolean) {
  let reached!: () => void
  let release!: () => void
  const reachedAt = new Promise<void>((resolve) => (reached = resolve))
  const released = new Promise<void>((resolve) => (release = resolve))
  let armed = true
  const query = pg.Client.prototype.query
  vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const [first] = args
    const sql = typeof first === 'string' ? first : String((first as { text?: string }).text)
    const send = () => (query as (...a: unknown[]) => unknown).apply(this, args)
    if (!armed || !matches(sql)) return send()
    armed = false
    reached()
    return released.then(send)
  } as never)
  return { reached: reachedAt, release }
}

describe('a write racing a delete on another instance', () => {
  it('createMessage on A whose conversation B deletes meanwhile answers 404, and stores nothing', async () => {
    const a = await firstInstance()
    const b = secondInstance(a)
    const alice = await a.user('alice')
    await a.conversation(alice.key, 'c1')
    // A has found the conversation and alice in it; its message is about to be inserted (with its
    // bot event and delivery, in one statement: src/db/postgres/unit.ts).
    const held = holdStatement((sql) => sql.includes('insert into "messages"'))
    const creating = a.chat('POST', '/messages', { key: alice.key, body: { conversationId: 'c1', payload: { type: 'text', text: 'late' } } })
    await held.reached
    expect((await b.chat('DELETE', '/conversations/c1', { key: alice.key })).status).toBe(200)
    held.release()
    const res = await creating
    expect([res.status, res.body]).toEqual([404, errorBody(404, 'ResourceNotFound')])
    expect(res.body.message).toBe('Conversation "c1" does not exist')
    expect(await a.count('select count(*) as n from messages')).toBe(0)
    expect(await a.count('select count(*) as n from bot_deliveries')).toBe(0)
  })

  it('addParticipant on A whose conversation B deletes meanwhile answers 404', async () => {
    const a = await firstInstance()
    const b = secondInstance(a)
    const alice = await a.user('alice')
    await a.user('bob')
    await a.conversation(alice.key, 'c1')
    const held = holdStatement((sql) => sql.startsWith('insert into "participants"'))
    const adding = a.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })
    await held.reached
    expect((await b.chat('DELETE', '/conversations/c1', { key: alice.key })).status).toBe(200)
    held.release()
    const res = await adding
    expect([res.status, res.body]).toEqual([404, errorBody(404, 'ResourceNotFound')])
    expect(await a.count('select count(*) as n from participants')).toBe(0)
  })
})

describe('a botpress delivery under way past its lease', () => {
  let receiver: Receiver

  it('is renewed by the instance making it, and is never taken by the other meanwhile', async () => {
    const leaseMs = 1_500
    const options = { botLeaseMs: leaseMs, botTimeoutMs: 30_000 }
    // A looks at the outbox only when its own writes wake it: what it took again itself while its
    // attempt is under way would not be made twice.
    const a = await firstInstance({ ...options, botSweepMs: 3_600_000 })
    let answer!: () => void
    const answered = new Promise<void>((resolve) => (answer = resolve))
    receiver = await startReceiver(async () => {
      await answered
      return { status: 200 }
    })
    cleanups.push(() => receiver.close())
    const botId = a.tenant?.botId as string
    await setBot(a, botId, { url: receiver.url, signingSecret: newSigningSecret(), protocol: 'botpress' })
    const alice = await a.user('alice')
    await a.conversation(alice.key, 'c1')
    await a.message(alice.key, 'c1', { type: 'text', text: 'a long one' })
    await eventually(() => expect(receiver.received).toHaveLength(1))
    const [claimed] = await a.query<{ leased_until: string }>('select leased_until from bot_deliveries')
    const firstLease = Date.parse(claimed!.leased_until)
    // B starts once A holds the delivery, and looks every 50 ms: it would take it soon after its lease ran out.
    const b = secondInstance(a, { ...options, botSweepMs: 50 })
    await b.ready

    // The bot holds its answer until the lease it was claimed with has long run out (B, looking
    // every 50 ms, would have taken it by then), the delivery still held: its lease renewed since.
    await vi.waitFor(
      async () => {
        const [row] = await a.query<{ leased_until: string }>('select leased_until from bot_deliveries')
        expect(Date.now()).toBeGreaterThan(firstLease + leaseMs / 2)
        expect(Date.parse(row!.leased_until)).toBeGreaterThan(Date.now())
      },
      { timeout: 20_000, interval: 100 },
    )
    expect(receiver.received).toHaveLength(1)
    answer()
    await eventually(async () => expect(await a.count('select count(*) as n from bot_deliveries')).toBe(0))
    await Promise.all([a.app.bots.idle(), b.app.bots.idle()])
    expect(receiver.received).toHaveLength(1)
    const lines = await a.query<{ message: string }>('select message from bot_logs order by timestamp, id')
    expect(lines.map((line) => line.message)).toEqual([expect.stringMatching(/^POST .*: HTTP 200 in \d+ ms$/)])
  }, 60_000)
})

describe('an instance that dies in the middle of a batch', () => {
  it('leaves its settled deliveries settled; another takes the rest once the lease ran out, in order, each once more at most', async () => {
    const leaseMs = 1_500
    // A only records the messages: its worker is stopped, and B finds them all queued.
    const a = await firstInstance({ botSweepMs: 3_600_000 })
    await a.app.bots.stop()
    const receiver = await startReceiver((request, index) => (request.json.data.payload.text === 'm2' && index === 2 ? 'hang' : { status: 200 }))
    cleanups.push(() => receiver.close())
    await setBot(a, a.tenant?.botId as string, { url: receiver.url, signingSecret: newSigningSecret() })
    const alice = await a.user('alice')
    await a.conversation(alice.key, 'c1')
    const burst = ['m0', 'm1', 'm2', 'm3', 'm4']
    for (const text of burst) await a.message(alice.key, 'c1', { type: 'text', text })

    // B claims the five as one batch: m0 and m1 are settled while the bot holds m2.
    const b = secondInstance(a, { botLeaseMs: leaseMs, botSweepMs: 3_600_000 })
    await eventually(() => expect(receiver.received).toHaveLength(3))
    await eventually(async () => expect(await a.count('select count(*) as n from bot_deliveries')).toBe(3))
    const leases = await a.query<{ leased_until: string | null }>('select leased_until from bot_deliveries order by seq')
    expect(leases.map((row) => row.leased_until !== null)).toEqual([true, true, true])
    const leasedUntil = Math.max(...leases.map((row) => Date.parse(row.leased_until as string)))
    // B's worker dies: its attempt of m2 is never settled, and its lease is neither renewed nor given up.
    await b.app.bots.stop()

    const c = secondInstance(a, { botSweepMs: 50 })
    await vi.waitFor(() => expect(receiver.received).toHaveLength(6), { timeout: 20_000, interval: 50 })
    expect(Date.now()).toBeGreaterThanOrEqual(leasedUntil)
    await eventually(async () => expect(await a.count('select count(*) as n from bot_deliveries')).toBe(0))
    await c.app.bots.idle()
    const texts = receiver.received.map((r) => r.json.data.payload.text)
    const ids = receiver.received.map((r) => r.headers['webhook-id'])
    expect(texts).toEqual(['m0', 'm1', 'm2', 'm2', 'm3', 'm4'])
    expect(ids[3]).toBe(ids[2])
    expect(new Set(ids).size).toBe(5)
  }, 60_000)
})

describe('a claim that takes the head of a conversation whose batch is under way on the claiming instance', () => {
  it('gives that head up at once, and the conversation goes on as its batch ends, not when the lease runs out', async () => {
    // A lease far longer than the test, on a clock the test moves: only the test makes one run out.
    const clock = manualClock()
    const options = { clock: clock.now, botLeaseMs: 600_000, botTimeoutMs: 60_000, botSweepMs: 3_600_000 }
    const a = await firstInstance(options)
    let answer!: () => void
    const answered = new Promise<void>((resolve) => (answer = resolve))
    const receiver = await startReceiver(async (_request, index) => {
      if (index === 0) await answered
      return { status: 200 }
    })
    cleanups.push(() => receiver.close())
    await setBot(a, a.tenant?.botId as string, { url: receiver.url, signingSecret: newSigningSecret() })
    const alice = await a.user('alice')
    await a.conversation(alice.key, 'c1')
    await a.conversation(alice.key, 'c2')
    const texts = () => receiver.received.map((r) => r.json.data.payload.text)
    const leasesOf = (conversationId: string) =>
      a.query<{ leased_until: string | null }>('select leased_until from bot_deliveries where conversation_id = ? order by seq', conversationId)

    // A's batch of c1 is under way (the bot holds m0) when B, once m0's lease ran out, takes m0 and
    // delivers it: c1's head is then m1, recorded through B whose worker has stopped, due, held by nobody.
    await a.message(alice.key, 'c1', { type: 'text', text: 'm0' })
    await eventually(() => expect(texts()).toEqual(['m0']))
    clock.advance(600_001)
    const b = secondInstance(a, options)
    await eventually(() => expect(texts()).toEqual(['m0', 'm0']))
    await eventually(async () => expect(await leasesOf('c1')).toEqual([]))
    await b.app.bots.stop()
    await b.message(alice.key, 'c1', { type: 'text', text: 'm1' })

    // A message to c2 makes A look at the outbox: its claim takes c2's head and c1's, whose batch is under way on A.
    await a.message(alice.key, 'c2', { type: 'text', text: 'n0' })
    await eventually(() => expect(texts()).toEqual(['m0', 'm0', 'n0']))
    // c1's head is not kept for the whole lease, waiting for nobody.
    await eventually(async () => expect(await leasesOf('c1')).toEqual([{ leased_until: null }]))

    // The bot answers A's m0: A's batch ends and c1 goes on with m1, the lease's end far away.
    answer()
    await eventually(() => expect(texts()).toEqual(['m0', 'm0', 'n0', 'm1']))
    await eventually(async () => expect(await a.count('select count(*) as n from bot_deliveries')).toBe(0))
    await a.app.bots.idle()
  }, 60_000)
})
