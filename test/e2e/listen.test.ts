import { type AuthenticatedClient, Client, type SignalListener } from '@botpress/chat'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ENCRYPTION_KEY } from '../helpers/app.ts'
import { ISO, type Listening, PING, recordSignals, startListening } from '../helpers/listening.ts'

let s: Listening
let listeners: SignalListener[]
let rawStreams: { close: () => Promise<void> }[]

beforeEach(async () => {
  s = await startListening()
  listeners = []
  rawStreams = []
})

afterEach(async () => {
  for (const listener of listeners) await listener.disconnect()
  for (const raw of rawStreams) await raw.close()
  await s.close()
})

const connect = (userId: string) => Client.connect({ apiUrl: s.apiUrl, userId, encryptionKey: ENCRYPTION_KEY })

async function listen(client: AuthenticatedClient, conversationId: string) {
  const listener = await client.listenConversation({ id: conversationId })
  listeners.push(listener)
  return { listener, ...recordSignals(listener) }
}

/** A conversation of `owner` with the given participants added. */
async function conversationOf(owner: AuthenticatedClient, id: string, ...others: AuthenticatedClient[]) {
  await owner.createConversation({ id })
  for (const other of others) await owner.addParticipant({ conversationId: id, userId: other.user.id })
}

/** The listen stream read as plain Server-Sent Events: every `data:` message, parsed. */
async function openRaw(conversationId: string, key: string) {
  const controller = new AbortController()
  const response = await fetch(`${s.apiUrl}/conversations/${conversationId}/listen`, {
    headers: { 'x-user-key': key, accept: 'text/event-stream' },
    signal: controller.signal,
  })
  const messages: unknown[] = []
  const reading = (async () => {
    if (!response.body) return
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
    let buffer = ''
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        buffer += value
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const data = block
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).replace(/^ /, ''))
          if (data.length > 0) messages.push(JSON.parse(data.join('\n')))
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error
    }
  })()
  const raw = {
    response,
    messages,
    close: async () => {
      controller.abort()
      await reading
    },
  }
  rawStreams.push(raw)
  return raw
}

describe('listenConversation — connection', () => {
  it('opens for a participant and keeps one subscription and one stream on the server while connected', async () => {
    const alice = await connect('alice')
    await alice.createConversation({ id: 'c1' })
    const baseline = s.t.app.signals.activeSubscriptions()
    const { listener } = await listen(alice, 'c1')
    expect(listener.status).toBe('connected')
    await vi.waitFor(() => {
      expect(s.t.app.signals.activeSubscriptions()).toBe(baseline + 1)
      expect(s.t.app.streams.size).toBe(1)
    })
  })

  it('refuses a user who does not participate (403) and a conversation that does not exist (404)', async () => {
    const alice = await connect('alice')
    const mallory = await connect('mallory')
    await alice.createConversation({ id: 'c1' })
    await expect(mallory.listenConversation({ id: 'c1' })).rejects.toMatchObject({ type: 'error', status: 403 })
    await expect(alice.listenConversation({ id: 'nope' })).rejects.toMatchObject({ type: 'error', status: 404 })
    expect(s.t.app.streams.size).toBe(0)
  })
})

describe('listenConversation — message_created', () => {
  it("delivers another participant's message, the bot joining, and the bot's echo with isBot true", async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    const bobHears = await listen(bob, 'c1')

    const { message } = await alice.createMessage({
      conversationId: 'c1',
      payload: { type: 'text', text: 'Hello' },
      metadata: { locale: 'en', nested: { n: 1 } },
    })
    await vi.waitFor(() => expect(bobHears.received).toHaveLength(3))
    const [answer] = (await alice.listMessages({ conversationId: 'c1' })).messages

    expect(bobHears.received).toEqual([
      { type: 'message_created', data: { ...message, isBot: false } },
      { type: 'participant_added', data: { conversationId: 'c1', participantId: s.botId } },
      { type: 'message_created', data: { ...answer, isBot: true } },
    ])
    expect(answer).toEqual({
      id: expect.any(String),
      createdAt: expect.stringMatching(ISO),
      payload: { type: 'text', text: 'Hello' },
      userId: s.botId,
      conversationId: 'c1',
      metadata: { locale: 'en', nested: { n: 1 } },
    })
    expect(bobHears.unknown).toEqual([])
    expect(bobHears.errors).toEqual([])
  })

  it('leaves metadata out of the signal of a message without metadata', async () => {
    const alice = await connect('alice')
    await alice.createConversation({ id: 'c1' })
    const hears = await listen(alice, 'c1')

    const { message } = await alice.createMessage({
      conversationId: 'c1',
      payload: { type: 'image', imageUrl: 'https://pics.test/i.png' },
    })
    await vi.waitFor(() => expect(hears.received).toHaveLength(3))

    expect(hears.received).toEqual([
      {
        type: 'message_created',
        data: {
          id: message.id,
          createdAt: message.createdAt,
          payload: { type: 'image', imageUrl: 'https://pics.test/i.png' },
          userId: 'alice',
          conversationId: 'c1',
          isBot: false,
        },
      },
      { type: 'participant_added', data: { conversationId: 'c1', participantId: s.botId } },
      {
        type: 'message_created',
        data: {
          id: expect.any(String),
          createdAt: expect.stringMatching(ISO),
          payload: { type: 'image', imageUrl: 'https://pics.test/i.png' },
          userId: s.botId,
          conversationId: 'c1',
          isBot: true,
        },
      },
    ])
  })
})

describe('listenConversation — message_deleted', () => {
  it('delivers the id, conversation and author of a deleted message', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    const { message } = await alice.createMessage({ conversationId: 'c1', payload: { type: 'text', text: 'oops' } })
    await vi.waitFor(async () => expect((await alice.listMessages({ conversationId: 'c1' })).messages).toHaveLength(2))
    const bobHears = await listen(bob, 'c1')

    expect(await alice.deleteMessage({ id: message.id })).toEqual({})
    await vi.waitFor(() => expect(bobHears.received).toHaveLength(1))

    expect(bobHears.received).toEqual([
      { type: 'message_deleted', data: { id: message.id, conversationId: 'c1', userId: 'alice' } },
    ])
    expect(bobHears.unknown).toEqual([])
  })
})

describe('listenConversation — event_created', () => {
  it("delivers a user's custom event with its id, and the bot's echo with isBot true", async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    const bobHears = await listen(bob, 'c1')

    const { event } = await alice.createEvent({ conversationId: 'c1', payload: { type: 'typing', on: true } })
    await vi.waitFor(() => expect(bobHears.received).toHaveLength(3))
    const echo = bobHears.received[2]
    const echoId = echo?.type === 'event_created' ? echo.data.id : null
    expect(echoId).toEqual(expect.any(String))
    const { event: echoed } = await bob.getEvent({ id: echoId as string })

    expect(bobHears.received).toEqual([
      { type: 'event_created', data: { ...event, isBot: false } },
      { type: 'participant_added', data: { conversationId: 'c1', participantId: s.botId } },
      { type: 'event_created', data: { ...echoed, isBot: true } },
    ])
    expect(echoed).toEqual({
      id: echoId,
      createdAt: expect.stringMatching(ISO),
      payload: { type: 'typing', on: true },
      conversationId: 'c1',
      userId: s.botId,
    })
    expect(bobHears.unknown).toEqual([])
  })
})

describe('listenConversation — participant_added', () => {
  it('delivers the conversation and the id of a user who joins', async () => {
    const alice = await connect('alice')
    await connect('bob')
    await alice.createConversation({ id: 'c1' })
    const aliceHears = await listen(alice, 'c1')

    await alice.addParticipant({ conversationId: 'c1', userId: 'bob' })
    await vi.waitFor(() => expect(aliceHears.received).toHaveLength(1))

    expect(aliceHears.received).toEqual([
      { type: 'participant_added', data: { conversationId: 'c1', participantId: 'bob' } },
    ])
    expect(aliceHears.unknown).toEqual([])
  })
})

describe('listenConversation — participant_removed', () => {
  it('delivers the conversation and the id of a participant who leaves or is removed', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    const carol = await connect('carol')
    await conversationOf(alice, 'c1', bob, carol)
    const aliceHears = await listen(alice, 'c1')

    await bob.removeParticipant({ conversationId: 'c1', userId: 'bob' })
    await alice.removeParticipant({ conversationId: 'c1', userId: 'carol' })
    await vi.waitFor(() => expect(aliceHears.received).toHaveLength(2))

    expect(aliceHears.received).toEqual([
      { type: 'participant_removed', data: { conversationId: 'c1', participantId: 'bob' } },
      { type: 'participant_removed', data: { conversationId: 'c1', participantId: 'carol' } },
    ])
    expect(aliceHears.unknown).toEqual([])
  })
})

describe('listenConversation — the stream as sent', () => {
  it('answers 200 text/event-stream whose data messages are exactly the signals the client parsed', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await alice.createConversation({ id: 'c1' })
    const clientHears = await listen(alice, 'c1')
    const raw = await openRaw('c1', alice.user.key)
    expect(raw.response.status).toBe(200)
    expect(raw.response.headers.get('content-type')).toMatch(/^text\/event-stream/)

    await alice.addParticipant({ conversationId: 'c1', userId: 'bob' })
    const { message } = await alice.createMessage({
      conversationId: 'c1',
      payload: { type: 'text', text: 'hi' },
      metadata: { a: 1 },
    })
    await alice.createEvent({ conversationId: 'c1', payload: { kind: 'custom' } })
    await vi.waitFor(() => expect(clientHears.received).toHaveLength(6))
    await alice.deleteMessage({ id: message.id })
    await bob.removeParticipant({ conversationId: 'c1', userId: 'bob' })
    await vi.waitFor(() => {
      expect(clientHears.received).toHaveLength(8)
      expect(raw.messages.filter((m) => JSON.stringify(m) !== PING)).toHaveLength(8)
    })

    expect(clientHears.received.map((r) => r.type)).toEqual([
      'participant_added',
      'message_created',
      'participant_added',
      'message_created',
      'event_created',
      'event_created',
      'message_deleted',
      'participant_removed',
    ])
    expect(raw.messages.filter((m) => JSON.stringify(m) !== PING)).toEqual(clientHears.received)
    expect(clientHears.unknown).toEqual([])
    expect(clientHears.errors).toEqual([])
  })
})

describe('listenConversation — a listener removed from the conversation', () => {
  it('hears its own participant_removed, then its stream ends and later signals do not reach it', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    const baseline = s.t.app.signals.activeSubscriptions()
    const aliceHears = await listen(alice, 'c1')
    const bobHears = await listen(bob, 'c1')
    await vi.waitFor(() => expect(s.t.app.streams.size).toBe(2))

    await alice.removeParticipant({ conversationId: 'c1', userId: 'bob' })
    await vi.waitFor(() => {
      expect(bobHears.listener.status).toBe('disconnected')
      expect(bobHears.errors).toHaveLength(1)
    })
    expect(bobHears.received).toEqual([
      { type: 'participant_removed', data: { conversationId: 'c1', participantId: 'bob' } },
    ])
    await vi.waitFor(() => {
      expect(s.t.app.streams.size).toBe(1)
      expect(s.t.app.signals.activeSubscriptions()).toBe(baseline + 1)
    })

    await alice.createMessage({ conversationId: 'c1', payload: { type: 'text', text: 'after bob left' } })
    await vi.waitFor(() => expect(aliceHears.received).toHaveLength(4))
    expect(aliceHears.received.map((r) => r.type)).toEqual([
      'participant_removed',
      'message_created',
      'participant_added',
      'message_created',
    ])
    expect(bobHears.received).toHaveLength(1)
    expect(aliceHears.listener.status).toBe('connected')
  })

  it('also ends for a participant that leaves by itself', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    const bobHears = await listen(bob, 'c1')

    await bob.removeParticipant({ conversationId: 'c1', userId: 'bob' })
    await vi.waitFor(() => expect(bobHears.listener.status).toBe('disconnected'))
    expect(bobHears.received).toEqual([
      { type: 'participant_removed', data: { conversationId: 'c1', participantId: 'bob' } },
    ])
    await vi.waitFor(() => expect(s.t.app.streams.size).toBe(0))
  })
})

describe('listenConversation — disconnect', () => {
  it('leaves no subscription and no stream on the server', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    const baseline = s.t.app.signals.activeSubscriptions()
    const aliceHears = await listen(alice, 'c1')
    const bobHears = await listen(bob, 'c1')
    await vi.waitFor(() => {
      expect(s.t.app.signals.activeSubscriptions()).toBe(baseline + 2)
      expect(s.t.app.streams.size).toBe(2)
    })

    await aliceHears.listener.disconnect()
    await bobHears.listener.disconnect()
    expect(aliceHears.listener.status).toBe('disconnected')
    await vi.waitFor(() => {
      expect(s.t.app.signals.activeSubscriptions()).toBe(baseline)
      expect(s.t.app.streams.size).toBe(0)
    })
    expect(aliceHears.errors).toEqual([])
  })

  it('can connect again and hears the signals that follow', async () => {
    const alice = await connect('alice')
    await connect('bob')
    await alice.createConversation({ id: 'c1' })
    const hears = await listen(alice, 'c1')
    await hears.listener.disconnect()
    await vi.waitFor(() => expect(s.t.app.streams.size).toBe(0))

    await hears.listener.connect()
    expect(hears.listener.status).toBe('connected')
    await alice.addParticipant({ conversationId: 'c1', userId: 'bob' })
    await vi.waitFor(() => expect(hears.received).toHaveLength(1))
    expect(hears.received).toEqual([
      { type: 'participant_added', data: { conversationId: 'c1', participantId: 'bob' } },
    ])
  })
})

describe('listenConversation — conversation deleted', () => {
  it('ends the listeners of every participant and leaves nothing on the server', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    const baseline = s.t.app.signals.activeSubscriptions()
    const aliceHears = await listen(alice, 'c1')
    const bobHears = await listen(bob, 'c1')

    await alice.deleteConversation({ id: 'c1' })
    await vi.waitFor(() => {
      expect(aliceHears.listener.status).toBe('disconnected')
      expect(bobHears.listener.status).toBe('disconnected')
      expect(s.t.app.streams.size).toBe(0)
      expect(s.t.app.signals.activeSubscriptions()).toBe(baseline)
    })
    expect(aliceHears.unknown).toEqual([])
    expect(bobHears.unknown).toEqual([])
  })
})

describe('listenConversation — server shutdown', () => {
  it('app.close() ends every open listener, which then stays disconnected', async () => {
    const alice = await connect('alice')
    const bob = await connect('bob')
    await conversationOf(alice, 'c1', bob)
    const aliceHears = await listen(alice, 'c1')
    const bobHears = await listen(bob, 'c1')
    await vi.waitFor(() => expect(s.t.app.streams.size).toBe(2))

    await s.t.app.close()

    await vi.waitFor(() => {
      expect(aliceHears.listener.status).toBe('disconnected')
      expect(bobHears.listener.status).toBe('disconnected')
    })
    expect(aliceHears.errors).toHaveLength(1)
    expect(bobHears.errors).toHaveLength(1)
    expect(aliceHears.errors[0]).toBeInstanceOf(Error)
    expect(s.t.app.streams.size).toBe(0)
    expect(s.t.app.signals.activeSubscriptions()).toBe(0)
    expect(aliceHears.received).toEqual([])
    expect(aliceHears.unknown).toEqual([])
  })
})

describe('listenConversation — an idle listener', () => {
  it('still hears a signal sent after 70 s of silence, with the default SSE timing', { timeout: 120_000 }, async () => {
    const alice = await connect('alice')
    await connect('bob')
    await alice.createConversation({ id: 'c1' })
    const hears = await listen(alice, 'c1')

    await new Promise((resolve) => setTimeout(resolve, 70_000))
    expect(hears.listener.status).toBe('connected')
    expect(hears.errors).toEqual([])

    await alice.addParticipant({ conversationId: 'c1', userId: 'bob' })
    await vi.waitFor(() => expect(hears.received).toHaveLength(1))
    expect(hears.received).toEqual([
      { type: 'participant_added', data: { conversationId: 'c1', participantId: 'bob' } },
    ])
    expect(hears.unknown).toEqual([])
  })
})
