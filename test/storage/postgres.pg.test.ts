import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { bootstrap, firstTenant } from '../../src/bootstrap.ts'
import { type PostgresStore, openPostgresStore } from '../../src/db/postgres/store.ts'
import type { Store } from '../../src/db/store.ts'
import { WriteConflict } from '../../src/db/write-conflict.ts'
import { findChatIntegration } from '../../src/domain/tenancy.ts'
import { botHandled } from '../../src/domain/handoff.ts'
import { eventually } from '../helpers/wait.ts'

/*
 * The PostgreSQL engine's own guarantees, with several stores (as several instances) on one
 * schema. This file always runs on PostgreSQL (TEST_DATABASE_URL, or 127.0.0.1:5432): it fails if
 * the database does not answer.
 */
const url = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'

const schemas: string[] = []
const stores: PostgresStore[] = []
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()))
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  for (const schema of schemas.splice(0)) await client.query(`drop schema if exists "${schema}" cascade`)
  await client.end()
})

const newSchema = () => {
  const schema = `test_pg_${randomBytes(6).toString('hex')}`
  schemas.push(schema)
  return schema
}

/** `count` instances started at once on one empty schema. */
async function instances(count: number) {
  const schema = newSchema()
  const opened = await Promise.all(Array.from({ length: count }, () => openPostgresStore(url, { schema, poolSize: 3 })))
  stores.push(...opened)
  return opened
}

const tenant = () => firstTenant({ webhookId: `wh-${randomBytes(4).toString('hex')}` })

/** A conversation with `count` deliveries queued for the bot (in seq order), as the domain writes them. */
async function queueDeliveries(store: Store, webhookId: string, conversationId: string, count: number, at: string) {
  const integration = await findChatIntegration(store, webhookId)
  const bot = await store.read((q) => q.bots.ofIntegration(integration.id))
  await store
    .write(async (q) => {
      await q.users.insert({
        integrationId: integration.id,
        id: 'u',
        name: null,
        pictureUrl: null,
        profile: null,
        isBot: false,
        createdAt: at,
        updatedAt: at,
        idChosen: false,
      })
      await q.conversations.insert({
        integrationId: integration.id,
        id: conversationId,
        ownerId: 'u',
        createdAt: at,
        updatedAt: at,
        idChosen: false,
        ...botHandled,
      })
    })
    .catch(() => undefined)
  for (let i = 0; i < count; i++) {
    await store.write((q) =>
      q.botDeliveries.insert({
        id: `${conversationId}-${i}`,
        botId: bot!.bot.id,
        integrationId: integration.id,
        conversationId,
        userId: 'u',
        event: { n: i },
        messageId: null,
        attempts: 0,
        nextAttemptAt: at,
        createdAt: at,
      }),
    )
  }
}

describe('PostgreSQL engine, several instances on one database', () => {
  it('applies the migrations once when instances start at once, and makes one first tenant', async () => {
    const all = await instances(4)
    const created = await Promise.all(all.map((store) => bootstrap(store, tenant())))
    expect(created.filter((result) => result !== undefined)).toHaveLength(1)
    await Promise.all(all.map((store) => store.check()))
    const { rows } = await all[0]!.pool.query('select count(*)::int as n from workspaces')
    expect(rows).toEqual([{ n: 1 }])
  })

  it('hands each due delivery to one instance at a time, the oldest of each conversation first', async () => {
    const [a, b, c] = await instances(3)
    const planned = tenant()
    await bootstrap(a!, planned)
    const now = '2026-01-01T00:00:00.000Z'
    for (const conversation of ['c1', 'c2', 'c3', 'c4', 'c5', 'c6']) await queueDeliveries(a!, planned.webhookId, conversation, 2, now)
    const lease = '2026-01-01T00:00:30.000Z'
    const claims = await Promise.all([a, b, c, a, b, c].map((store) => store!.write((q) => q.botDeliveries.claim(now, 4, lease))))
    const ids = claims.flat().map((due) => due.delivery.id)
    // Every conversation's first delivery, each claimed once; the second ones wait their turn.
    expect(new Set(ids).size).toBe(ids.length)
    expect([...ids].sort()).toEqual(['c1-0', 'c2-0', 'c3-0', 'c4-0', 'c5-0', 'c6-0'])
    // Held: not due for anybody, not claimed again before the lease runs out.
    expect(await b!.read((q) => q.botDeliveries.due(now, 10))).toEqual([])
    expect(await c!.write((q) => q.botDeliveries.claim('2026-01-01T00:00:29.999Z', 10, lease))).toEqual([])
    // The next look is when the lease runs out.
    expect(await b!.read((q) => q.botDeliveries.nextDueAfter(now))).toBe(lease)
  })

  it('lets another instance take a delivery once its holder stopped renewing it (the lease ran out)', async () => {
    const [a, b] = await instances(2)
    const planned = tenant()
    await bootstrap(a!, planned)
    const now = '2026-01-01T00:00:00.000Z'
    await queueDeliveries(a!, planned.webhookId, 'c1', 2, now)
    const [held] = await a!.write((q) => q.botDeliveries.claim(now, 10, '2026-01-01T00:00:30.000Z'))
    expect(held?.delivery.id).toBe('c1-0')
    const later = '2026-01-01T00:00:30.000Z'
    const taken = await b!.write((q) => q.botDeliveries.claim(later, 10, '2026-01-01T00:01:00.000Z'))
    expect(taken.map((due) => [due.delivery.id, due.delivery.attempts])).toEqual([['c1-0', 0]])
    // Settled (taken by the bot): the conversation's next delivery is due, and free.
    expect(await b!.write((q) => q.botDeliveries.remove('c1-0'))).toBe(true)
    expect((await a!.write((q) => q.botDeliveries.claim(later, 10, '2026-01-01T00:01:00.000Z'))).map((due) => due.delivery.id)).toEqual(['c1-1'])
  })

  it("takes the run behind a conversation's head before the head is removed, and no other instance takes it then", async () => {
    const [a, b] = await instances(2)
    const planned = tenant()
    await bootstrap(a!, planned)
    const now = '2026-01-01T00:00:00.000Z'
    const lease = '2026-01-01T00:00:30.000Z'
    await queueDeliveries(a!, planned.webhookId, 'c1', 4, now)
    const [head] = await a!.write((q) => q.botDeliveries.claim(now, 10, lease))
    expect([head?.delivery.id, head?.followed]).toEqual(['c1-0', true])
    const { integrationId, seq } = head!.delivery
    const run = await a!.write((q) => q.botDeliveries.claimFollowing(integrationId, 'c1', seq, now, lease, 2))
    // At most `limit`, in order, each telling whether one is queued behind it.
    expect(run.map((due) => [due.delivery.id, due.followed, due.bot.id, due.integration.id])).toEqual([
      ['c1-1', true, head!.bot.id, head!.integration.id],
      ['c1-2', true, head!.bot.id, head!.integration.id],
    ])
    // Held by a: the run behind the head ends before them, for a and b alike, before their lease runs out.
    expect(await b!.write((q) => q.botDeliveries.claimFollowing(integrationId, 'c1', seq, now, lease, 10))).toEqual([])
    // The head settled: its lease passed to the next one, which b's claim does not take.
    expect(await a!.write((q) => q.botDeliveries.remove('c1-0'))).toBe(true)
    expect(await b!.write((q) => q.botDeliveries.claim(now, 10, lease))).toEqual([])
    expect(await b!.read((q) => q.botDeliveries.nextDueAfter(now))).toBe(lease)
    // Released (a will not attempt it), c1-2 is free again, but only behind c1-1, which a still holds.
    await a!.write((q) => q.botDeliveries.release(['c1-2'], lease))
    expect(await b!.write((q) => q.botDeliveries.claim(now, 10, lease))).toEqual([])
    // Once the lease has run out, b takes the head, and the run behind it.
    const taken = await b!.write((q) => q.botDeliveries.claim(lease, 10, '2026-01-01T00:01:00.000Z'))
    expect(taken.map((due) => due.delivery.id)).toEqual(['c1-1'])
    const rest = await b!.write((q) => q.botDeliveries.claimFollowing(integrationId, 'c1', taken[0]!.delivery.seq, lease, '2026-01-01T00:01:00.000Z', 10))
    expect(rest.map((due) => [due.delivery.id, due.followed])).toEqual([
      ['c1-2', true],
      ['c1-3', false],
    ])
  })

  it('renews the lease of the deliveries it still holds, and only those', async () => {
    const [a, b] = await instances(2)
    const planned = tenant()
    await bootstrap(a!, planned)
    const now = '2026-01-01T00:00:00.000Z'
    const lease = '2026-01-01T00:00:30.000Z'
    await queueDeliveries(a!, planned.webhookId, 'c1', 3, now)
    const [head] = await a!.write((q) => q.botDeliveries.claim(now, 10, lease))
    await a!.write((q) => q.botDeliveries.claimFollowing(head!.delivery.integrationId, 'c1', head!.delivery.seq, now, lease, 10))
    await a!.write((q) => q.botDeliveries.remove('c1-0'))
    const renewed = '2026-01-01T00:01:00.000Z'
    expect(await a!.write((q) => q.botDeliveries.renew(['c1-0', 'c1-1', 'c1-2'], lease, renewed))).toBe(2)
    // Held until the renewed lease only: a renewal from the old one finds none.
    expect(await b!.write((q) => q.botDeliveries.renew(['c1-1', 'c1-2'], lease, renewed))).toBe(0)
    expect(await b!.write((q) => q.botDeliveries.claim(lease, 10, '2026-01-01T00:02:00.000Z'))).toEqual([])
  })

  it('ends a run before a delivery that is not due, and takes none not due', async () => {
    const [a] = await instances(1)
    const planned = tenant()
    await bootstrap(a!, planned)
    await queueDeliveries(a!, planned.webhookId, 'c1', 2, '2026-01-01T00:00:05.000Z')
    const [head] = await a!.write((q) => q.botDeliveries.claim('2026-01-01T00:00:05.000Z', 10, '2026-01-01T00:00:30.000Z'))
    const early = '2026-01-01T00:00:04.000Z'
    const { integrationId, seq } = head!.delivery
    expect(await a!.write((q) => q.botDeliveries.claimFollowing(integrationId, 'c1', seq, early, '2026-01-01T00:00:30.000Z', 10))).toEqual([])
    const due = await a!.write((q) => q.botDeliveries.claimFollowing(integrationId, 'c1', seq, '2026-01-01T00:00:05.000Z', '2026-01-01T00:00:30.000Z', 10))
    expect(due.map(({ delivery }) => delivery.id)).toEqual(['c1-1'])
  })

  it('a rescheduled delivery is free again at its next attempt', async () => {
    const [a, b] = await instances(2)
    const planned = tenant()
    await bootstrap(a!, planned)
    const now = '2026-01-01T00:00:00.000Z'
    await queueDeliveries(a!, planned.webhookId, 'c1', 1, now)
    await a!.write((q) => q.botDeliveries.claim(now, 10, '2026-01-01T00:10:00.000Z'))
    await a!.write((q) => q.botDeliveries.reschedule('c1-0', 1, '2026-01-01T00:00:05.000Z'))
    expect(await b!.read((q) => q.botDeliveries.nextDueAfter(now))).toBe('2026-01-01T00:00:05.000Z')
    const taken = await b!.write((q) => q.botDeliveries.claim('2026-01-01T00:00:05.000Z', 10, '2026-01-01T00:10:00.000Z'))
    expect(taken.map((due) => [due.delivery.id, due.delivery.attempts])).toEqual([['c1-0', 1]])
  })

  it('rolls a unit of work back whole, and keeps json text as written (property order)', async () => {
    const [a] = await instances(1)
    const planned = tenant()
    await bootstrap(a!, planned)
    const integration = await findChatIntegration(a!, planned.webhookId)
    const at = '2026-01-01T00:00:00.000Z'
    await expect(
      a!.write(async (q) => {
        await q.users.insert({
          integrationId: integration.id,
          id: 'gone',
          name: null,
          pictureUrl: null,
          profile: null,
          isBot: false,
          createdAt: at,
          updatedAt: at,
          idChosen: false,
        })
        throw new Error('refused')
      }),
    ).rejects.toThrow('refused')
    expect(await a!.read((q) => q.users.find(integration.id, 'gone'))).toBeUndefined()
    await a!.write(async (q) => {
      await q.users.insert({
        integrationId: integration.id,
        id: 'u',
        name: null,
        pictureUrl: null,
        profile: null,
        isBot: false,
        createdAt: at,
        updatedAt: at,
        idChosen: false,
      })
      await q.conversations.insert({ integrationId: integration.id, id: 'c', ownerId: 'u', createdAt: at, updatedAt: at, idChosen: false, ...botHandled })
      await q.messages.insert({
        integrationId: integration.id,
        id: 'm',
        conversationId: 'c',
        userId: 'u',
        payload: { z: 1, type: 'text', a: { y: 2, b: 3 } },
        metadata: null,
        feedback: null,
        createdAt: at,
      })
    })
    const message = await a!.read((q) => q.messages.find(integration.id, 'm'))
    expect(JSON.stringify(message?.payload)).toBe('{"z":1,"type":"text","a":{"y":2,"b":3}}')
    expect(message?.metadata).toBeNull()
  })

  it("keeps each conversation's head: the next delivery once one leaves, none once all are gone, a cascade included", async () => {
    const [a] = await instances(1)
    const planned = tenant()
    await bootstrap(a!, planned)
    const now = '2026-01-01T00:00:00.000Z'
    const lease = '2026-01-01T00:00:30.000Z'
    await queueDeliveries(a!, planned.webhookId, 'c1', 3, now)
    await queueDeliveries(a!, planned.webhookId, 'c2', 2, now)
    const heads = async () =>
      (await a!.pool.query('select d.id from bot_delivery_heads h join bot_deliveries d on d.seq = h.seq order by d.id')).rows.map((row) => row.id)
    expect(await heads()).toEqual(['c1-0', 'c2-0'])
    // One taken out of its turn (its bot deleted it, say): the head stays the oldest.
    expect(await a!.write((q) => q.botDeliveries.remove('c1-1'))).toBe(true)
    expect(await heads()).toEqual(['c1-0', 'c2-0'])
    await a!.write((q) => q.botDeliveries.claim(now, 10, lease))
    expect(await a!.write((q) => q.botDeliveries.remove('c1-0'))).toBe(true)
    expect(await heads()).toEqual(['c1-2', 'c2-0'])
    expect((await a!.write((q) => q.botDeliveries.claim(now, 10, lease))).map((due) => due.delivery.id)).toEqual(['c1-2'])
    expect(await a!.write((q) => q.botDeliveries.remove('c1-2'))).toBe(true)
    expect(await heads()).toEqual(['c2-0'])
    // The conversation deleted: its deliveries go (cascade), and its head with them.
    const integration = await findChatIntegration(a!, planned.webhookId)
    await a!.write((q) => q.conversations.delete(integration.id, 'c2'))
    expect(await heads()).toEqual([])
    expect(await a!.read((q) => q.botDeliveries.nextDueAfter(now))).toBeUndefined()
  })

  it('keeps the heads of its own schema for a session that names the tables by schema, and sets nothing per call (migration 0012)', async () => {
    const [a] = await instances(1)
    const planned = tenant()
    await bootstrap(a!, planned)
    const now = '2026-01-01T00:00:00.000Z'
    await queueDeliveries(a!, planned.webhookId, 'c1', 2, now)
    const { schema } = a!
    const other = new pg.Client({ connectionString: url, options: '-c search_path=pg_catalog' })
    await other.connect()
    try {
      await other.query(`delete from "${schema}".bot_deliveries where id = 'c1-0'`)
      const { rows } = await other.query(`select d.id from "${schema}".bot_delivery_heads h join "${schema}".bot_deliveries d on d.seq = h.seq`)
      expect(rows).toEqual([{ id: 'c1-1' }])
      // A function with settings (SET search_path) has them saved, set and restored around every call.
      const functions = await other.query(
        `select proname, proconfig from pg_proc where pronamespace = $1::regnamespace and proname like 'bot_delivery_heads_on_%' order by proname`,
        [schema],
      )
      expect(functions.rows).toEqual(['delete', 'insert', 'update'].map((on) => ({ proname: `bot_delivery_heads_on_${on}`, proconfig: null })))
    } finally {
      await other.end()
    }
  })

  describe("a conversation's head under concurrent writes (migration 0009)", () => {
    const now = '2026-01-01T00:00:00.000Z'

    /** An instance with c1's first delivery queued (its head), two connections of its pool, and a way to insert more as the domain does. */
    async function headed() {
      const [a] = await instances(1)
      const planned = tenant()
      await bootstrap(a!, planned)
      await queueDeliveries(a!, planned.webhookId, 'c1', 1, now)
      const integration = await findChatIntegration(a!, planned.webhookId)
      const bot = await a!.read((q) => q.bots.ofIntegration(integration.id))
      const [first, second] = [await a!.pool.connect(), await a!.pool.connect()]
      const insert = (client: pg.PoolClient, id: string) =>
        client.query(
          `insert into bot_deliveries (id, bot_id, integration_id, conversation_id, user_id, event, message_id, attempts, next_attempt_at, created_at)
           values ($1, $2, $3, 'c1', 'u', '{}', null, 0, $4, $4)`,
          [id, bot!.bot.id, integration.id, now],
        )
      const heads = async () =>
        (await a!.pool.query('select d.id from bot_delivery_heads h join bot_deliveries d on d.seq = h.seq order by d.id')).rows.map((row) => row.id)
      /** Resolves once `client`'s statement waits for a lock. */
      const waiting = async (client: pg.PoolClient) => {
        const { pid } = (await client.query('select pg_backend_pid() as pid')).rows[0] as { pid: number }
        return () =>
          eventually(async () => {
            const { rows } = await a!.pool.query('select wait_event_type from pg_stat_activity where pid = $1', [pid])
            expect(rows[0]?.wait_event_type).toBe('Lock')
          })
      }
      const release = () => {
        first.release()
        second.release()
      }
      return { first, second, insert, heads, waiting, release }
    }

    it('lets deliveries inserted behind the head commit side by side: none waits for the commit of another', async () => {
      const { first, second, insert, heads, release } = await headed()
      try {
        await first.query('begin')
        await insert(first, 'c1-1')
        await second.query('begin')
        // Before 0009 this insert waited for the first one's commit (the head row taken for update).
        await second.query(`set local lock_timeout = '200ms'`)
        await insert(second, 'c1-2')
        await second.query('commit')
        await first.query('commit')
      } finally {
        release()
      }
      expect(await heads()).toEqual(['c1-0'])
    })

    it('moves the head past a removed one to the next without waiting for the deliveries being inserted behind them (migration 0011)', async () => {
      const { first, second, insert, heads, release } = await headed()
      try {
        await insert(first, 'c1-1')
        await second.query('begin')
        await insert(second, 'c1-2')
        await first.query('begin')
        // Before 0011 this removal waited for the insert's commit (the head row taken for update).
        await first.query(`set local lock_timeout = '200ms'`)
        await first.query(`delete from bot_deliveries where id = 'c1-0'`)
        await first.query('commit')
        await second.query('commit')
      } finally {
        release()
      }
      expect(await heads()).toEqual(['c1-1'])
    })

    it('makes a delivery inserted while the head is being removed the head once the removal commits', async () => {
      const { first, second, insert, heads, waiting, release } = await headed()
      try {
        const blocked = await waiting(second)
        await first.query('begin')
        await first.query(`delete from bot_deliveries where id = 'c1-0'`)
        const inserting = insert(second, 'c1-1')
        await blocked()
        await first.query('commit')
        await inserting
      } finally {
        release()
      }
      expect(await heads()).toEqual(['c1-1'])
    })

    it('makes the removal of the head wait for a delivery being inserted behind it, which becomes the head', async () => {
      const { first, second, insert, heads, waiting, release } = await headed()
      try {
        const blocked = await waiting(first)
        await second.query('begin')
        await insert(second, 'c1-1')
        const removing = first.query(`delete from bot_deliveries where id = 'c1-0'`)
        await blocked()
        await second.query('commit')
        await removing
      } finally {
        release()
      }
      expect(await heads()).toEqual(['c1-1'])
    })
  })

  it('writes a unit whose held inserts have more parameters than one statement takes (65,535): in several statements', async () => {
    const [a] = await instances(1)
    const planned = tenant()
    await bootstrap(a!, planned)
    const integration = await findChatIntegration(a!, planned.webhookId)
    const at = '2026-01-01T00:00:00.000Z'
    // Log lines are held until the unit's next statement (src/db/postgres/unit.ts): 10,000 of 7 parameters.
    await a!.write(async (q) => {
      for (let i = 0; i < 10_000; i++) {
        await q.botLogs.insert({
          id: `log-${i}`,
          botId: integration.botId,
          timestamp: at,
          level: 'info',
          message: `line ${i}`,
          conversationId: null,
          userId: null,
        })
      }
    })
    const { rows } = await a!.pool.query(`select count(*)::int as n from bot_logs where id like 'log-%'`)
    expect(rows[0]).toEqual({ n: 10_000 })
  })

  it('tells the failure of held inserts sent together with the statement after them (pipelined) as theirs, and commits nothing of the unit', async () => {
    const [a] = await instances(1)
    const planned = tenant()
    await bootstrap(a!, planned)
    const integration = await findChatIntegration(a!, planned.webhookId)
    const at = '2026-01-01T00:00:00.000Z'
    const written = a!.write(async (q) => {
      // An update: the unit has begun. The insert is held, then goes with the read behind it, in
      // one round trip: it fails (no such conversation), and the read with it (transaction aborted).
      await q.bots.markUrlGone(integration.botId, 'https://gone.example')
      await q.messages.insert({
        integrationId: integration.id,
        id: 'm',
        conversationId: 'gone',
        userId: 'u',
        payload: { type: 'text', text: 'x' },
        metadata: null,
        feedback: null,
        createdAt: at,
      })
      return q.messages.find(integration.id, 'm')
    })
    await expect(written).rejects.toMatchObject({ kind: 'gone' })
    const { rows } = await a!.pool.query(`select gone_url from bots where id = $1`, [integration.botId])
    expect(rows).toEqual([{ gone_url: null }])
  })

  it('tells a write that still meets a row deleted meanwhile, when run again, as a WriteConflict (404), never a database error', async () => {
    const [a] = await instances(1)
    const planned = tenant()
    await bootstrap(a!, planned)
    const integration = await findChatIntegration(a!, planned.webhookId)
    const at = '2026-01-01T00:00:00.000Z'
    await a!.write((q) =>
      q.users.insert({
        integrationId: integration.id,
        id: 'u',
        name: null,
        pictureUrl: null,
        profile: null,
        isBot: false,
        createdAt: at,
        updatedAt: at,
        idChosen: false,
      }),
    )
    const written = a!.write((q) =>
      q.messages.insert({
        integrationId: integration.id,
        id: 'm',
        conversationId: 'gone',
        userId: 'u',
        payload: { type: 'text', text: 'x' },
        metadata: null,
        feedback: null,
        createdAt: at,
      }),
    )
    await expect(written).rejects.toThrow(WriteConflict)
    await expect(written).rejects.toMatchObject({ kind: 'gone', message: 'Conversation "gone" does not exist' })
  })
})
