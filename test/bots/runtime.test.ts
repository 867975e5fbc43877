import { and, asc, eq } from 'drizzle-orm'
import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { BotContext, BotHandler } from '../../src/bots/handler.ts'
import type { ConversationSignal } from '../../src/domain/signals.ts'
import { findChatIntegration } from '../../src/domain/tenancy.ts'
import { previewOf } from '../../src/domain/bots/delivery/event.ts'
import type { MessagePayload } from '../../src/domain/payloads.ts'
import { type Actor, createTestApp, iso, type TestApp, WEBHOOK_ID } from '../helpers/app.ts'
import { helloFromAlice } from '../helpers/bot-events.ts'
import { tables } from '../helpers/tables.ts'
import { onPostgres } from '../helpers/engine.ts'
import { eventually } from '../helpers/wait.ts'
import { logsOf } from './receiver.ts'

const { botEvents: botEventsTable, events, messages } = tables

// The bot runtime, driven through the app: user messages and custom events reach the bot's handler
// after the user's request has answered; what the handler says comes back as the bot user.

type LogEntry = Record<string, any> & { level: number; msg: string }

let t: TestApp
let logs: LogEntry[]
let botId: string
let integrationId: string
let alice: Actor

/**
 * A fresh app whose log lines are kept in `logs`. The harness logs nothing by default; the logger
 * passed here takes the place of its silent one so that the runtime's error lines can be checked.
 */
async function start(
  options: { handlers?: Record<string, BotHandler>; botTimeoutMs?: number; botRetrySchedule?: number[]; onQuery?: (sql: string) => void } = {},
) {
  logs = []
  const log = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as LogEntry) })
  const appOptions = { ...options, log }
  t = createTestApp(appOptions)
  botId = t.tenant!.botId
  await t.ready
  integrationId = (await findChatIntegration(t.store, WEBHOOK_ID)).id
  alice = await t.user('alice', { name: 'Alice' })
  await t.conversation(alice.key, 'c1')
}

afterEach(async () => {
  await t.close()
})

const text = (value: string) => ({ type: 'text', text: value })

const post = async (payload: object, metadata?: object, conversationId = 'c1') => {
  const res = await t.chat('POST', '/messages', {
    key: alice.key,
    body: metadata === undefined ? { conversationId, payload } : { conversationId, payload, metadata },
  })
  expect(res.status).toBe(200)
  return res.body.message as { id: string; createdAt: string; payload: object; metadata?: object }
}

/**
 * The bot_events rows of a conversation, oldest first, from the table; a message's event keeps no
 * payload nor preview (the message is stored once): they are read from its message here.
 */
const listBotEvents = async (db: TestApp['db'], integrationId: string, conversationId: string) => {
  const rows = await db
    .select({ row: botEventsTable, message: messages })
    .from(botEventsTable)
    .leftJoin(messages, and(eq(messages.integrationId, botEventsTable.integrationId), eq(messages.id, botEventsTable.messageId)))
    .where(and(eq(botEventsTable.integrationId, integrationId), eq(botEventsTable.conversationId, conversationId)))
    .orderBy(asc(botEventsTable.createdAt), asc(botEventsTable.id))
  return rows.map(({ row, message }) =>
    message && row.payload === null ? { ...row, payload: message.payload, preview: previewOf(message.payload as MessagePayload) } : row,
  )
}

/** The conversation's messages, oldest first, straight from the table. */
const storedMessages = async (conversationId = 'c1') =>
  t.db.select().from(messages).where(eq(messages.conversationId, conversationId)).orderBy(asc(messages.createdAt), asc(messages.id))

const botMessages = async (conversationId = 'c1') => (await storedMessages(conversationId)).filter((m) => m.userId === botId)

const texts = (rows: { payload: Record<string, unknown> }[]) => rows.map((row) => row.payload.text)

/** A row of bot_events for alice's c1, with the fields that tell it apart. */
const botEvent = (fields: Record<string, unknown>) => ({
  id: expect.any(String),
  botId,
  integrationId,
  conversationId: 'c1',
  userId: 'alice',
  ...fields,
})

const handlerFailures = () => logs.filter((entry) => entry.level === 50 && entry.msg === 'bot handler failed')

/** Everything the hub says about a conversation from now on, collected in the background. */
function record(conversationId = 'c1') {
  const seen: ConversationSignal[] = []
  const source = t.app.signals.conversation(integrationId, conversationId)
  const done = (async () => {
    for await (const signal of source) seen.push(signal)
  })()
  return {
    seen,
    stop: async () => {
      await source.return?.()
      await done
    },
  }
}

describe('echo bot — answers createMessage', () => {
  beforeEach(() => start())

  it('posts a message with the same payload and metadata, as the bot user, after the user message', async () => {
    const payload = { type: 'text', text: 'hello', extra: { nested: [1, 2] } }
    const mine = await post(payload, { trace: 't-1' })
    await eventually(async () => expect(await botMessages()).toHaveLength(1))
    const res = await t.chat('GET', '/conversations/c1/messages', { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      messages: [{ id: expect.any(String), createdAt: iso, payload, userId: botId, conversationId: 'c1', metadata: { trace: 't-1' } }, { ...mine }],
      meta: {},
    })
    expect(res.body.messages[0].id).not.toBe(mine.id)
  })

  it("never copies the web chat's clientMessageId, the marker of the user's own message", async () => {
    await post(text('mine'), { clientMessageId: 'cm-1', trace: 't-2' })
    await eventually(async () => expect(await botMessages()).toHaveLength(1))
    expect((await botMessages())[0]?.metadata).toEqual({ trace: 't-2' })
  })

  it('posts no metadata when the user message has none', async () => {
    await post(text('plain'))
    await eventually(async () => expect(await botMessages()).toHaveLength(1))
    const [reply] = await botMessages()
    expect(reply?.metadata).toBeNull()
    const res = await t.chat('GET', `/messages/${reply?.id}`, { key: alice.key })
    expect(res.body).toEqual({
      message: { id: reply?.id, createdAt: iso, payload: text('plain'), userId: botId, conversationId: 'c1' },
    })
  })

  it.each([
    ['image', { type: 'image', imageUrl: 'https://pics.test/1.png' }],
    ['location', { type: 'location', latitude: 45.5, longitude: -73.5, title: 'Office' }],
    ['card', { type: 'card', title: 'Pick', actions: [{ action: 'say', label: 'Hi', value: 'hi' }] }],
    ['bloc', { type: 'bloc', items: [text('a'), { type: 'video', videoUrl: 'https://v.test/1.mp4' }] }],
  ])('says back a %s payload exactly', async (_kind, payload) => {
    await post(payload)
    await eventually(async () => expect(await botMessages()).toHaveLength(1))
    expect((await botMessages())[0]?.payload).toEqual(payload)
  })

  it('records the incoming and the outgoing event in bot_events', async () => {
    const mine = await post(text('hello'), { trace: 't-1' })
    await eventually(async () => expect(await botMessages()).toHaveLength(1))
    await t.app.bots.idle()
    const [reply] = await botMessages()
    const row = { type: 'message', payload: text('hello'), preview: 'hello' }
    expect(await listBotEvents(t.db, integrationId, 'c1')).toEqual([
      botEvent({ ...row, messageId: mine.id, direction: 'incoming', createdAt: mine.createdAt }),
      botEvent({ ...row, messageId: reply?.id, direction: 'outgoing', createdAt: iso }),
    ])
  })

  it('previews other payload kinds in bot_events', async () => {
    await post({ type: 'image', imageUrl: 'https://pics.test/1.png' })
    await eventually(async () => expect(await listBotEvents(t.db, integrationId, 'c1')).toHaveLength(2))
    expect((await listBotEvents(t.db, integrationId, 'c1')).map((row) => [row.direction, row.preview])).toEqual([
      ['incoming', '[image] https://pics.test/1.png'],
      ['outgoing', '[image] https://pics.test/1.png'],
    ])
  })

  it('answers in the conversation of the message only', async () => {
    await t.conversation(alice.key, 'c2')
    await post(text('in c2'), undefined, 'c2')
    await eventually(async () => expect(await botMessages('c2')).toHaveLength(1))
    await t.app.bots.idle()
    expect(await storedMessages('c1')).toEqual([])
    expect(await listBotEvents(t.db, integrationId, 'c1')).toEqual([])
  })
})

describe('echo bot — answers createEvent', () => {
  beforeEach(() => start())

  const botEvents = async () => (await t.db.select().from(events).where(eq(events.conversationId, 'c1'))).filter((e) => e.userId === botId)

  it('creates an event with the same payload, as the bot user', async () => {
    const payload = { type: 'typing', on: true, detail: { n: 1 } }
    const created = await t.chat('POST', '/events', { key: alice.key, body: { conversationId: 'c1', payload } })
    expect(created.status).toBe(200)
    await eventually(async () => expect(await botEvents()).toHaveLength(1))
    const [answer] = await botEvents()
    const res = await t.chat('GET', `/events/${answer?.id}`, { key: alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ event: { id: answer?.id, createdAt: iso, payload, conversationId: 'c1', userId: botId } })
    expect(answer?.id).not.toBe(created.body.event.id)
  })

  it('records the custom event, typed by its payload, in bot_events', async () => {
    const payload = { type: 'typing', on: true }
    const created = await t.chat('POST', '/events', { key: alice.key, body: { conversationId: 'c1', payload } })
    await eventually(async () => expect(await botEvents()).toHaveLength(1))
    await t.app.bots.idle()
    const row = { messageId: null, type: 'typing', payload, preview: JSON.stringify(payload) }
    expect(await listBotEvents(t.db, integrationId, 'c1')).toEqual([
      botEvent({ ...row, direction: 'incoming', createdAt: created.body.event.createdAt }),
      botEvent({ ...row, direction: 'outgoing', createdAt: iso }),
    ])
  })

  it("types a custom event without a string type as 'custom'", async () => {
    await t.chat('POST', '/events', { key: alice.key, body: { conversationId: 'c1', payload: { on: true } } })
    await eventually(async () => expect(await listBotEvents(t.db, integrationId, 'c1')).toHaveLength(2))
    expect((await listBotEvents(t.db, integrationId, 'c1')).map((row) => row.type)).toEqual(['custom', 'custom'])
  })
})

describe('bot user — joins the conversation once, and its signals say isBot', () => {
  beforeEach(() => start())

  it('joins with one participant_added on its first answer and stays', async () => {
    const signals = record()
    for (const word of ['one', 'two', 'three']) await post(text(word))
    await eventually(async () => expect(await botMessages()).toHaveLength(3))
    await t.app.bots.idle()
    const res = await t.chat('GET', '/conversations/c1/participants', { key: alice.key })
    expect(res.body).toEqual({
      participants: [alice.user, { id: botId, name: 'Echo bot', createdAt: iso, updatedAt: iso }],
      meta: {},
    })
    await eventually(() => expect(signals.seen.filter((s) => s.type === 'message_created')).toHaveLength(6))
    await signals.stop()
    const added = signals.seen.filter((s) => s.type === 'participant_added')
    expect(added).toEqual([
      {
        type: 'participant_added',
        conversationId: 'c1',
        participantId: botId,
        participant: expect.objectContaining({ id: botId, name: 'Echo bot', isBot: true }),
        // Its id in the conversation's signal log, which a listener resumes from.
        signalId: expect.any(String),
      },
    ])
    // The bot joins before its first answer is posted.
    const firstBotMessage = signals.seen.findIndex((s) => s.type === 'message_created' && s.isBot)
    expect(signals.seen.indexOf(added[0]!)).toBeLessThan(firstBotMessage)
  })

  it('marks its messages and events isBot: true in signals, the user ones isBot: false', async () => {
    const signals = record()
    const mine = await post(text('hi'))
    const event = await t.chat('POST', '/events', { key: alice.key, body: { conversationId: 'c1', payload: { type: 'x' } } })
    await eventually(() => expect(signals.seen.filter((s) => s.type === 'message_created' || s.type === 'event_created')).toHaveLength(4))
    await signals.stop()
    const flags = signals.seen.flatMap((s) =>
      s.type === 'message_created' ? [['message', s.message.userId, s.isBot]] : s.type === 'event_created' ? [['event', s.event.userId, s.isBot]] : [],
    )
    expect(flags).toHaveLength(4)
    expect(flags).toEqual(
      expect.arrayContaining([
        ['message', 'alice', false],
        ['message', botId, true],
        ['event', 'alice', false],
        ['event', botId, true],
      ]),
    )
    expect(signals.seen.find((s) => s.type === 'message_created' && !s.isBot)).toMatchObject({ message: { id: mine.id } })
    expect(signals.seen.find((s) => s.type === 'event_created' && !s.isBot)).toMatchObject({
      event: { id: event.body.event.id },
    })
  })

  it('never answers its own messages', async () => {
    await post(text('once'))
    await eventually(async () => expect(await botMessages()).toHaveLength(1))
    // Signals reach the bot in order: once 'twice' is answered, the bot has seen its own answer to 'once'.
    await post(text('twice'))
    await eventually(async () => expect(await botMessages()).toHaveLength(2))
    await t.app.bots.idle()
    expect(texts(await storedMessages())).toEqual(['once', 'once', 'twice', 'twice'])
    expect((await listBotEvents(t.db, integrationId, 'c1')).map((row) => row.direction)).toEqual(['incoming', 'outgoing', 'incoming', 'outgoing'])
  })
})

describe('bot handler — what it is given', () => {
  const calls: BotContext[] = []
  beforeEach(async () => {
    calls.length = 0
    await start({ handlers: { echo: (context) => void calls.push(context) } })
  })

  it('gets the spec event and the message, metadata included, for a user message', async () => {
    const mine = await post(text('hello'), { trace: 't-1' })
    await eventually(() => expect(calls).toHaveLength(1))
    const [call] = calls
    expect(call?.event).toStrictEqual(helloFromAlice(botId, mine.id, { id: expect.any(String), createdOn: new Date(mine.createdAt) }))
    expect(call?.message).toMatchObject({ id: mine.id, payload: text('hello'), metadata: { trace: 't-1' } })
    expect(typeof call?.reply).toBe('function')
    expect(typeof call?.emit).toBe('function')
    expect(typeof call?.log.info).toBe('function')
  })

  it('gets the spec event and no message for a custom event', async () => {
    const created = await t.chat('POST', '/events', {
      key: alice.key,
      body: { conversationId: 'c1', payload: { type: 'typing', on: true } },
    })
    await eventually(() => expect(calls).toHaveLength(1))
    const [call] = calls
    expect(call?.event).toStrictEqual({
      botId,
      conversationId: 'c1',
      createdOn: new Date(created.body.event.createdAt),
      direction: 'incoming',
      id: expect.any(String),
      integration: 'chat',
      payload: { type: 'typing', on: true },
      preview: '{"type":"typing","on":true}',
      state: { conversation: {}, user: {}, bot: {} },
      tags: { conversation: {}, message: {}, user: {} },
      type: 'typing',
      userId: 'alice',
    })
    expect(call?.message).toBeUndefined()
  })

  it('a handler that says nothing adds nothing: no message, no join, only incoming rows', async () => {
    await post(text('a'))
    await post(text('b'))
    await eventually(() => expect(calls).toHaveLength(2))
    await t.app.bots.idle()
    expect(calls.map((c) => c.event.preview)).toEqual(['a', 'b'])
    expect(await botMessages()).toEqual([])
    expect(await t.chat('GET', '/conversations/c1/participants', { key: alice.key })).toMatchObject({
      body: { participants: [alice.user] },
    })
    expect((await listBotEvents(t.db, integrationId, 'c1')).map((row) => row.direction)).toEqual(['incoming', 'incoming'])
  })
})

describe('bot handler — one that throws', () => {
  const throwing: [string, BotHandler][] = [
    [
      'rejects',
      async ({ event, reply }) => {
        if (event.preview === 'boom') throw new Error('boom')
        await reply(text(`re: ${event.preview}`))
      },
    ],
    [
      'throws synchronously',
      ({ event, reply }) => {
        if (event.preview === 'boom') throw new Error('boom')
        return reply(text(`re: ${event.preview}`)).then(() => {})
      },
    ],
  ]

  it.each(throwing)('a handler that %s: the user request still answers 200, the error is logged, later messages are answered', async (_how, handler) => {
    // One attempt: a failed event dies at once, and the conversation's next one goes out.
    await start({ handlers: { echo: handler }, botTimeoutMs: 200, botRetrySchedule: [0] })
    const boom = await post(text('boom'))
    expect(boom).toEqual({ id: expect.any(String), createdAt: iso, payload: text('boom'), userId: 'alice', conversationId: 'c1' })
    const stored = await t.chat('GET', `/messages/${boom.id}`, { key: alice.key })
    expect(stored.status).toBe(200)
    expect(stored.body).toEqual({ message: boom })
    await eventually(() => expect(handlerFailures()).toHaveLength(1))
    expect(handlerFailures()[0]).toMatchObject({ botId, conversationId: 'c1', err: { message: 'boom' } })

    await post(text('after'))
    await eventually(async () => expect(await botMessages()).toHaveLength(1))
    await t.app.bots.idle()
    expect(texts(await storedMessages())).toEqual(['boom', 'after', 're: after'])
    expect(handlerFailures()).toHaveLength(1)
    expect((await listBotEvents(t.db, integrationId, 'c1')).map((row) => [row.direction, row.preview])).toEqual([
      ['incoming', 'boom'],
      ['incoming', 'after'],
      ['outgoing', 're: after'],
    ])
  })

  it('keeps what a handler said before it threw', async () => {
    await start({
      handlers: {
        echo: async ({ reply }) => {
          await reply(text('first words'))
          throw new Error('then trouble')
        },
      },
      botTimeoutMs: 200,
    })
    await post(text('hi'))
    await eventually(() => expect(handlerFailures()).toHaveLength(1))
    expect(texts(await botMessages())).toEqual(['first words'])
  })
})

describe('bot handler — one that hangs past botTimeoutMs', () => {
  it('answers the user request, logs the timeout, answers later messages and drops the late reply', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let late: Promise<string[]> | undefined
    await start({
      botTimeoutMs: 200,
      botRetrySchedule: [0],
      handlers: {
        echo: async ({ event, reply, emit }) => {
          if (event.preview === 'slow') {
            await gate
            const outcome = (p: Promise<unknown>) =>
              p.then(
                () => 'sent',
                () => 'dropped',
              )
            late = Promise.all([outcome(reply(text('re: slow'))), outcome(emit({ type: 'late' }))])
            await late
            return
          }
          await reply(text(`re: ${event.preview}`))
        },
      },
    })
    const slow = await post(text('slow'))
    expect((await t.chat('GET', `/messages/${slow.id}`, { key: alice.key })).body).toEqual({ message: slow })
    await eventually(() => expect(handlerFailures()).toHaveLength(1))
    expect(handlerFailures()[0]).toMatchObject({ botId, conversationId: 'c1', err: { message: expect.stringMatching(/timed out/) } })

    await post(text('fast'))
    await eventually(async () => expect(await botMessages()).toHaveLength(1))
    expect(texts(await botMessages())).toEqual(['re: fast'])

    release()
    await eventually(() => expect(late).toBeDefined())
    expect(await late).toEqual(['dropped', 'dropped'])
    await t.app.bots.idle()
    expect(texts(await storedMessages())).toEqual(['slow', 'fast', 're: fast'])
    expect(await t.db.select().from(events).where(eq(events.conversationId, 'c1'))).toEqual([])
    expect((await listBotEvents(t.db, integrationId, 'c1')).map((row) => [row.direction, row.preview])).toEqual([
      ['incoming', 'slow'],
      ['incoming', 'fast'],
      ['outgoing', 're: fast'],
    ])
  })

  it('does not let the bot join on a dropped late reply', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let late: Promise<string> | undefined
    await start({
      botTimeoutMs: 200,
      handlers: {
        echo: async ({ reply }) => {
          await gate
          late = reply(text('too late')).then(
            () => 'sent',
            () => 'dropped',
          )
          await late
        },
      },
    })
    await post(text('slow'))
    await eventually(() => expect(handlerFailures()).toHaveLength(1))
    release()
    await eventually(() => expect(late).toBeDefined())
    expect(await late).toBe('dropped')
    const res = await t.chat('GET', '/conversations/c1/participants', { key: alice.key })
    expect(res.body).toEqual({ participants: [alice.user], meta: {} })
  })
})

describe('bot handler — replies keep the order of the messages they answer', () => {
  it('answers one message at a time per conversation, even when the earlier ones take longer', async () => {
    // Each answer waits for its message's gate, and the gates open last message first: answered side
    // by side, the replies would come out reversed.
    const gates = new Map<string, () => void>()
    const opened = new Map(['m1', 'm2', 'm3', 'm4'].map((word) => [word, new Promise<void>((resolve) => gates.set(word, resolve))]))
    await start({
      botTimeoutMs: 60_000,
      handlers: {
        echo: async ({ event, reply }) => {
          await opened.get(event.preview)
          await reply(text(`re: ${event.preview}`))
        },
      },
    })
    const signals = record()
    for (const word of ['m1', 'm2', 'm3', 'm4']) await post(text(word))
    for (const word of ['m4', 'm3', 'm2', 'm1']) gates.get(word)?.()
    await eventually(async () => expect(await botMessages()).toHaveLength(4))
    expect(texts(await botMessages())).toEqual(['re: m1', 're: m2', 're: m3', 're: m4'])
    const res = await t.chat('GET', '/conversations/c1/messages', { key: alice.key })
    expect(res.body.messages.filter((m: { userId: string }) => m.userId === botId).map((m: { payload: { text: string } }) => m.payload.text)).toEqual([
      're: m4',
      're: m3',
      're: m2',
      're: m1',
    ])
    await eventually(() => expect(signals.seen.filter((s) => s.type === 'message_created' && s.isBot)).toHaveLength(4))
    await signals.stop()
    expect(signals.seen.flatMap((s) => (s.type === 'message_created' && s.isBot ? [s.message.payload.text] : []))).toEqual([
      're: m1',
      're: m2',
      're: m3',
      're: m4',
    ])
  })
})

describe('bot runtime — a message to an idle conversation', () => {
  it('is found with one seek of its conversation where the worker owns the database, not a look at every head', async () => {
    const statements: string[] = []
    await start({ onQuery: (sql) => statements.push(sql.toLowerCase()) })
    await t.conversation(alice.key, 'c2')
    // Looks at the whole outbox: the heads of all conversations (SQLite), or a claim (PostgreSQL, shared).
    const looks = () => statements.filter((sql) => (onPostgres ? sql.includes('skip locked') : sql.includes('as heads'))).length
    // The worker's look at start-up is behind us once the first reply is in.
    await post(text('m0'))
    await eventually(async () => expect(await botMessages()).toHaveLength(1))
    const before = looks()
    for (const [i, conversationId] of ['c1', 'c2', 'c1'].entries()) {
      await post(text(`m${i + 1}`), undefined, conversationId)
      await eventually(async () => expect(texts(await botMessages(conversationId))).toContain(`m${i + 1}`))
    }
    // Several instances share PostgreSQL: there each new delivery is claimed, leased against the others.
    if (onPostgres) expect(looks()).toBeGreaterThanOrEqual(before + 3)
    else expect(looks()).toBe(before)
  })
})

describe('bot handler — one that returns its answer', () => {
  it('posts the messages and events it returns as the bot, and stores the state, with the delivery', async () => {
    const seen: unknown[] = []
    await start({
      handlers: {
        echo: ({ event, state }) => {
          seen.push(state.conversation)
          const count = Number(state.conversation.count ?? 0) + 1
          return {
            messages: [{ payload: text(`re: ${event.preview} (${count})`), metadata: { count } }],
            events: [{ payload: { type: 'answered', count } }],
            state: { conversation: { count } },
          }
        },
      },
    })
    await post(text('one'))
    await post(text('two'))
    await eventually(async () => expect(await botMessages()).toHaveLength(2))
    await t.app.bots.idle()
    expect((await botMessages()).map((m) => [m.payload, m.metadata])).toEqual([
      [text('re: one (1)'), { count: 1 }],
      [text('re: two (2)'), { count: 2 }],
    ])
    // Each event carries the state the answer before it stored.
    expect(seen).toEqual([{}, { count: 1 }])
    const botEvents = await t.db.select().from(events).where(eq(events.userId, botId)).orderBy(asc(events.createdAt), asc(events.id))
    expect(botEvents.map((e) => e.payload)).toEqual([
      { type: 'answered', count: 1 },
      { type: 'answered', count: 2 },
    ])
    const rows = await listBotEvents(t.db, integrationId, 'c1')
    expect(rows.filter((row) => row.direction === 'outgoing').map((row) => [row.type, row.preview])).toEqual([
      ['message', 're: one (1)'],
      ['answered', '{"type":"answered","count":1}'],
      ['message', 're: two (2)'],
      ['answered', '{"type":"answered","count":2}'],
    ])
  })

  it('refuses a returned answer that is not one, applies none of it and logs why; the delivery is over', async () => {
    await start({
      handlers: {
        echo: ({ event }) =>
          (event.preview === 'bad'
            ? { messages: [{ payload: text('fine') }, { payload: { type: 'text' } }] }
            : { messages: [{ payload: text(`re: ${event.preview}`) }] }) as never,
      },
    })
    await post(text('bad'))
    await post(text('good'))
    await eventually(async () => expect(await botMessages()).toHaveLength(1))
    await t.app.bots.idle()
    expect(texts(await botMessages())).toEqual(['re: good'])
    const lines = (await logsOf(t)).map((l) => [l.level, l.message])
    expect(lines).toContainEqual(['warn', expect.stringMatching(/^answer refused, nothing of it applied: /)])
    expect(lines.filter(([level]) => level === 'warn')).toHaveLength(1)
  })

  it('applies nothing of an answer returned after the handler timed out', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    await start({
      botTimeoutMs: 100,
      botRetrySchedule: [0],
      handlers: {
        echo: async ({ event }) => {
          if (event.preview === 'slow') await gate
          return { messages: [{ payload: text(`re: ${event.preview}`) }] }
        },
      },
    })
    await post(text('slow'))
    await eventually(() => expect(handlerFailures()).toHaveLength(1))
    await post(text('fast'))
    await eventually(async () => expect(await botMessages()).toHaveLength(1))
    release()
    await t.app.bots.idle()
    expect(texts(await botMessages())).toEqual(['re: fast'])
  })
})
