import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.ts'
import type { PrunedTable } from '../../src/db/store.ts'
import { type TestApp, useTestApp } from '../helpers/app.ts'
import { eventually } from '../helpers/wait.ts'

// RETENTION_DAYS: messages, events, bot events and bot logs older than N days are pruned in the
// background, in small units queued among the other writes. Retention's clock is injected: rows
// written now become "old" when it is moved N days on, so that no test waits for days.

const DAY = 86_400_000
const DAYS = 30

/** Each pruned table, with the column its age is read from. */
const aged: Record<Exclude<PrunedTable, 'conversationSignals'>, [table: string, column: string]> = {
  messages: ['messages', 'created_at'],
  events: ['events', 'created_at'],
  botEvents: ['bot_events', 'created_at'],
  botLogs: ['bot_logs', 'timestamp'],
  files: ['files', 'created_at'],
}

const countOlder = async (t: TestApp, before: string) =>
  Object.fromEntries(
    await Promise.all(
      Object.entries(aged).map(async ([name, [table, column]]) => [name, await t.count(`select count(*) as n from ${table} where ${column} < ?`, before)]),
    ),
  ) as Record<Exclude<PrunedTable, 'conversationSignals'>, number>

const deliveriesSettled = (t: TestApp) => eventually(async () => expect(await t.count('select count(*) as n from bot_deliveries')).toBe(0))

/**
 * Writes the "old" rows (alice's messages and events in c1, the echo bot's answers, its events and
 * logs), then moves retention's clock so that all of them, and nothing written after, is over age.
 * The cutoff it returns lies between the two.
 */
async function oldRowsThenCutoff(t: TestApp, setClock: (at: Date) => void) {
  const alice = await t.user('alice')
  await t.conversation(alice.key, 'c1')
  for (let i = 0; i < 6; i++) await t.message(alice.key, 'c1', { type: 'text', text: `old-${i}` })
  for (let i = 0; i < 3; i++) await t.event(alice.key, 'c1', { note: `old-${i}` })
  await deliveriesSettled(t)
  const last = Date.now()
  // Whatever is written from now on is at least a millisecond past the cutoff.
  await eventually(() => expect(Date.now()).toBeGreaterThan(last + 1))
  const cutoff = new Date(last + 1)
  setClock(new Date(cutoff.getTime() + DAYS * DAY))
  return { alice, cutoff: cutoff.toISOString() }
}

describe('retention', () => {
  describe('a prune cycle', () => {
    let retentionNow = new Date()
    const t = useTestApp({ retention: { days: DAYS, clock: () => retentionNow, batchSize: 4, intervalMs: 3_600_000 } })

    it('deletes every row over age, keeps every newer one, and writes go on while it runs', async () => {
      retentionNow = new Date()
      const { alice, cutoff } = await oldRowsThenCutoff(t, (at) => (retentionNow = at))
      const kept = [await t.message(alice.key, 'c1', { type: 'text', text: 'recent-1' }), await t.message(alice.key, 'c1', { type: 'text', text: 'recent-2' })]
      await deliveriesSettled(t)
      const old = await countOlder(t, cutoff)
      // Several batches of 4 for each table: the cycle is many small units, not one.
      expect(old).toEqual({ messages: 12, events: 6, botEvents: 18, botLogs: 9, files: 0 })
      const newer = await t.count('select count(*) as n from messages where created_at >= ?', cutoff)

      // Write load: alice keeps posting until the cycle is over.
      let pruning = true
      const load = (async () => {
        const posted = []
        while (pruning) posted.push(await t.message(alice.key, 'c1', { type: 'text', text: `during-${posted.length}` }))
        return posted
      })()
      const deleted = await t.app.retention.runOnce()
      pruning = false
      const during = await load

      expect(during.length).toBeGreaterThan(0)
      expect(deleted).toEqual(old)
      expect(await countOlder(t, cutoff)).toEqual({ messages: 0, events: 0, botEvents: 0, botLogs: 0, files: 0 })
      const ids = [...kept, ...during].map((message) => message.id)
      expect(await t.count(`select count(*) as n from messages where id in (${ids.map(() => '?').join(', ')})`, ...ids)).toBe(ids.length)
      expect(await t.count('select count(*) as n from messages where created_at >= ?', cutoff)).toBeGreaterThanOrEqual(newer + during.length)
      // The conversation lists what is left; it and its user are not pruned, only what was said.
      const listed = (await t.chat('GET', '/conversations/c1/messages', { key: alice.key })).body.messages as { createdAt: string }[]
      expect(listed.length).toBeGreaterThan(0)
      expect(listed.every((message) => message.createdAt >= cutoff)).toBe(true)
      expect(await t.count("select count(*) as n from conversations where id = 'c1'")).toBe(1)
    })

    it('prunes conversation after conversation, more of them than one batch looks at, old ones among new ones', async () => {
      retentionNow = new Date()
      const bob = await t.user('bob')
      // Ten conversations (a batch of 4 looks at 4 of them): old messages in all but two, which are new only.
      const ids = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9']
      for (const id of ids) await t.conversation(bob.key, id)
      for (const id of ids.filter((id) => id !== 'k3' && id !== 'k4')) {
        await t.message(bob.key, id, { type: 'text', text: `old in ${id}` })
        await t.event(bob.key, id, { note: `old in ${id}` })
      }
      await deliveriesSettled(t)
      const last = Date.now()
      await eventually(() => expect(Date.now()).toBeGreaterThan(last + 1))
      const cutoff = new Date(last + 1)
      for (const id of ids) await t.message(bob.key, id, { type: 'text', text: `new in ${id}` })
      await deliveriesSettled(t)
      retentionNow = new Date(cutoff.getTime() + DAYS * DAY)

      const old = await countOlder(t, cutoff.toISOString())
      expect(old).toEqual({ messages: 16, events: 16, botEvents: 32, botLogs: 16, files: 0 })
      expect(await t.app.retention.runOnce()).toEqual(old)
      expect(await countOlder(t, cutoff.toISOString())).toEqual({ messages: 0, events: 0, botEvents: 0, botLogs: 0, files: 0 })
      // Each conversation keeps its new message and the bot's answer to it.
      for (const id of ids) expect(await t.count('select count(*) as n from messages where conversation_id = ?', id)).toBe(2)
    })
  })

  describe('files', () => {
    let retentionNow = new Date()
    const t = useTestApp({ retention: { days: DAYS, clock: () => retentionNow, batchSize: 4, intervalMs: 3_600_000 } })
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4])

    /** A file uploaded to c1 and a message showing it; its URL. */
    async function uploaded(key: string, name: string) {
      const slot = await t.chat('POST', '/files', { key, body: { key: name, size: png.byteLength, tags: { conversation: 'c1' } } })
      expect(slot.status).toBe(200)
      const put = await t.app.fetch(new Request(slot.body.file.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: Buffer.from(png) }))
      expect(put.status).toBe(200)
      await t.message(key, 'c1', { type: 'image', imageUrl: slot.body.file.url })
      return slot.body.file.url as string
    }

    it('removes the files uploaded before the age with the messages that showed them: their URLs stop working, newer ones stay', async () => {
      retentionNow = new Date()
      const alice = await t.user('alice')
      await t.conversation(alice.key, 'c1')
      const old = [await uploaded(alice.key, 'old-1.png'), await uploaded(alice.key, 'old-2.png')]
      await deliveriesSettled(t)
      const last = Date.now()
      await eventually(() => expect(Date.now()).toBeGreaterThan(last + 1))
      retentionNow = new Date(last + 1 + DAYS * DAY)
      const recent = await uploaded(alice.key, 'new.png')
      await deliveriesSettled(t)
      for (const url of [...old, recent]) expect((await t.app.fetch(new Request(url))).status).toBe(200)

      expect(await t.app.retention.runOnce()).toMatchObject({ files: 2 })
      for (const url of old) expect((await t.app.fetch(new Request(url))).status).toBe(404)
      const served = await t.app.fetch(new Request(recent))
      expect(served.status).toBe(200)
      expect(new Uint8Array(await served.arrayBuffer())).toEqual(png)
      expect(await t.count('select count(*) as n from files')).toBe(1)
    })
  })

  describe('the schedule', () => {
    let retentionNow = new Date()
    const t = useTestApp({ retention: { days: DAYS, clock: () => retentionNow, intervalMs: 20 } })

    it('prunes in the background, cycle after cycle', async () => {
      retentionNow = new Date()
      const { cutoff } = await oldRowsThenCutoff(t, (at) => (retentionNow = at))
      await eventually(async () => expect(await countOlder(t, cutoff)).toEqual({ messages: 0, events: 0, botEvents: 0, botLogs: 0, files: 0 }))
    })
  })

  describe('off (no RETENTION_DAYS)', () => {
    const t = useTestApp()

    it('keeps everything', async () => {
      const alice = await t.user('alice')
      await t.conversation(alice.key, 'c1')
      await t.message(alice.key, 'c1')
      await deliveriesSettled(t)
      expect(await t.app.retention.runOnce()).toEqual({ messages: 0, events: 0, botEvents: 0, botLogs: 0, files: 0 })
      // alice's message and the echo bot's answer.
      expect(await t.count('select count(*) as n from messages')).toBe(2)
    })
  })
})

describe('RETENTION_DAYS', () => {
  it('is off (0) when unset or empty, else a whole number of days', () => {
    expect(loadConfig({}).retentionDays).toBe(0)
    expect(loadConfig({ RETENTION_DAYS: '' }).retentionDays).toBe(0)
    expect(loadConfig({ RETENTION_DAYS: '90' }).retentionDays).toBe(90)
  })

  it.each(['-1', '1.5', 'thirty', '36501'])('refuses %s, naming the variable', (value) => {
    expect(() => loadConfig({ RETENTION_DAYS: value })).toThrow(ConfigError)
    expect(() => loadConfig({ RETENTION_DAYS: value })).toThrow(/RETENTION_DAYS/)
  })
})
