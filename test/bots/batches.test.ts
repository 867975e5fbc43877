import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { BotHandler } from '../../src/bots/handler.ts'
import type { TestApp } from '../helpers/app.ts'
import { logsOf, manualClock, pendingDeliveries, type Receiver, startReceiver, webhookBotApp } from './receiver.ts'
import { eventually } from '../helpers/wait.ts'

// A conversation's run of due deliveries is taken as one batch (src/bots/delivery/batch.ts):
// attempted in order, one POST each for a webhook bot, settled in few units; the first failure
// stops the batch, and what a stop or a crash leaves unsettled is attempted again.

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const text = (value: string) => ({ type: 'text', text: value })
const burst = ['m0', 'm1', 'm2', 'm3', 'm4']

/** A gate the bot waits at on its first event, so that the rest of the burst queues behind it. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

/** Posts the burst to c1, the first message alone until the bot holds it (`held`), the rest behind it. */
async function postBurst(t: TestApp, key: string, held: () => boolean) {
  await t.message(key, 'c1', text(burst[0]!))
  await eventually(() => expect(held()).toBe(true))
  for (const word of burst.slice(1)) await t.message(key, 'c1', text(word))
}

const echoes = burst.map((word) => `echo ${word}`)

/** The texts of the bot's messages in c1, oldest first. */
async function botTexts(t: TestApp, key: string): Promise<string[]> {
  const res = await t.chat('GET', '/conversations/c1/messages', { key })
  expect(res.status).toBe(200)
  return (res.body.messages as { payload: { text: string } }[])
    .map((m) => m.payload.text)
    .filter((word) => !burst.includes(word))
    .reverse()
}

/** The app, its receiver-played bot (when `answer` is given) or handler, alice and her conversation c1. */
async function startApp(options: Parameters<typeof webhookBotApp>[0] & { answer?: Parameters<typeof startReceiver>[0] }) {
  let receiver: Receiver | undefined
  if (options.answer) {
    receiver = await startReceiver(options.answer)
    cleanups.push(receiver.close)
  }
  const { t } = await webhookBotApp({ ...options, url: receiver?.url })
  cleanups.push(t.close)
  const alice = await t.user('alice')
  await t.conversation(alice.key, 'c1')
  return { t, key: alice.key, receiver }
}

describe('a burst of messages to one conversation', () => {
  it('is answered in order by an in-process bot, each message processed, nothing left queued', async () => {
    const held = gate()
    const seen: string[] = []
    const echo: BotHandler = async ({ event }) => {
      seen.push(event.preview)
      if (seen.length === 1) await held.opened
      return { messages: [{ payload: text(`echo ${event.preview}`) }] }
    }
    const { t, key } = await startApp({ handlers: { echo } })
    await postBurst(t, key, () => seen.length === 1)
    held.open()
    await eventually(() => expect(seen).toHaveLength(5))
    await t.app.bots.idle()
    expect(seen).toEqual(burst)
    expect(await botTexts(t, key)).toEqual(echoes)
    expect(await pendingDeliveries(t)).toEqual([])
    expect((await logsOf(t)).map((l) => [l.level, l.message.replace(/\d+ ms$/, 'N ms')])).toEqual(
      burst.map(() => ['info', 'handler "echo" (attempt 1 of 10): done in N ms']),
    )
  })

  it('posted at once to an idle conversation, is read from the outbox once per batch, not once per message (one process, on SQLite)', async () => {
    // The one-process scheduler is SQLite's (a shared PostgreSQL database has the leased one, which claims
    // instead), so this runs on SQLite whatever the suite's engine.
    // The read of a conversation's run (src/db/sqlite/queries.ts `following`): the outbox after a seq, with each delivery's message.
    const runReads: string[] = []
    const onQuery = (sql: string) => {
      if (/from "bot_deliveries" left join "messages"/.test(sql) && /"bot_deliveries"\."seq" > /.test(sql)) runReads.push(sql)
    }
    const echo: BotHandler = async ({ event }) => ({ messages: [{ payload: text(`echo ${event.preview}`) }] })
    const { t, key } = await startApp({ handlers: { echo }, onQuery, databaseUrl: ':memory:' })
    const words = Array.from({ length: 12 }, (_, i) => `w${i}`)
    runReads.length = 0
    await Promise.all(words.map((word) => t.message(key, 'c1', text(word))))
    await t.app.bots.idle()
    expect(await pendingDeliveries(t)).toEqual([])
    expect((await logsOf(t)).map((l) => l.message.replace(/\d+ ms$/, 'N ms'))).toEqual(words.map(() => 'handler "echo" (attempt 1 of 10): done in N ms'))
    // One read for the first wake-up and one as each batch ends (the last finds nothing); the twelve
    // commits (one or two groups) woke the worker twelve times, and each used to read the run again (13).
    expect(runReads.length).toBeGreaterThanOrEqual(2)
    expect(runReads.length).toBeLessThanOrEqual(4)
  })

  it('is answered in order by a webhook bot, one POST per event, each answer applied before the next POST', async () => {
    const held = gate()
    const { t, key, receiver } = await startApp({
      answer: async (request, index) => {
        if (index === 0) await held.opened
        return { status: 200, body: { messages: [{ payload: text(`echo ${request.json.data.payload.text}`) }] } }
      },
    })
    await postBurst(t, key, () => receiver!.received.length === 1)
    held.open()
    await eventually(() => expect(receiver!.received).toHaveLength(5))
    await t.app.bots.idle()
    expect(receiver!.received.map((r) => r.json.data.payload.text)).toEqual(burst)
    expect(await botTexts(t, key)).toEqual(echoes)
    expect(await pendingDeliveries(t)).toEqual([])
  })

  it('a handler calling its API in the middle of a batch acts after the answers before it are applied', async () => {
    const held = gate()
    const seen: string[] = []
    const echo: BotHandler = async ({ event, reply }) => {
      seen.push(event.preview)
      if (seen.length === 1) await held.opened
      if (event.preview !== 'm2') return { messages: [{ payload: text(`echo ${event.preview}`) }] }
      await reply(text('replied m2'))
      return undefined
    }
    const { t, key } = await startApp({ handlers: { echo } })
    await postBurst(t, key, () => seen.length === 1)
    held.open()
    await eventually(() => expect(seen).toHaveLength(5))
    await t.app.bots.idle()
    expect(await botTexts(t, key)).toEqual(['echo m0', 'echo m1', 'replied m2', 'echo m3', 'echo m4'])
  })
})

describe('a failure in the middle of a batch', () => {
  it('reschedules that delivery on the schedule and keeps the ones after it queued behind it, unattempted, until it is taken', async () => {
    const clock = manualClock()
    const held = gate()
    let failures = 0
    const { t, key, receiver } = await startApp({
      clock: clock.now,
      botRetrySchedule: [0, 5],
      answer: async (request, index) => {
        if (index === 0) await held.opened
        // m2 fails once.
        if (request.json.data.payload.text === 'm2' && failures++ === 0) return { status: 500 }
        return { status: 200 }
      },
    })
    await postBurst(t, key, () => receiver!.received.length === 1)
    held.open()
    await eventually(async () => expect((await pendingDeliveries(t))[0]?.attempts).toBe(1))
    await t.app.bots.idle()
    const texts = () => receiver!.received.map((r) => r.json.data.payload.text)
    expect(texts()).toEqual(['m0', 'm1', 'm2'])
    const queued = await pendingDeliveries(t)
    expect(queued.map((row) => [row.attempts, row.nextAttemptAt > clock.now().toISOString()])).toEqual([
      [1, true],
      [0, false],
      [0, false],
    ])
    // The retry comes due: m2 again (its webhook-id unchanged), then m3 and m4.
    clock.advance(6_000)
    t.app.bots.wake()
    await eventually(() => expect(receiver!.received).toHaveLength(6))
    await t.app.bots.idle()
    expect(texts()).toEqual(['m0', 'm1', 'm2', 'm2', 'm3', 'm4'])
    expect(receiver!.received[3]!.headers['webhook-id']).toBe(receiver!.received[2]!.headers['webhook-id'])
    expect(await pendingDeliveries(t)).toEqual([])
    expect((await logsOf(t)).map((l) => [l.level, l.message.replace(/ in \d+ ms$/, '')])).toEqual([
      ['info', `POST ${receiver!.url} (attempt 1 of 2): HTTP 200`],
      ['info', `POST ${receiver!.url} (attempt 1 of 2): HTTP 200`],
      ['warn', `POST ${receiver!.url} (attempt 1 of 2): HTTP 500`],
      ['info', `POST ${receiver!.url} (attempt 2 of 2): HTTP 200`],
      ['info', `POST ${receiver!.url} (attempt 1 of 2): HTTP 200`],
      ['info', `POST ${receiver!.url} (attempt 1 of 2): HTTP 200`],
    ])
  })
})

describe('a process stopped in the middle of a batch', () => {
  it('leaves the attempts settled before it settled, and the next process attempts only the rest, in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'confab-batch-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const databaseUrl = join(dir, 'confab.db')
    const held = gate()
    // The bot answers m0 and m1 and holds m2 until the process goes away.
    const { t, key, receiver } = await startApp({
      databaseUrl,
      answer: async (request, index) => {
        if (index === 0) await held.opened
        return request.json.data.payload.text === 'm2' && index === 2 ? 'hang' : { status: 200 }
      },
    })
    await postBurst(t, key, () => receiver!.received.length === 1)
    held.open()
    await eventually(() => expect(receiver!.received).toHaveLength(3))
    await eventually(async () => expect((await pendingDeliveries(t)).length).toBe(3))
    await t.close()

    receiver!.answer = () => ({ status: 200 })
    const second = await webhookBotApp({ databaseUrl })
    cleanups.push(second.t.close)
    await eventually(() => expect(receiver!.received).toHaveLength(6))
    await second.t.app.bots.idle()
    const ids = receiver!.received.map((r) => r.headers['webhook-id'])
    expect(receiver!.received.map((r) => r.json.data.payload.text)).toEqual(['m0', 'm1', 'm2', 'm2', 'm3', 'm4'])
    expect(ids[3]).toBe(ids[2])
    expect(new Set(ids).size).toBe(5)
    expect(await pendingDeliveries(second.t)).toEqual([])
  })
})
