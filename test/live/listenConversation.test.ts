import { describe, expect, it } from 'vitest'
import { BASE, iso, type TestApp, useC1, useTestApp, WEBHOOK_ID } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { PING, useOfficialClient } from '../helpers/listening.ts'
import { SseReader } from '../helpers/sse.ts'
import { eventually } from '../helpers/wait.ts'

// listenConversation — GET /{webhookId}/conversations/{id}/listen: Server-Sent Events read as the
// official client reads them, unnamed `data:` messages of JSON {type, data}, with comment lines
// and ping messages between. Its GraphQL twin is the conversationSignals subscription.

interface Signal {
  type: string
  data: Record<string, unknown>
}

const listenUrl = (conversationId: string) => `${BASE}/${WEBHOOK_ID}/conversations/${conversationId}/listen`

/** A listener of the REST stream, in-process. */
async function listen(t: TestApp, key: string, conversationId: string) {
  const baseline = t.app.signals.activeSubscriptions()
  const response = await t.send('GET', listenUrl(conversationId), { key })
  expect(response.status).toBe(200)
  const sse = new SseReader(response.body!)
  // Subscribed once the count says so: nothing published from then on can be missed.
  await eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline + 1))
  /** The next Chat API signal, pings and comments skipped, checked to come as one unnamed `data:` line; undefined once the stream has ended. */
  const signal = async (): Promise<Signal | undefined> => {
    const block = await sse.message((b) => b.data === PING)
    if (block === undefined) return undefined
    expect(block.text).toMatch(/^(id: [0-9A-HJKMNP-TV-Z]{26}\n)?data: \{[^\n]*$/)
    return JSON.parse(block.data as string)
  }
  const signals = async (n: number) => {
    const found: Signal[] = []
    for (let i = 0; i < n; i++) {
      const next = await signal()
      if (next === undefined) throw new Error(`the stream ended after ${i} of ${n} signals`)
      found.push(next)
    }
    return found
  }
  return { response, sse, baseline, signal, signals }
}

/** Every live subscription but `baseline` is gone, and no stream is left open. */
const expectReleased = (t: TestApp, baseline: number) =>
  eventually(() => {
    expect(t.app.signals.activeSubscriptions()).toBe(baseline)
    expect(t.app.streams.size).toBe(0)
  })

describe('listenConversation', () => {
  describe('REST: the signals, with the echo bot answering', () => {
    const t = useTestApp()
    const users = useC1(t, { others: ['bob'] })
    const botId = () => t.tenant!.botId

    it('answers 200 text/event-stream of comments and unnamed data messages only, never a named event', async () => {
      const { response, sse, signals } = await listen(t, users.alice.key, 'c1')
      expect(response.headers.get('content-type')?.split(';')[0]).toBe('text/event-stream')
      expect(t.app.streams.size).toBe(1)
      await t.message(users.alice.key, 'c1')
      await signals(3) // alice's message, the bot joining, the bot's echo
      for (const { text } of sse.blocks) for (const line of text.split('\n')) expect(line).toMatch(/^(:|data: |id: )/)
      await sse.cancel()
    })

    it.each([
      ['with metadata', { type: 'text', text: 'hello', extra: true }, { trace: 'x1' }],
      ['without metadata, leaving it out', { type: 'image', imageUrl: 'https://pics.test/1.png' }, undefined],
    ])('message_created: the message %s and isBot, for the user message and the bot answer, after the bot joins', async (_what, payload, metadata) => {
      const { sse, signals } = await listen(t, users.alice.key, 'c1')
      const message = await t.message(users.alice.key, 'c1', payload, metadata)
      const [mine, joined, echo] = await signals(3)
      expect(mine).toStrictEqual({
        type: 'message_created',
        data: { id: message.id, createdAt: iso, payload, userId: 'alice', conversationId: 'c1', ...(metadata && { metadata }), isBot: false },
      })
      expect(mine?.data).toEqual({ ...message, isBot: false })
      expect(joined).toEqual({ type: 'participant_added', data: { conversationId: 'c1', participantId: botId() } })
      expect(echo).toStrictEqual({
        type: 'message_created',
        data: { id: expect.any(String), createdAt: iso, payload, userId: botId(), conversationId: 'c1', ...(metadata && { metadata }), isBot: true },
      })
      expect(echo?.data.id).not.toBe(message.id)
      await sse.cancel()
    })

    it('event_created: the event with its id and isBot, for the user event and the bot answer', async () => {
      const { sse, signals } = await listen(t, users.alice.key, 'c1')
      const event = await t.event(users.alice.key, 'c1', { type: 'typing', on: true })
      const [mine, joined, echo] = await signals(3)
      expect(mine).toStrictEqual({
        type: 'event_created',
        data: { id: event.id, createdAt: iso, payload: { type: 'typing', on: true }, conversationId: 'c1', userId: 'alice', isBot: false },
      })
      expect(mine?.data).toEqual({ ...event, isBot: false })
      expect(joined).toEqual({ type: 'participant_added', data: { conversationId: 'c1', participantId: botId() } })
      expect(echo).toStrictEqual({
        type: 'event_created',
        data: { id: expect.any(String), createdAt: iso, payload: { type: 'typing', on: true }, conversationId: 'c1', userId: botId(), isBot: true },
      })
      await sse.cancel()
    })

    it('message_deleted: the id, conversation and author of the deleted message', async () => {
      await t.chat('POST', '/conversations/c1/participants', { key: users.alice.key, body: { userId: 'bob' } })
      const { sse, signals, signal } = await listen(t, users.alice.key, 'c1')
      const message = await t.message(users.bob.key, 'c1', { type: 'text', text: 'oops' })
      // bob's message, the bot joining, the bot's echo: read them first so that the order is known.
      expect((await signals(3)).map((s) => s.type)).toEqual(['message_created', 'participant_added', 'message_created'])
      expect((await t.chat('DELETE', `/messages/${message.id}`, { key: users.bob.key })).status).toBe(200)
      expect(await signal()).toEqual({ type: 'message_deleted', data: { id: message.id, conversationId: 'c1', userId: 'bob' } })
      await sse.cancel()
    })

    it('participant_added and participant_removed: the conversation and the participant, once each', async () => {
      const { sse, signals } = await listen(t, users.alice.key, 'c1')
      await t.chat('POST', '/conversations/c1/participants', { key: users.alice.key, body: { userId: 'bob' } })
      // Adding a participant again changes nothing and says nothing.
      await t.chat('POST', '/conversations/c1/participants', { key: users.alice.key, body: { userId: 'bob' } })
      await t.chat('DELETE', '/conversations/c1/participants/bob', { key: users.alice.key })
      expect(await signals(2)).toEqual([
        { type: 'participant_added', data: { conversationId: 'c1', participantId: 'bob' } },
        { type: 'participant_removed', data: { conversationId: 'c1', participantId: 'bob' } },
      ])
      await sse.cancel()
    })

    it('sends the signals of its own conversation only, to every listener of it', async () => {
      await t.conversation(users.alice.key, 'c2')
      await t.chat('POST', '/conversations/c1/participants', { key: users.alice.key, body: { userId: 'bob' } })
      const listeners = [await listen(t, users.alice.key, 'c1'), await listen(t, users.bob.key, 'c1')]
      await t.chat('POST', '/conversations/c2/participants', { key: users.alice.key, body: { userId: 'bob' } })
      const message = await t.message(users.bob.key, 'c1', { type: 'text', text: 'both' })
      for (const { sse, signal } of listeners) {
        expect(await signal()).toEqual({ type: 'message_created', data: { ...message, isBot: false } })
        await sse.cancel()
      }
    })
  })

  describe('REST: when the stream ends', () => {
    const t = useTestApp({ handlers: {} })
    const users = useC1(t, { members: ['bob', 'carol'] })

    it.each([
      ['removed by the owner', () => users.alice],
      ['leaving', () => users.bob],
    ])('ends after the listener is %s, with its own participant_removed last', async (_how, remover) => {
      const { baseline, signal } = await listen(t, users.bob.key, 'c1')
      await t.chat('DELETE', '/conversations/c1/participants/bob', { key: remover().key })
      expect(await signal()).toEqual({ type: 'participant_removed', data: { conversationId: 'c1', participantId: 'bob' } })
      expect(await signal()).toBeUndefined()
      await expectReleased(t, baseline)
    })

    it('goes on when another participant is removed, or deletes itself', async () => {
      const { sse, signal } = await listen(t, users.bob.key, 'c1')
      await t.chat('DELETE', '/conversations/c1/participants/carol', { key: users.alice.key })
      expect(await signal()).toEqual({ type: 'participant_removed', data: { conversationId: 'c1', participantId: 'carol' } })
      await t.chat('POST', '/conversations/c1/participants', { key: users.alice.key, body: { userId: 'carol' } })
      await signal()
      await t.chat('DELETE', '/users/me', { key: users.carol.key })
      expect(await signal()).toEqual({ type: 'participant_removed', data: { conversationId: 'c1', participantId: 'carol' } })
      const message = await t.message(users.alice.key, 'c1', { type: 'text', text: 'still here' })
      expect(await signal()).toEqual({ type: 'message_created', data: { ...message, isBot: false } })
      expect(t.app.streams.size).toBe(1)
      await sse.cancel()
    })

    it.each([
      ['the conversation is deleted', () => t.chat('DELETE', '/conversations/c1', { key: users.alice.key })],
      ['its owner deletes itself', () => t.chat('DELETE', '/users/me', { key: users.alice.key })],
      ['the app closes', () => t.app.close()],
    ])('ends every listener when %s', async (_when, end) => {
      const baseline = t.app.signals.activeSubscriptions()
      const first = await listen(t, users.alice.key, 'c1')
      const second = await listen(t, users.bob.key, 'c1')
      expect(t.app.streams.size).toBe(2)
      await end()
      expect(await first.signal()).toBeUndefined()
      expect(await second.signal()).toBeUndefined()
      // Closing the app also ends the bot runtime's own subscription.
      await eventually(() => {
        expect(t.app.streams.size).toBe(0)
        expect(t.app.signals.activeSubscriptions()).toBeLessThanOrEqual(baseline)
      })
    })

    it('unsubscribes when the reader cancels, leaving the other listeners be', async () => {
      const baseline = t.app.signals.activeSubscriptions()
      const staying = await listen(t, users.alice.key, 'c1')
      const leaving = await listen(t, users.alice.key, 'c1')
      await t.message(users.alice.key, 'c1', { type: 'text', text: 'one' })
      await leaving.signals(1)
      await leaving.sse.cancel()
      await eventually(() => {
        expect(t.app.signals.activeSubscriptions()).toBe(baseline + 1)
        expect(t.app.streams.size).toBe(1)
      })
      await staying.signals(1)
      const message = await t.message(users.alice.key, 'c1', { type: 'text', text: 'two' })
      expect(await staying.signal()).toEqual({ type: 'message_created', data: { ...message, isBot: false } })
      await staying.sse.cancel()
      await expectReleased(t, baseline)
    })

    it('unsubscribes when the request is aborted', async () => {
      const baseline = t.app.signals.activeSubscriptions()
      const controller = new AbortController()
      const response = await t.app.fetch(new Request(listenUrl('c1'), { headers: { 'x-user-key': users.alice.key }, signal: controller.signal }))
      expect(response.status).toBe(200)
      await eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline + 1))
      controller.abort()
      await expectReleased(t, baseline)
    })
  })

  describe('REST: who may listen', () => {
    const t = useTestApp({ handlers: {} })

    describeAccess(t, 'conversationSignals', { REST: (key, id: string) => t.chat('GET', `/conversations/${id}/listen`, { key }) }, ({ conversationId }) => [
      conversationId,
    ])

    it('answers a participant who has left 404 ResourceNotFound, as for no such conversation', async () => {
      const alice = await t.user('alice')
      const bob = await t.user('bob')
      await t.conversation(alice.key, 'c1', ['bob'])
      await t.chat('DELETE', '/conversations/c1/participants/bob', { key: bob.key })
      const res = await t.chat('GET', '/conversations/c1/listen', { key: bob.key })
      expect({ status: res.status, type: res.body.type }).toEqual({ status: 404, type: 'ResourceNotFound' })
      expect(t.app.streams.size).toBe(0)
    })
  })

  describe('official client', () => {
    const t = useTestApp()
    const client = useOfficialClient(t)
    const connectAll = async () => {
      const [alice, bob] = await client.inConversation('c1', 'alice', 'bob')
      return { alice, bob }
    }

    it('opens for a participant, holding one subscription and one stream on the server while connected', async () => {
      const { alice } = await connectAll()
      const baseline = t.app.signals.activeSubscriptions()
      const { listener } = await client.listen(alice, 'c1')
      expect(listener.status).toBe('connected')
      await eventually(() => {
        expect(t.app.signals.activeSubscriptions()).toBe(baseline + 1)
        expect(t.app.streams.size).toBe(1)
      })
    })

    it('answers a user who does not participate and a conversation that does not exist alike (404)', async () => {
      const { alice } = await connectAll()
      const mallory = await client.connect('mallory')
      await expect(mallory.listenConversation({ id: 'c1' })).rejects.toMatchObject({ type: 'error', status: 404 })
      await expect(alice.listenConversation({ id: 'nope' })).rejects.toMatchObject({ type: 'error', status: 404 })
      expect(t.app.streams.size).toBe(0)
    })

    it('hears exactly the data messages the stream sends, parsed as the five signals', async () => {
      const { alice } = await connectAll()
      const carol = await client.connect('carol')
      const hears = await client.listen(alice, 'c1')
      const raw = await fetch(`${client.apiUrl}/conversations/c1/listen`, { headers: { 'x-user-key': alice.user.key, accept: 'text/event-stream' } })
      expect(raw.headers.get('content-type')).toMatch(/^text\/event-stream/)
      const sse = new SseReader(raw.body!)
      await eventually(() => expect(t.app.streams.size).toBe(2))

      await alice.addParticipant({ conversationId: 'c1', userId: 'carol' })
      const { message } = await alice.createMessage({ conversationId: 'c1', payload: { type: 'text', text: 'hi' }, metadata: { a: 1 } })
      // The bot answers asynchronously: its join and reply come before alice's event once they have been heard.
      await eventually(() => expect(hears.received).toHaveLength(4))
      await alice.createEvent({ conversationId: 'c1', payload: { kind: 'custom' } })
      await eventually(() => expect(hears.received).toHaveLength(6))
      await alice.deleteMessage({ id: message.id })
      await carol.removeParticipant({ conversationId: 'c1', userId: 'carol' })
      await eventually(() => expect(hears.received).toHaveLength(8))
      const sent = () => sse.blocks.filter((block) => block.data !== undefined && block.data !== PING).map((block) => JSON.parse(block.data as string))
      await eventually(() => expect(sent()).toHaveLength(8))

      expect(hears.received.map((r) => r.type)).toEqual([
        'participant_added',
        'message_created',
        'participant_added',
        'message_created',
        'event_created',
        'event_created',
        'message_deleted',
        'participant_removed',
      ])
      expect(sent()).toEqual(hears.received)
      expect(hears.received[1]).toEqual({ type: 'message_created', data: { ...message, isBot: false } })
      expect(hears.unknown).toEqual([])
      expect(hears.errors).toEqual([])
      await sse.cancel()
    })

    it.each([
      ['is removed', 'alice'],
      ['leaves', 'bob'],
    ])('a listener who %s hears its own participant_removed, then disconnects, and hears nothing more', async (_how, remover) => {
      const { alice, bob } = await connectAll()
      const baseline = t.app.signals.activeSubscriptions()
      const aliceHears = await client.listen(alice, 'c1')
      const bobHears = await client.listen(bob, 'c1')
      await eventually(() => expect(t.app.streams.size).toBe(2))

      await (remover === 'alice' ? alice : bob).removeParticipant({ conversationId: 'c1', userId: 'bob' })
      await eventually(() => {
        expect(bobHears.listener.status).toBe('disconnected')
        expect(bobHears.errors).toHaveLength(1)
      })
      expect(bobHears.received).toEqual([{ type: 'participant_removed', data: { conversationId: 'c1', participantId: 'bob' } }])
      await eventually(() => {
        expect(t.app.streams.size).toBe(1)
        expect(t.app.signals.activeSubscriptions()).toBe(baseline + 1)
      })

      await alice.createEvent({ conversationId: 'c1', payload: { after: 'bob left' } })
      // alice's event, the bot joining and its echo.
      await eventually(() =>
        expect(aliceHears.received.map((r) => r.type)).toEqual(['participant_removed', 'event_created', 'participant_added', 'event_created']),
      )
      expect(bobHears.received).toHaveLength(1)
      expect(aliceHears.listener.status).toBe('connected')
    })

    it('disconnecting leaves nothing on the server, and connecting again hears the signals that follow', async () => {
      const { alice } = await connectAll()
      await client.connect('carol')
      const baseline = t.app.signals.activeSubscriptions()
      const hears = await client.listen(alice, 'c1')
      await eventually(() => expect(t.app.streams.size).toBe(1))
      await hears.listener.disconnect()
      expect(hears.listener.status).toBe('disconnected')
      await eventually(() => {
        expect(t.app.signals.activeSubscriptions()).toBe(baseline)
        expect(t.app.streams.size).toBe(0)
      })
      expect(hears.errors).toEqual([])

      await hears.listener.connect()
      expect(hears.listener.status).toBe('connected')
      await alice.addParticipant({ conversationId: 'c1', userId: 'carol' })
      await eventually(() => expect(hears.received).toEqual([{ type: 'participant_added', data: { conversationId: 'c1', participantId: 'carol' } }]))
    })

    it.each([
      ['the conversation is deleted', true],
      ['the server shuts down', false],
    ])('ends the listener of every participant when %s, leaving nothing on the server', async (_when, deleted) => {
      const { alice, bob } = await connectAll()
      const baseline = t.app.signals.activeSubscriptions()
      const listeners = [await client.listen(alice, 'c1'), await client.listen(bob, 'c1')]
      await eventually(() => expect(t.app.streams.size).toBe(2))
      if (deleted) await alice.deleteConversation({ id: 'c1' })
      else await t.app.close()
      await eventually(() => {
        for (const { listener } of listeners) expect(listener.status).toBe('disconnected')
        expect(t.app.streams.size).toBe(0)
        // Shutting down also ends the bot runtime's own subscription.
        expect(t.app.signals.activeSubscriptions()).toBe(deleted ? baseline : 0)
      })
      for (const hears of listeners) {
        expect(hears.unknown).toEqual([])
        expect(hears.received).toEqual([])
        if (!deleted) expect(hears.errors).toEqual([expect.any(Error)])
      }
    })
  })
})
