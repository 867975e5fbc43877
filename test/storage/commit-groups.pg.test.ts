import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { bootstrap, firstTenant } from '../../src/bootstrap.ts'
import { openPostgresStore, type PostgresStore } from '../../src/db/postgres/store.ts'
import { findChatIntegration } from '../../src/domain/tenancy.ts'

/*
 * Units whose only writes are inserts held to their end commit as one statement by themselves; those
 * that end together are written together (CommitGroups, src/db/postgres/unit.ts). This file always
 * runs on PostgreSQL (TEST_DATABASE_URL, or 127.0.0.1:5432): it fails if the database does not answer.
 */
const url = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'

let store: PostgresStore
let schema: string
let botId: string
/** The statements sent that insert the bot's log lines, with their parameters. */
let lineInserts: { text: string; values: unknown[] }[] = []

beforeEach(async () => {
  schema = `test_lone_${randomBytes(6).toString('hex')}`
  store = await openPostgresStore(url, { schema, poolSize: 4 })
  const planned = firstTenant({ webhookId: `wh-${randomBytes(4).toString('hex')}` })
  await bootstrap(store, planned)
  const integration = await findChatIntegration(store, planned.webhookId)
  botId = (await store.read((q) => q.bots.ofIntegration(integration.id)))!.bot.id
  lineInserts = []
  const query = pg.Client.prototype.query
  vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const [first, second] = args
    const text = typeof first === 'string' ? first : String((first as { text?: string }).text)
    const values = Array.isArray(second) ? second : ((first as { values?: unknown[] }).values ?? [])
    if (text.includes('insert into "bot_logs"')) lineInserts.push({ text, values })
    return (query as (...a: unknown[]) => unknown).apply(this, args)
  } as never)
})

afterEach(async () => {
  vi.restoreAllMocks()
  await store.close()
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query(`drop schema if exists "${schema}" cascade`)
  await client.end()
})

const at = '2026-01-01T00:00:00.000Z'
/** A unit that writes one log line of the bot's (an insert nothing reads back: held to the unit's end). */
const insertLine = (id: string) =>
  store.write((q) => q.botLogs.insert({ id, botId, timestamp: at, level: 'info', message: 'a line', conversationId: null, userId: null }))
const stored = async (ids: string[]) =>
  (await store.pool.query<{ id: string }>('select id from bot_logs where id = any($1) order by id', [ids])).rows.map(({ id }) => id)

describe('units that end with held inserts only', () => {
  it('commit together, in one statement, when they end in the same turn', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `u${i}`)
    await Promise.all(ids.map(insertLine))
    expect(await stored(ids)).toEqual(ids)
    expect(lineInserts).toHaveLength(1)
    expect(lineInserts[0]!.values).toEqual(expect.arrayContaining(ids))
  })

  it('commit one by one when the group fails: the unit that broke a constraint fails, the others are written', async () => {
    await insertLine('taken')
    lineInserts = []
    const ids = ['a', 'b', 'taken', 'c']
    const outcomes = await Promise.allSettled(ids.map(insertLine))
    expect(outcomes.map(({ status }) => status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled'])
    expect(await stored(['a', 'b', 'c', 'taken'])).toEqual(['a', 'b', 'c', 'taken'])
    // The group (all four), then each alone, at once; the broken one once more (a unit that raced a key runs again).
    const sent = lineInserts.map(({ values }) => values.filter((v) => ids.includes(v as string)))
    expect(sent[0]).toEqual(ids)
    expect(sent.slice(1, 5).sort()).toEqual([['a'], ['b'], ['c'], ['taken']])
    expect(sent.slice(5)).toEqual([['taken']])
  })

  it('are written one group at a time: those that end while a group is written join the next one', async () => {
    // The first group's answer is held back until the second group's units have ended.
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const events: string[] = []
    vi.restoreAllMocks()
    const query = pg.Client.prototype.query
    vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const [first] = args
      const text = typeof first === 'string' ? first : String((first as { text?: string }).text)
      const send = () => (query as (...a: unknown[]) => Promise<unknown>).apply(this, args)
      if (!text.includes('insert into "bot_logs"')) return send()
      const n = events.filter((e) => e.startsWith('sent')).length + 1
      events.push(`sent ${n}`)
      // The answer is told once `held` is (the first group's), in the order the groups were sent.
      const told = (outcome: () => unknown) =>
        (n === 1 ? held : Promise.resolve()).then(() => {
          events.push(`answered ${n}`)
          return outcome()
        })
      return send().then(
        (result) => told(() => result),
        (error) =>
          told(() => {
            throw error
          }),
      )
    } as never)
    // The pool's connections open and idle: a group takes one at once.
    await Promise.all(Array.from({ length: 4 }, () => store.pool.query('select 1')))
    const first = ['first0', 'first1', 'first2'].map(insertLine)
    await vi.waitFor(() => expect(events).toEqual(['sent 1']), { timeout: 10_000, interval: 1 })
    const second = ['second0', 'second1', 'second2'].map(insertLine)
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve))
    release()
    await Promise.all([...first, ...second])
    expect(events).toEqual(['sent 1', 'answered 1', 'sent 2', 'answered 2'])
    expect(await stored(['first0', 'first1', 'first2', 'second0', 'second1', 'second2'])).toHaveLength(6)
  })
})
