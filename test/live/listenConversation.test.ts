import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BASE, createTestApp, errorBody, type TestApp, WEBHOOK_ID } from '../helpers/app.ts'

// listenConversation — GET /{webhookId}/conversations/{id}/listen, read as the official client
// reads it: unnamed `data:` messages of JSON {type, data}, comment lines and ping messages between.

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const iso = expect.stringMatching(ISO)
const PING = 'data: {"type":"ping","data":{}}'

let t: TestApp
let botId: string
beforeEach(() => {
  t = createTestApp()
  botId = t.tenant!.botId
})
afterEach(async () => {
  await t.close()
})

/** A fresh app with other options, in place of the one beforeEach made. */
async function restart(options: Parameters<typeof createTestApp>[0]) {
  await t.close()
  t = createTestApp(options)
  botId = t.tenant!.botId
}

type Actor = Awaited<ReturnType<TestApp['user']>>
interface Signal {
  type: string
  data: Record<string, unknown>
}

/** Reads an SSE body block by block (a block is the lines up to a blank line). */
class SseReader {
  private buffer = ''
  private readonly decoder = new TextDecoder()
  readonly blocks: string[] = []

  constructor(readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** The next block, or undefined once the stream has ended. Fails rather than hang forever. */
  async block(): Promise<string | undefined> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n')
      if (end >= 0) {
        const block = this.buffer.slice(0, end)
        this.buffer = this.buffer.slice(end + 2)
        this.blocks.push(block)
        return block
      }
      let timer: NodeJS.Timeout | undefined
      const { done, value } = await Promise.race([
        this.reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no SSE data within 5 s; read so far: ${JSON.stringify(this.blocks)}`)), 5_000)
        }),
      ]).finally(() => clearTimeout(timer))
      if (done) {
        expect(this.buffer).toBe('')
        return undefined
      }
      this.buffer += this.decoder.decode(value, { stream: true })
    }
  }

  /**
   * The next Chat API signal, skipping comments and pings; undefined once the stream has ended.
   * Checks that it came as one unnamed `data:` line.
   */
  async signal(): Promise<Signal | undefined> {
    for (;;) {
      const block = await this.block()
      if (block === undefined) return undefined
      if (block.split('\n').every((line) => line.startsWith(':'))) continue
      if (block === PING) continue
      const lines = block.split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^data: \{/)
      return JSON.parse((lines[0] ?? '').slice('data: '.length)) as Signal
    }
  }

  async signals(n: number): Promise<Signal[]> {
    const signals: Signal[] = []
    for (let i = 0; i < n; i++) {
      const signal = await this.signal()
      if (signal === undefined) throw new Error(`the stream ended after ${i} of ${n} signals`)
      signals.push(signal)
    }
    return signals
  }
}

const listenUrl = (conversationId: string) => `${BASE}/${WEBHOOK_ID}/conversations/${conversationId}/listen`

/**
 * Opens a listener and waits until it is subscribed, so that nothing published afterwards is missed.
 * `baseline` is the number of live subscriptions before it.
 */
async function listen(key: string, conversationId: string) {
  const baseline = t.app.signals.activeSubscriptions()
  const response = await t.send('GET', listenUrl(conversationId), { key })
  expect(response.status).toBe(200)
  const sse = new SseReader(response.body!.getReader())
  await vi.waitFor(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline + 1))
  return { response, sse, baseline }
}

const postMessage = async (key: string, conversationId: string, payload: object, metadata?: object) => {
  const res = await t.chat('POST', '/messages', {
    key,
    body: metadata === undefined ? { conversationId, payload } : { conversationId, payload, metadata },
  })
  expect(res.status).toBe(200)
  return res.body.message as Record<string, unknown> & { id: string }
}

/** All live subscriptions but the listeners' are gone, and no stream is left open. */
const expectReleased = (baseline: number) =>
  vi.waitFor(() => {
    expect(t.app.signals.activeSubscriptions()).toBe(baseline)
    expect(t.app.streams.size).toBe(0)
  })

describe('listenConversation — the response', () => {
  it('answers exactly 200 text/event-stream and keeps the stream open', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const { response, sse } = await listen(alice.key, 'c1')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')?.split(';')[0]).toBe('text/event-stream')
    expect(t.app.streams.size).toBe(1)
    await sse.reader.cancel()
  })

  it('sends only comments and unnamed data messages, never a named event', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const { sse } = await listen(alice.key, 'c1')
    await postMessage(alice.key, 'c1', { type: 'text', text: 'hi' })
    await sse.signals(3) // alice's message, the bot joining, the bot's echo
    for (const block of sse.blocks) {
      for (const line of block.split('\n')) expect(line).toMatch(/^(:|data: )/)
    }
    expect(sse.blocks.join('\n')).not.toMatch(/^event:/m)
    await sse.reader.cancel()
  })
})

describe('listenConversation — signals', () => {
  let alice: Actor
  let bob: Actor
  beforeEach(async () => {
    alice = await t.user('alice')
    bob = await t.user('bob')
    await t.conversation(alice.key, 'c1')
  })

  it('message_created: the message with isBot, for the user message and for the bot answer', async () => {
    const { sse } = await listen(alice.key, 'c1')
    const message = await postMessage(alice.key, 'c1', { type: 'text', text: 'hello', extra: true }, { trace: 'x1' })
    const [mine, joined, echo] = await sse.signals(3)
    expect(mine).toEqual({
      type: 'message_created',
      data: {
        id: message.id,
        createdAt: iso,
        payload: { type: 'text', text: 'hello', extra: true },
        userId: 'alice',
        conversationId: 'c1',
        metadata: { trace: 'x1' },
        isBot: false,
      },
    })
    expect(mine?.data).toEqual({ ...message, isBot: false })
    expect(joined).toEqual({ type: 'participant_added', data: { conversationId: 'c1', participantId: botId } })
    expect(echo).toEqual({
      type: 'message_created',
      data: {
        id: expect.any(String),
        createdAt: iso,
        payload: { type: 'text', text: 'hello', extra: true },
        userId: botId,
        conversationId: 'c1',
        metadata: { trace: 'x1' },
        isBot: true,
      },
    })
    expect(echo?.data.id).not.toBe(message.id)
    await sse.reader.cancel()
  })

  it('message_created leaves metadata out when the message has none', async () => {
    const { sse } = await listen(alice.key, 'c1')
    const message = await postMessage(alice.key, 'c1', { type: 'image', imageUrl: 'https://pics.test/1.png' })
    const [mine, , echo] = await sse.signals(3)
    expect(mine).toEqual({
      type: 'message_created',
      data: {
        id: message.id,
        createdAt: iso,
        payload: { type: 'image', imageUrl: 'https://pics.test/1.png' },
        userId: 'alice',
        conversationId: 'c1',
        isBot: false,
      },
    })
    expect(mine?.data).not.toHaveProperty('metadata')
    expect(echo?.data).not.toHaveProperty('metadata')
    expect(echo?.data.isBot).toBe(true)
    await sse.reader.cancel()
  })

  it('message_deleted: the id, conversation and author of the deleted message', async () => {
    await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })
    const { sse } = await listen(alice.key, 'c1')
    const message = await postMessage(bob.key, 'c1', { type: 'text', text: 'oops' })
    // bob's message, the bot joining, the bot's echo: read them first so that the order is known.
    expect((await sse.signals(3)).map((s) => s.type)).toEqual(['message_created', 'participant_added', 'message_created'])
    const res = await t.chat('DELETE', `/messages/${message.id}`, { key: bob.key, body: {} })
    expect(res.status).toBe(200)
    expect(await sse.signal()).toEqual({
      type: 'message_deleted',
      data: { id: message.id, conversationId: 'c1', userId: 'bob' },
    })
    await sse.reader.cancel()
  })

  it('event_created: the event with its id and isBot, for the user event and for the bot answer', async () => {
    const { sse } = await listen(alice.key, 'c1')
    const created = await t.chat('POST', '/events', {
      key: alice.key,
      body: { conversationId: 'c1', payload: { type: 'typing', on: true } },
    })
    expect(created.status).toBe(200)
    const [mine, joined, echo] = await sse.signals(3)
    expect(mine).toEqual({
      type: 'event_created',
      data: {
        id: created.body.event.id,
        createdAt: iso,
        payload: { type: 'typing', on: true },
        conversationId: 'c1',
        userId: 'alice',
        isBot: false,
      },
    })
    expect(mine?.data).toEqual({ ...created.body.event, isBot: false })
    expect(joined).toEqual({ type: 'participant_added', data: { conversationId: 'c1', participantId: botId } })
    expect(echo).toEqual({
      type: 'event_created',
      data: {
        id: expect.any(String),
        createdAt: iso,
        payload: { type: 'typing', on: true },
        conversationId: 'c1',
        userId: botId,
        isBot: true,
      },
    })
    await sse.reader.cancel()
  })

  it('participant_added and participant_removed: the conversation and the participant', async () => {
    const { sse } = await listen(alice.key, 'c1')
    await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })
    // Adding a participant again changes nothing and says nothing.
    await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })
    await t.chat('DELETE', '/conversations/c1/participants/bob', { key: alice.key, body: {} })
    expect(await sse.signals(2)).toEqual([
      { type: 'participant_added', data: { conversationId: 'c1', participantId: 'bob' } },
      { type: 'participant_removed', data: { conversationId: 'c1', participantId: 'bob' } },
    ])
    await sse.reader.cancel()
  })

  it('sends the signals of its own conversation only', async () => {
    await t.conversation(alice.key, 'c2')
    const { sse } = await listen(alice.key, 'c1')
    await t.chat('POST', '/conversations/c2/participants', { key: alice.key, body: { userId: 'bob' } })
    await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })
    expect(await sse.signal()).toEqual({
      type: 'participant_added',
      data: { conversationId: 'c1', participantId: 'bob' },
    })
    await sse.reader.cancel()
  })

  it('writes every timestamp in UTC ending in Z', async () => {
    const { sse } = await listen(alice.key, 'c1')
    await postMessage(alice.key, 'c1', { type: 'text', text: 'time' })
    await t.chat('POST', '/events', { key: alice.key, body: { conversationId: 'c1', payload: {} } })
    const signals = await sse.signals(5)
    const stamps = signals.filter((s) => 'createdAt' in s.data).map((s) => s.data.createdAt)
    expect(stamps).toHaveLength(4)
    for (const stamp of stamps) expect(stamp).toMatch(ISO)
    await sse.reader.cancel()
  })

  it('tells every listener of the conversation', async () => {
    await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })
    const first = await listen(alice.key, 'c1')
    const second = await listen(bob.key, 'c1')
    const message = await postMessage(bob.key, 'c1', { type: 'text', text: 'both' })
    for (const { sse } of [first, second]) {
      expect(await sse.signal()).toEqual({ type: 'message_created', data: { ...message, isBot: false } })
      await sse.reader.cancel()
    }
  })
})

describe('listenConversation — heartbeats', () => {
  it('sends comment lines and ping data messages between signals', async () => {
    await restart({ sseTiming: { commentIntervalMs: 10, pingIntervalMs: 25 } })
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const { sse } = await listen(alice.key, 'c1')
    const seen = new Set<string>()
    while (!(seen.has(': keep-alive') && seen.has(PING))) {
      const block = await sse.block()
      if (block === undefined) throw new Error('the stream ended')
      seen.add(block)
    }
    for (const block of seen) expect([': connected', ': keep-alive', PING]).toContain(block)
    const message = await postMessage(alice.key, 'c1', { type: 'text', text: 'between beats' })
    expect(await sse.signal()).toEqual({ type: 'message_created', data: { ...message, isBot: false } })
    await sse.reader.cancel()
  })
})

describe('listenConversation — refusals', () => {
  it('answers 403 Forbidden to a user who is not a participant, as the JSON error body', async () => {
    const alice = await t.user('alice')
    const mallory = await t.user('mallory')
    await t.conversation(alice.key, 'c1')
    const baseline = t.app.signals.activeSubscriptions()
    const res = await t.send('GET', listenUrl('c1'), { key: mallory.key })
    expect(res.status).toBe(403)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(await res.json()).toEqual(errorBody(403, 'Forbidden'))
    expect(t.app.signals.activeSubscriptions()).toBe(baseline)
    expect(t.app.streams.size).toBe(0)
  })

  it('answers 404 ResourceNotFound for a conversation that does not exist', async () => {
    const alice = await t.user('alice')
    const res = await t.send('GET', listenUrl('nope'), { key: alice.key })
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(await res.json()).toEqual(errorBody(404, 'ResourceNotFound'))
    expect(t.app.streams.size).toBe(0)
  })

  it('answers 401 Unauthorized without a key, and with a key whose user does not exist', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    for (const key of [undefined, await t.keyFor('ghost')]) {
      const res = await t.send('GET', listenUrl('c1'), { key })
      expect(res.status).toBe(401)
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(await res.json()).toEqual(errorBody(401, 'Unauthorized'))
    }
    expect(t.app.streams.size).toBe(0)
  })

  it('refuses a participant who has left with 403 Forbidden', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
    await t.chat('DELETE', '/conversations/c1/participants/bob', { key: bob.key, body: {} })
    const res = await t.send('GET', listenUrl('c1'), { key: bob.key })
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual(errorBody(403, 'Forbidden'))
  })
})

describe('listenConversation — end of the stream', () => {
  let alice: Actor
  let bob: Actor
  let carol: Actor
  beforeEach(async () => {
    alice = await t.user('alice')
    bob = await t.user('bob')
    carol = await t.user('carol')
    await t.conversation(alice.key, 'c1', ['bob', 'carol'])
  })

  it('ends after the listener is removed by the owner, with its own participant_removed last', async () => {
    const { sse, baseline } = await listen(bob.key, 'c1')
    await t.chat('DELETE', '/conversations/c1/participants/bob', { key: alice.key, body: {} })
    expect(await sse.signal()).toEqual({ type: 'participant_removed', data: { conversationId: 'c1', participantId: 'bob' } })
    expect(await sse.signal()).toBeUndefined()
    await expectReleased(baseline)
  })

  it('ends after the listener leaves', async () => {
    const { sse, baseline } = await listen(bob.key, 'c1')
    await t.chat('DELETE', '/conversations/c1/participants/bob', { key: bob.key, body: {} })
    expect(await sse.signal()).toEqual({ type: 'participant_removed', data: { conversationId: 'c1', participantId: 'bob' } })
    expect(await sse.signal()).toBeUndefined()
    await expectReleased(baseline)
  })

  it('goes on when another participant is removed', async () => {
    const { sse } = await listen(bob.key, 'c1')
    await t.chat('DELETE', '/conversations/c1/participants/carol', { key: alice.key, body: {} })
    expect(await sse.signal()).toEqual({
      type: 'participant_removed',
      data: { conversationId: 'c1', participantId: 'carol' },
    })
    const message = await postMessage(alice.key, 'c1', { type: 'text', text: 'still here' })
    expect(await sse.signal()).toEqual({ type: 'message_created', data: { ...message, isBot: false } })
    expect(t.app.streams.size).toBe(1)
    await sse.reader.cancel()
  })

  it('ends every listener when the conversation is deleted', async () => {
    const baseline = t.app.signals.activeSubscriptions()
    const first = await listen(alice.key, 'c1')
    const second = await listen(bob.key, 'c1')
    expect(t.app.streams.size).toBe(2)
    const res = await t.chat('DELETE', '/conversations/c1', { key: alice.key, body: {} })
    expect(res.status).toBe(200)
    expect(await first.sse.signal()).toBeUndefined()
    expect(await second.sse.signal()).toBeUndefined()
    await expectReleased(baseline)
  })

  it('ends the listeners of the conversations a deleted user owned', async () => {
    const { sse, baseline } = await listen(bob.key, 'c1')
    await t.chat('DELETE', '/users/me', { key: alice.key, body: {} })
    expect(await sse.signal()).toBeUndefined()
    await expectReleased(baseline)
  })

  it('tells the other listeners when a participant deletes itself, and goes on', async () => {
    const { sse } = await listen(alice.key, 'c1')
    await t.chat('DELETE', '/users/me', { key: carol.key, body: {} })
    expect(await sse.signal()).toEqual({
      type: 'participant_removed',
      data: { conversationId: 'c1', participantId: 'carol' },
    })
    expect(t.app.streams.size).toBe(1)
    await sse.reader.cancel()
  })

  it('ends every stream when the app closes', async () => {
    const baseline = t.app.signals.activeSubscriptions()
    const first = await listen(alice.key, 'c1')
    const second = await listen(bob.key, 'c1')
    await t.app.close()
    expect(await first.sse.signal()).toBeUndefined()
    expect(await second.sse.signal()).toBeUndefined()
    expect(t.app.streams.size).toBe(0)
    await vi.waitFor(() => expect(t.app.signals.activeSubscriptions()).toBeLessThan(baseline))
  })
})

describe('listenConversation — client disconnect', () => {
  it('unsubscribes when the reader cancels', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const { sse, baseline } = await listen(alice.key, 'c1')
    expect(t.app.streams.size).toBe(1)
    await sse.reader.cancel()
    await expectReleased(baseline)
  })

  it('unsubscribes when the reader cancels after signals, and leaves the other listeners be', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const baseline = t.app.signals.activeSubscriptions()
    const staying = await listen(alice.key, 'c1')
    const leaving = await listen(alice.key, 'c1')
    await postMessage(alice.key, 'c1', { type: 'text', text: 'one' })
    await leaving.sse.signals(3)
    await leaving.sse.reader.cancel()
    await vi.waitFor(() => {
      expect(t.app.signals.activeSubscriptions()).toBe(baseline + 1)
      expect(t.app.streams.size).toBe(1)
    })
    await staying.sse.signals(3)
    const message = await postMessage(alice.key, 'c1', { type: 'text', text: 'two' })
    const next = await staying.sse.signals(2)
    expect(next[0]).toEqual({ type: 'message_created', data: { ...message, isBot: false } })
    await staying.sse.reader.cancel()
    await expectReleased(baseline)
  })

  it('unsubscribes when the request is aborted', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const baseline = t.app.signals.activeSubscriptions()
    const controller = new AbortController()
    const response = await t.app.fetch(
      new Request(listenUrl('c1'), { headers: { 'x-user-key': alice.key }, signal: controller.signal }),
    )
    expect(response.status).toBe(200)
    await vi.waitFor(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline + 1))
    controller.abort()
    await expectReleased(baseline)
  })
})
