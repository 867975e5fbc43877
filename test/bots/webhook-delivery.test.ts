import { asc, eq } from 'drizzle-orm'
import { Webhook } from 'standardwebhooks'
import { afterEach, describe, expect, it } from 'vitest'
import { defaultLimits } from '../../src/config.ts'
import { helloFromAlice } from '../helpers/bot-events.ts'
import { tables } from '../helpers/tables.ts'
import type { TestApp } from '../helpers/app.ts'
import { logsOf, manualClock, pendingDeliveries, type Receiver, setBot, startReceiver, webhookBotApp } from './receiver.ts'
import { eventually } from '../helpers/wait.ts'

// Delivery of user messages and custom events to a bot's url, through real HTTP receivers: signed
// per Standard Webhooks (checked by the `standardwebhooks` package), retried on a schedule the
// tests shrink or drive with a manual clock, in conversation order, every attempt in bot_logs.

let t: TestApp
let receiver: Receiver
let botId: string
let secret: string
let alice: { id: string; key: string }
const cleanups: (() => Promise<void>)[] = []

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function start(options: Parameters<typeof webhookBotApp>[0] & { answer?: Parameters<typeof startReceiver>[0] } = {}) {
  receiver = await startReceiver(options.answer)
  cleanups.push(receiver.close)
  ;({ t, botId, secret } = await webhookBotApp({ url: receiver.url, ...options }))
  cleanups.push(t.close)
  alice = await t.user('alice')
  await t.conversation(alice.key, 'c1')
}

const text = (value: string) => ({ type: 'text', text: value })

const post = async (payload: object, conversationId = 'c1') => {
  const res = await t.chat('POST', '/messages', { key: alice.key, body: { conversationId, payload } })
  expect(res.status).toBe(200)
  return res.body.message as { id: string; createdAt: string }
}

const { messages } = tables

const botTexts = async () =>
  (await t.db.select().from(messages).where(eq(messages.userId, botId)).orderBy(asc(messages.createdAt), asc(messages.id))).map((m) => m.payload.text)

const texts = () => receiver.received.map((r) => r.json.data.payload.text)

describe('webhook delivery — signed, with the spec event', () => {
  it('POSTs {type, timestamp, data} for a user message, signed so that standardwebhooks verifies it', async () => {
    await start()
    const mine = await post(text('hello'))
    await eventually(() => expect(receiver.received).toHaveLength(1))
    const [request] = receiver.received
    const verified = new Webhook(secret).verify(request!.body, request!.headers)
    expect(verified).toEqual({
      type: 'message',
      timestamp: mine.createdAt,
      data: helloFromAlice(botId, mine.id, { id: request!.headers['webhook-id'], createdOn: mine.createdAt }),
    })
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/)
    expect(() => new Webhook(`whsec_${Buffer.from('another key').toString('base64')}`).verify(request!.body, request!.headers)).toThrow()
    await t.app.bots.idle()
    expect(await pendingDeliveries(t)).toEqual([])
    expect(await logsOf(t)).toEqual([
      expect.objectContaining({
        botId,
        conversationId: 'c1',
        userId: 'alice',
        level: 'info',
        message: expect.stringMatching(/^POST .* \(attempt 1 of 10\): HTTP 200 in \d+ ms$/),
      }),
    ])
  })

  it("types a custom event's delivery by its payload's type, and never delivers the bot's own messages", async () => {
    await start({ answer: () => ({ status: 200, body: { messages: [{ payload: text('re') }] } }) })
    const res = await t.chat('POST', '/events', { key: alice.key, body: { conversationId: 'c1', payload: { type: 'typing', on: true } } })
    expect(res.status).toBe(200)
    await eventually(async () => expect(await botTexts()).toEqual(['re']))
    await t.app.bots.idle()
    expect(receiver.received.map((r) => [r.json.type, r.json.data.payload])).toEqual([['typing', { type: 'typing', on: true }]])
  })

  it('signs with both secrets while a rotated one is still valid, and with the new one alone once it expired', async () => {
    await start()
    const previous = secret
    const current = `whsec_${Buffer.from('c'.repeat(32)).toString('base64')}`
    await setBot(t, botId, {
      signingSecret: current,
      previousSigningSecret: previous,
      previousSigningSecretExpiresAt: new Date(Date.now() + 3600_000).toISOString(),
    })
    await post(text('during'))
    await eventually(() => expect(receiver.received).toHaveLength(1))
    const [during] = receiver.received
    expect(during!.headers['webhook-signature']!.split(' ')).toHaveLength(2)
    for (const key of [previous, current]) expect(new Webhook(key).verify(during!.body, during!.headers)).toBeTruthy()

    await setBot(t, botId, { previousSigningSecretExpiresAt: new Date(Date.now() - 1000).toISOString() })
    await post(text('after'))
    await eventually(() => expect(receiver.received).toHaveLength(2))
    const after = receiver.received[1]!
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1)
    expect(new Webhook(current).verify(after.body, after.headers)).toBeTruthy()
    expect(() => new Webhook(previous).verify(after.body, after.headers)).toThrow()
  })
})

describe('webhook delivery — the bot answers in the response', () => {
  it('posts the answer as the bot, joins it, and stores the state given to later events', async () => {
    await start({
      answer: (request, index) =>
        index === 0
          ? {
              status: 200,
              body: {
                messages: [{ payload: text('one'), metadata: { m: 1 } }, { payload: text('two') }],
                events: [{ payload: { type: 'note', n: 1 } }],
                state: { conversation: { step: 2 }, user: { lang: 'fr' } },
              },
            }
          : { status: 200, body: { state: { bot: { seen: request.json.data.state } } } },
    })
    await post(text('hi'))
    await eventually(async () => expect(await botTexts()).toEqual(['one', 'two']))
    const participants = await t.chat('GET', '/conversations/c1/participants', { key: alice.key })
    expect(participants.body.participants.map((p: { id: string }) => p.id)).toEqual(['alice', botId])
    const events = await t.db.select().from(tables.events)
    expect(events.map((e) => [e.userId, e.payload])).toEqual([[botId, { type: 'note', n: 1 }]])

    await post(text('again'))
    await eventually(() => expect(receiver.received).toHaveLength(2))
    expect(receiver.received[1]!.json.data.state).toEqual({ conversation: { step: 2 }, user: { lang: 'fr' }, bot: {} })
    await t.app.bots.idle()
    await post(text('third'))
    await eventually(() => expect(receiver.received).toHaveLength(3))
    expect(receiver.received[2]!.json.data.state.bot).toEqual({
      seen: { conversation: { step: 2 }, user: { lang: 'fr' }, bot: {} },
    })
    // The bot's own messages and events were never delivered to it.
    expect(texts()).toEqual(['hi', 'again', 'third'])
  })

  it('applies an answer before the next event of the conversation is delivered, even one already waiting', async () => {
    let second: () => void = () => {}
    const posted = new Promise<void>((resolve) => (second = resolve))
    await start({
      answer: async (_request, index) => {
        if (index > 0) return { status: 200 }
        // The next message is in the outbox before this answer is given.
        await posted
        return { status: 200, body: { messages: [{ payload: text('first answer') }], state: { conversation: { step: 1 } } } }
      },
    })
    await post(text('one'))
    await eventually(() => expect(receiver.received).toHaveLength(1))
    await post(text('two'))
    second()
    await eventually(() => expect(receiver.received).toHaveLength(2))
    expect(receiver.received[1]!.json.data.state.conversation).toEqual({ step: 1 })
    expect(await botTexts()).toEqual(['first answer'])
  })

  it('refuses an answer with one bad payload whole: nothing posted, a warn line, not retried', async () => {
    await start({
      answer: () => ({ status: 200, body: { messages: [{ payload: text('fine') }, { payload: { type: 'text' } }], state: { bot: { x: 1 } } } }),
    })
    await post(text('hi'))
    await eventually(async () => expect((await logsOf(t)).map((l) => l.level)).toEqual(['info', 'warn']))
    await t.app.bots.idle()
    expect((await logsOf(t))[1]!.message).toMatch(/^answer refused, nothing of it applied: /)
    expect(await botTexts()).toEqual([])
    expect(receiver.received).toHaveLength(1)
    expect(await pendingDeliveries(t)).toEqual([])
    await post(text('next'))
    await eventually(() => expect(receiver.received).toHaveLength(2))
    expect(receiver.received[1]!.json.data.state).toEqual({ conversation: {}, user: {}, bot: {} })
  })

  it('takes a 2xx without a JSON body as a plain acknowledgement', async () => {
    await start({ answer: () => ({ status: 204 }) })
    await post(text('hi'))
    await eventually(async () => expect(await logsOf(t)).toHaveLength(1))
    expect((await logsOf(t))[0]).toMatchObject({ level: 'info', message: expect.stringMatching(/HTTP 204/) })
  })

  it('refuses an answer over 1 MB, and never sends an event body over 1 MB', async () => {
    // Messages up to the body limit (128 KiB by default), to pass the Runtime limit with one.
    const caps = { ...defaultLimits, messageMaxBytes: 1024 * 1024 }
    await start({ caps, answer: () => ({ status: 200, body: { messages: [{ payload: text('x'.repeat(1024 * 1024)) }] } }) })
    await post(text('hi'))
    await eventually(async () => expect((await logsOf(t)).map((l) => l.level)).toEqual(['info', 'warn']))
    expect((await logsOf(t))[1]!.message).toMatch(/more than 1 MB/)
    expect(await botTexts()).toEqual([])

    // Under the chat limit as a request, over the Runtime limit once the event repeats it as its preview.
    await post(text('y'.repeat(700 * 1024)))
    // A 700 KB message read back for its delivery: over a second on a busy PostgreSQL.
    await eventually(async () => expect(await logsOf(t)).toHaveLength(3))
    expect((await logsOf(t))[2]).toMatchObject({ level: 'error', message: expect.stringMatching(/exceeds the Runtime limit of 1 MB/) })
    expect(receiver.received).toHaveLength(1)
  })
})

describe('webhook delivery — retries', () => {
  it('retries a failed attempt with the same webhook-id, and logs each attempt with its status', async () => {
    await start({ botRetrySchedule: [0, 0, 0], answer: (_r, index) => ({ status: index === 0 ? 500 : 200 }) })
    await post(text('hi'))
    await eventually(() => expect(receiver.received).toHaveLength(2))
    await t.app.bots.idle()
    const [first, second] = receiver.received
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id'])
    expect(new Webhook(secret).verify(second!.body, second!.headers)).toBeTruthy()
    expect((await logsOf(t)).map((l) => [l.level, l.message.replace(/\d+ ms/, 'N ms')])).toEqual([
      ['warn', `POST ${receiver.url} (attempt 1 of 3): HTTP 500 in N ms`],
      ['info', `POST ${receiver.url} (attempt 2 of 3): HTTP 200 in N ms`],
    ])
    expect(await pendingDeliveries(t)).toEqual([])
  })

  it('waits the schedule between attempts (on the injected clock), with jitter of at most 10 %', async () => {
    const clock = manualClock()
    await start({ botRetrySchedule: [0, 300], clock: clock.now, answer: (_r, index) => ({ status: index === 0 ? 502 : 200 }) })
    await post(text('hi'))
    await eventually(async () => expect((await pendingDeliveries(t))[0]?.attempts).toBe(1))
    const due = Date.parse((await pendingDeliveries(t))[0]!.nextAttemptAt) - clock.now().getTime()
    expect(due).toBeGreaterThanOrEqual(270_000)
    expect(due).toBeLessThanOrEqual(330_000)
    clock.advance(due - 1000)
    t.app.bots.wake()
    await t.app.bots.idle()
    expect(receiver.received).toHaveLength(1)
    clock.advance(1000)
    t.app.bots.wake()
    await eventually(() => expect(receiver.received).toHaveLength(2))
    await t.app.bots.idle()
    expect(await pendingDeliveries(t)).toEqual([])
  })

  it('honours Retry-After on a 429 and a 503', async () => {
    const clock = manualClock()
    const statuses = [429, 503, 200]
    await start({
      botRetrySchedule: [0, 0, 0],
      clock: clock.now,
      answer: (_r, index) => ({ status: statuses[index] ?? 200, headers: { 'retry-after': index === 0 ? '120' : '30' } }),
    })
    const started = clock.now().getTime()
    await post(text('hi'))
    await eventually(async () => expect((await pendingDeliveries(t))[0]?.attempts).toBe(1))
    expect(Date.parse((await pendingDeliveries(t))[0]!.nextAttemptAt)).toBe(started + 120_000)
    clock.advance(120_000)
    t.app.bots.wake()
    await eventually(async () => expect((await pendingDeliveries(t))[0]?.attempts).toBe(2))
    expect(Date.parse((await pendingDeliveries(t))[0]!.nextAttemptAt)).toBe(started + 150_000)
    clock.advance(30_000)
    t.app.bots.wake()
    await eventually(() => expect(receiver.received).toHaveLength(3))
    await t.app.bots.idle()
    expect((await logsOf(t)).map((l) => /HTTP (\d+)/.exec(l.message)?.[1])).toEqual(['429', '503', '200'])
  })

  it('cuts an attempt off at the timeout, closing its connection, and retries', async () => {
    await start({ botRetrySchedule: [0, 0], botTimeoutMs: 300, answer: (_r, index) => (index === 0 ? 'hang' : { status: 200 }) })
    await post(text('hi'))
    await eventually(() => expect(receiver.received).toHaveLength(2))
    await receiver.received[0]!.closed
    await t.app.bots.idle()
    expect((await logsOf(t)).map((l) => [l.level, l.message.replace(/\d+ ms$/, 'N ms')])).toEqual([
      ['warn', `POST ${receiver.url} (attempt 1 of 2): timed out after 300 ms, after N ms`],
      ['info', expect.stringMatching(/HTTP 200/)],
    ])
  })

  it('retries a connection error, and a delivery dies after its last attempt, logged as an error', async () => {
    await start({ botRetrySchedule: [0, 0, 0] })
    await receiver.close()
    await post(text('hi'))
    await eventually(async () => expect(await logsOf(t)).toHaveLength(4))
    await t.app.bots.idle()
    expect((await logsOf(t)).map((l) => l.level)).toEqual(['warn', 'warn', 'warn', 'error'])
    expect((await logsOf(t))[0]!.message).toMatch(/connection error: ECONNREFUSED/)
    expect((await logsOf(t))[3]!.message).toMatch(/is dead after 3 attempts/)
    expect(await pendingDeliveries(t)).toEqual([])
  })

  it('410 Gone: that delivery is not resent, delivery stays off until the url changes', async () => {
    await start({ botRetrySchedule: [0, 0, 0], answer: (_r, index) => ({ status: index === 0 ? 410 : 200 }) })
    await post(text('gone'))
    await eventually(async () => expect(await logsOf(t)).toHaveLength(2))
    expect((await logsOf(t))[1]).toMatchObject({ level: 'warn', message: expect.stringMatching(/off until the bot's url changes/) })
    const kept = await post(text('kept'))
    await t.app.bots.idle()
    expect(texts()).toEqual(['gone'])
    // The outbox names the message (stored once), not its text.
    expect((await pendingDeliveries(t)).map((d) => d.messageId)).toEqual([kept.id])

    // updateBot through the admin API: the same url given again counts as a change, and wakes the worker.
    const updated = await t.admin('PUT', `/bots/${botId}`, { body: { url: receiver.url } })
    expect(updated.status).toBe(200)
    await eventually(() => expect(texts()).toEqual(['gone', 'kept']))
    await t.app.bots.idle()
    expect(await pendingDeliveries(t)).toEqual([])
  })
})

describe('webhook delivery — order within a conversation', () => {
  it('delivers an event only once the previous one was taken, while other conversations go on', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    await start({
      answer: async (request) => {
        if (request.json.data.payload.text === 'first') await gate
        return { status: 200 }
      },
    })
    await t.conversation(alice.key, 'c2')
    await post(text('first'))
    await post(text('second'))
    await post(text('elsewhere'), 'c2')
    await eventually(() => expect(texts()).toEqual(['first', 'elsewhere']))
    release()
    await eventually(() => expect(texts()).toEqual(['first', 'elsewhere', 'second']))
  })

  it('holds the next event while the previous one waits for a retry, until it is delivered or dead', async () => {
    const clock = manualClock()
    await start({
      botRetrySchedule: [0, 5, 5],
      clock: clock.now,
      answer: (request) => ({ status: request.json.data.payload.text === 'first' ? 500 : 200 }),
    })
    await post(text('first'))
    await post(text('second'))
    await eventually(async () => expect((await pendingDeliveries(t))[0]?.attempts).toBe(1))
    await t.app.bots.idle()
    expect(texts()).toEqual(['first'])
    clock.advance(6000)
    t.app.bots.wake()
    await eventually(async () => expect((await pendingDeliveries(t))[0]?.attempts).toBe(2))
    await t.app.bots.idle()
    expect(texts()).toEqual(['first', 'first'])
    clock.advance(6000)
    t.app.bots.wake()
    await eventually(() => expect(texts()).toEqual(['first', 'first', 'first', 'second']))
    // The bot has the event; its settlement commits right after.
    await t.app.bots.idle()
    expect((await logsOf(t)).map((l) => l.level)).toEqual(['warn', 'warn', 'warn', 'error', 'info'])
  })
})
