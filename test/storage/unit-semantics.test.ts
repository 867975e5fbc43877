import { randomBytes } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { bootstrap, firstTenant } from '../../src/bootstrap.ts'
import type { Store } from '../../src/db/store.ts'
import { botChatContext } from '../../src/domain/bots/chat/as-bot.ts'
import { postMessage } from '../../src/domain/messages.ts'
import type { SignalPublisher } from '../../src/domain/signals.ts'
import { findChatIntegration } from '../../src/domain/tenancy.ts'
import { onPostgres, openTestStore, type TestStore } from '../helpers/engine.ts'

/*
 * What a unit of work means, the same on both engines (docs/internals/storage.md, "How a unit runs
 * on each engine"), however each sends its statements: on PostgreSQL (src/db/postgres/unit.ts) an insert that
 * returns nothing is held and rides with the unit's next statement, a unit of such inserts only
 * commits as one statement grouped with the units ending with it, a plain read before the first write
 * runs outside the transaction; on SQLite every statement runs at once inside the group commit.
 * Runs on SQLite by default, on PostgreSQL with TEST_DATABASE_URL.
 */

let t: TestStore
let store: Store
let botId: string
let webhookId: string

beforeEach(async () => {
  t = openTestStore()
  await t.opened
  store = t.store
  const planned = firstTenant({ webhookId: `wh-${randomBytes(4).toString('hex')}` })
  await bootstrap(store, planned)
  webhookId = planned.webhookId
  const integration = await findChatIntegration(store, planned.webhookId)
  botId = (await store.read((q) => q.bots.ofIntegration(integration.id)))!.bot.id
})

afterEach(async () => {
  await t.dispose()
})

const at = '2026-01-01T00:00:00.000Z'
const line = (id: string) => ({ id, botId, timestamp: at, level: 'info' as const, message: `line ${id}`, conversationId: null, userId: null })
/** The ids of the bot's log lines stored, sorted. */
const stored = async () => (await store.read((q) => q.botLogs.page(botId, { timeStart: at }, { limit: 100, inverted: false }))).map(({ id }) => id).sort()

describe(`a unit of work (${onPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('commits all of its writes together, and none of them when its work throws', async () => {
    await store.write(async (q) => {
      await q.botLogs.insert(line('a'))
      await q.botLogs.insert(line('b'))
    })
    await expect(
      store.write(async (q) => {
        await q.botLogs.insert(line('c'))
        throw new Error('refused')
      }),
    ).rejects.toThrow('refused')
    expect(await stored()).toEqual(['a', 'b'])
  })

  it('fails as a whole when one of its inserts fails, whichever statement it rode with: the others are not kept, its effects never run', async () => {
    await store.write((q) => q.botLogs.insert(line('taken')))
    const effects: string[] = []
    await expect(
      store.write(async (q, after) => {
        await q.botLogs.insert(line('x'))
        await q.botLogs.insert(line('taken'))
        await q.botLogs.insert(line('y'))
        after(() => effects.push('ran'))
      }),
    ).rejects.toThrow()
    expect(await stored()).toEqual(['taken'])
    expect(effects).toEqual([])
  })

  it('sees its own writes in its later reads, and nobody else sees them before its commit', async () => {
    let seenInside: string[] = []
    let seenOutside: string[] = ['not read']
    await store.write(async (q) => {
      await q.botLogs.insert(line('mine'))
      seenInside = (await q.botLogs.page(botId, { timeStart: at }, { limit: 10, inverted: false })).map(({ id }) => id)
      seenOutside = await stored()
    })
    expect(seenInside).toEqual(['mine'])
    expect(seenOutside).toEqual([])
    expect(await stored()).toEqual(['mine'])
  })

  it('reads, before its first write, what was committed before it', async () => {
    await store.write((q) => q.botLogs.insert(line('before')))
    const read = await store.write(async (q) => {
      const found = (await q.botLogs.page(botId, { timeStart: at }, { limit: 10, inverted: false })).map(({ id }) => id)
      await q.botLogs.insert(line('after'))
      return found
    })
    expect(read).toEqual(['before'])
    expect(await stored()).toEqual(['after', 'before'])
  })

  it('has an outcome of its own among the units that end with it: one that fails fails alone', async () => {
    await store.write((q) => q.botLogs.insert(line('taken')))
    const ids = ['u0', 'u1', 'taken', 'u2', 'u3']
    const outcomes = await Promise.allSettled(ids.map((id) => store.write((q) => q.botLogs.insert(line(id)))))
    expect(outcomes.map(({ status }) => status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'])
    expect(await stored()).toEqual(['taken', 'u0', 'u1', 'u2', 'u3'])
  })

  it('runs its effects in order once it has committed, and answers after them', async () => {
    const effects: string[] = []
    const value = await store.write(async (q, after) => {
      after(() => effects.push('first'))
      await q.botLogs.insert(line('e'))
      after(() => effects.push('second'))
      expect(effects).toEqual([])
      return 'answered'
    })
    expect(value).toBe('answered')
    expect(effects).toEqual(['first', 'second'])
  })

  it('of one statement commits it by itself', async () => {
    await store.writeStatement((q) => q.botLogs.insert(line('alone')))
    expect(await stored()).toEqual(['alone'])
  })

  it('that writes nothing commits nothing and answers its reads', async () => {
    const found = await store.write(async (q) => (await q.bots.integrationOf(botId))?.id)
    expect(found).toEqual(expect.any(String))
    expect(await stored()).toEqual([])
  })

  it("fails with the stack of the domain's call that made its failing insert, wherever the insert was sent", async () => {
    // A constraint that refuses one payload: the message's INSERT fails, on PostgreSQL where it rode
    // (here, the unit's commit), on SQLite as it runs.
    const refused = 'refused by this test'
    if (onPostgres) await t.query(`alter table messages add constraint refused_payload check (payload::text not like '%${refused}%')`)
    else
      await t.query(
        `create trigger refused_payload before insert on messages when new.payload like '%${refused}%' begin select raise(abort, 'refused payload'); end`,
      )
    const ctx = botChatContext(store, await findChatIntegration(store, webhookId), { publish() {} } as unknown as SignalPublisher, { wake() {} })
    const message = { conversationId: 'c-any', payload: { type: 'text', text: refused }, metadata: null }
    const failure: unknown = await store.write((q, after) => postMessage(ctx, q, after, message, { id: botId, isBot: true })).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(Error)
    expect((failure as Error).stack).toMatch(/src[\\/]domain[\\/]messages\.ts/)
  })
})
