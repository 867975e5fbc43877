import { Client } from '@botpress/client'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { adminClient } from '../bots/sdk-bot.ts'
import { errorBody, useC1, useTestApp } from '../helpers/app.ts'
import { setClock } from '../helpers/clock.ts'
import { type Served, serve } from '../helpers/listening.ts'
import { firstMatching } from '../helpers/sockets.ts'
import { type SseBlock, SseReader } from '../helpers/sse.ts'
import { subscribersOf } from '../helpers/subscribers.ts'
import { eventually } from '../helpers/wait.ts'

// Resuming a listen: every persisted signal (message created, updated, deleted; event created;
// participant added, removed) carries its place in the conversation's log, the SSE `id:`; a listener
// that reconnects with it (Last-Event-ID, or `since` on the WebSocket /listen and on the
// conversationSignals subscription) gets what it missed, in order and once, then the live ones. A
// cursor that cannot be resumed from is told so (`resync`), never a silent gap. Transient signals
// (typing, message streams) carry no id and are never replayed. Through the real HTTP server.

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/
const ping = (block: SseBlock) => block.data === JSON.stringify({ type: 'ping', data: {} })

describe('resuming listenConversation', () => {
  const t = useTestApp()
  const users = useC1(t, { members: ['bob'], others: ['eve'] })
  let s: Served

  beforeEach(async () => {
    // No echo: each test's signals are its own.
    await t.app.bots.stop()
    s = await serve(t)
  })
  afterEach(() => s.close())

  /** An SSE listener of c1 over HTTP, resuming from `lastEventId` when given. */
  async function listen(key: string, lastEventId?: string, conversationId = 'c1') {
    const headers: Record<string, string> = { 'x-user-key': key }
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId
    const baseline = t.app.signals.activeSubscriptions()
    const response = await fetch(`${s.apiUrl}/conversations/${conversationId}/listen`, { headers })
    if (response.status !== 200) return { response, next: undefined as never, close: async () => {} }
    const sse = new SseReader(response.body!)
    await eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline + 1))
    /** The next signal with its SSE id, pings skipped. */
    const next = async () => {
      const block = await sse.message(ping)
      if (!block) throw new Error('the stream ended')
      return { id: block.id, ...(JSON.parse(block.data as string) as { type: string; data: any }) }
    }
    /** Ends the stream, once its subscription is gone (the next listener's count starts from there). */
    const close = async () => {
      await sse.cancel()
      await eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline))
    }
    return { response, next, close }
  }

  /** A graphql-ws subscriber, once subscribed. */
  async function subscribe(query: string, variables: object) {
    const baseline = t.app.signals.activeSubscriptions()
    const heard = await subscribersOf(s.apiUrl).ws(users.alice.key, query, variables)
    await eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline + 1))
    return heard
  }

  const post = (text: string, key = users.alice.key) => t.message(key, 'c1', { type: 'text', text })

  describe('REST: SSE ids and Last-Event-ID', () => {
    it('persisted signals carry an opaque id, increasing; typing carries none', async () => {
      const l = await listen(users.alice.key)
      const first = await post('one')
      expect((await t.chat('POST', '/conversations/c1/typing', { key: users.bob.key })).status).toBe(200)
      const second = await post('two')
      const a = await l.next()
      const typing = await l.next()
      const b = await l.next()
      expect(a).toMatchObject({ type: 'message_created', data: { id: first.id } })
      expect(a.id).toMatch(ULID)
      expect(typing).toMatchObject({ type: 'typing_started', id: undefined })
      expect(b).toMatchObject({ type: 'message_created', data: { id: second.id } })
      expect(b.id! > a.id!).toBe(true)
      await l.close()
    })

    it('a new message is its own entry of the log: its id is its SSE id, and no second row is written for it', async () => {
      const l = await listen(users.alice.key)
      const posted = await post('one')
      expect(await l.next()).toMatchObject({ id: posted.id, type: 'message_created', data: { id: posted.id } })
      expect(await t.count("select count(*) as n from conversation_signals where type = 'message_created'")).toBe(0)
      await l.close()
    })

    it('a message whose id a bot chose (getOrCreateMessage) is logged, and replayed once, in order', async () => {
      const l = await listen(users.alice.key)
      await post('heard')
      const { id: cursor } = await l.next()
      await l.close()
      const before = await post('before')
      const { value: botKey } = await adminClient(s.baseUrl).createBotApiKey({ botId: t.tenant.botId, note: 'resume' })
      const bot = new Client({ apiUrl: s.baseUrl, token: botKey, botId: t.tenant.botId, retry: { retries: 0 } })
      await bot.getOrCreateMessage({ conversationId: 'c1', userId: t.tenant.botId, type: 'text', payload: { text: 'chosen' }, tags: { id: 'greeting-1' } })
      const after = await post('after')
      expect(await t.count("select count(*) as n from conversation_signals where type = 'message_created'")).toBe(1)

      const again = await listen(users.alice.key, cursor)
      const replayed = [await again.next(), await again.next(), await again.next(), await again.next()]
      expect(replayed.map(({ type, data }) => [type, data.id ?? data.participantId])).toEqual([
        ['message_created', before.id],
        // The bot joins the conversation to post in it.
        ['participant_added', t.tenant.botId],
        ['message_created', 'greeting-1'],
        ['message_created', after.id],
      ])
      expect(replayed[2]).toMatchObject({ data: { isBot: true, payload: { type: 'text', text: 'chosen' } } })
      for (let i = 1; i < replayed.length; i++) expect(replayed[i]!.id! > replayed[i - 1]!.id!).toBe(true)
      const live = await post('live')
      expect(await again.next()).toMatchObject({ type: 'message_created', data: { id: live.id } })
      await again.close()
    })

    it('a reconnect with Last-Event-ID gets what it missed in order (created, updated, deleted, participants), no transient ones, then live', async () => {
      const l = await listen(users.alice.key)
      await post('heard')
      const { id: lastHeard } = await l.next()
      await l.close()

      const kept = await post('missed 1')
      const gone = await post('missed 2', users.bob.key)
      expect((await t.chat('POST', '/conversations/c1/typing', { key: users.bob.key })).status).toBe(200)
      expect((await t.chat('PUT', `/messages/${kept.id}`, { key: users.alice.key, body: { payload: { type: 'text', text: 'edited' } } })).status).toBe(200)
      expect((await t.chat('DELETE', `/messages/${gone.id}`, { key: users.bob.key })).status).toBe(200)
      expect((await t.chat('POST', '/conversations/c1/participants', { key: users.alice.key, body: { userId: 'eve' } })).status).toBe(200)
      expect((await t.chat('DELETE', '/conversations/c1/participants/bob', { key: users.alice.key })).status).toBe(200)

      const again = await listen(users.alice.key, lastHeard)
      const replayed = [await again.next(), await again.next(), await again.next(), await again.next(), await again.next()]
      expect(replayed.map(({ type, data }) => [type, data.id ?? data.participantId])).toEqual([
        ['message_created', kept.id],
        // The deleted message's own signals are forgotten with it: only its deletion is told.
        ['message_updated', kept.id],
        ['message_deleted', gone.id],
        ['participant_added', 'eve'],
        ['participant_removed', 'bob'],
      ])
      expect(replayed[1]?.data.payload).toEqual({ type: 'text', text: 'edited' })
      expect(replayed[2]?.data).toEqual({ id: gone.id, conversationId: 'c1', userId: 'bob' })
      for (let i = 1; i < replayed.length; i++) expect(replayed[i]!.id! > replayed[i - 1]!.id!).toBe(true)
      const live = await post('live')
      expect(await again.next()).toMatchObject({ type: 'message_created', data: { id: live.id } })
      await again.close()
    })

    it('no duplicates and no gap across the seam: messages posted while reconnecting come exactly once, in log order', async () => {
      const l = await listen(users.alice.key)
      await post('before')
      const { id: cursor } = await l.next()
      await l.close()
      const early = [await post('e1'), await post('e2')]
      // Posted while the listener subscribes and reads the log: each is in the replay, the live stream, or both.
      const [again, ...during] = await Promise.all([listen(users.alice.key, cursor), ...Array.from({ length: 10 }, (_, i) => post(`d${i}`))])
      const expected = [...early, ...during].map((m) => m.id)
      const heard: { id?: string; data: any }[] = []
      while (heard.length < expected.length) heard.push(await again.next())
      expect(heard.map((h) => h.data.id).sort()).toEqual([...expected].sort())
      for (let i = 1; i < heard.length; i++) expect(heard[i]!.id! > heard[i - 1]!.id!).toBe(true)
      // Nothing more was told twice: the next signal is the next message.
      const last = await post('after')
      expect(await again.next()).toMatchObject({ data: { id: last.id } })
      await again.close()
    })

    it('a cursor of another conversation, or made up, gets resync (unknown_cursor), then live signals', async () => {
      await t.conversation(users.eve.key, 'c2')
      const theirs = await listen(users.eve.key, undefined, 'c2')
      await t.message(users.eve.key, 'c2')
      const { id: foreign } = await theirs.next()
      await theirs.close()
      for (const cursor of [foreign!, 'not-a-cursor', `${foreign!.slice(0, 10)}${'0'.repeat(16)}`]) {
        const l = await listen(users.alice.key, cursor)
        expect(await l.next()).toEqual({ type: 'resync', data: { conversationId: 'c1', reason: 'unknown_cursor' } })
        const m = await post('live')
        expect(await l.next()).toMatchObject({ type: 'message_created', data: { id: m.id } })
        await l.close()
      }
    })

    it('a cursor older than the log keeps (a day) gets resync (too_old)', async () => {
      setClock('2027-06-01T10:00:00.000Z')
      const l = await listen(users.alice.key)
      await post('long ago')
      const { id: cursor } = await l.next()
      await l.close()
      setClock('2027-06-02T10:00:00.001Z')
      const again = await listen(users.alice.key, cursor)
      expect(await again.next()).toEqual({ type: 'resync', data: { conversationId: 'c1', reason: 'too_old' } })
      await again.close()
    })

    it('the log keeps a day: retention prunes what is older, whatever RETENTION_DAYS says (unset here)', async () => {
      const edit = async (text: string) => {
        const { id } = await post(text)
        expect((await t.chat('PUT', `/messages/${id}`, { key: users.alice.key, body: { payload: { type: 'text', text: `${text}, edited` } } })).status).toBe(
          200,
        )
      }
      setClock('2027-06-01T10:00:00.000Z')
      await edit('old')
      setClock('2027-06-01T22:00:00.000Z')
      await edit('recent')
      const logged = () => t.count("select count(*) as n from conversation_signals where type = 'message_updated'")
      expect(await logged()).toBe(2)
      setClock('2027-06-02T10:00:00.001Z')
      await t.app.retention.runOnce()
      expect(await logged()).toBe(1)
    })

    it('more missed than a replay holds (200) gets resync (too_many)', async () => {
      const l = await listen(users.alice.key)
      await post('cursor')
      const { id: cursor } = await l.next()
      await l.close()
      for (let i = 0; i < 201; i++) await post(`m${i}`)
      const again = await listen(users.alice.key, cursor)
      expect(await again.next()).toEqual({ type: 'resync', data: { conversationId: 'c1', reason: 'too_many' } })
      await again.close()
    })

    it('a stranger with a valid cursor is refused as any listener is (404), and reads nothing', async () => {
      const l = await listen(users.alice.key)
      await post('private')
      const { id: cursor } = await l.next()
      await l.close()
      const refused = await listen(users.eve.key, cursor)
      expect(refused.response.status).toBe(404)
      expect(await refused.response.json()).toEqual(errorBody(404, 'ResourceNotFound'))
    })
  })

  describe('WebSocket /listen: ?since=', () => {
    it('frames of persisted signals carry their id first; since replays what was missed, then live', async () => {
      const l = await listen(users.alice.key)
      await post('heard')
      const { id: cursor } = await l.next()
      await l.close()
      const missed = await post('missed')

      const ws = new WebSocket(`${s.wsUrl}/test-webhook/conversations/c1/listen?x-user-key=${encodeURIComponent(users.alice.key)}&since=${cursor}`)
      const frames: any[] = []
      const waiters = new Set<() => void>()
      ws.on('message', (data) => {
        if (String(data) !== 'ping') frames.push(JSON.parse(String(data)))
        for (const wake of waiters) wake()
      })
      let closed = false
      ws.once('close', () => {
        closed = true
      })
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
      const frame = (id: string) =>
        firstMatching(
          frames,
          waiters,
          () => closed,
          (f) => f.data?.id === id,
          'the socket closed',
        )
      const replayed = await frame(missed.id)
      expect(Object.keys(replayed)).toEqual(['id', 'type', 'data'])
      expect(replayed.id).toMatch(ULID)
      expect(replayed.id > (cursor as string)).toBe(true)
      const live = await post('live')
      expect(await frame(live.id)).toMatchObject({ type: 'message_created' })
      expect(frames.map((f) => f.data.id)).toEqual([missed.id, live.id])
      ws.close()
    })
  })

  describe('GraphQL conversationSignals(since:)', () => {
    const RESUMED = /* GraphQL */ `
      subscription ($id: String!, $since: String) {
        conversationSignals(conversationId: $id, since: $since) {
          __typename
          ... on MessageCreatedSignal { signalId message { messageId } }
          ... on TypingStartedSignal { signalId userId }
          ... on ResyncSignal { reason }
        }
      }
    `

    it('signalId is given for persisted signals (null for typing); since replays what was missed, then live', async () => {
      const first = await subscribe(RESUMED, { id: 'c1' })
      const heard = await post('heard')
      const { data } = await first.next((m) => m.data.conversationSignals.message?.messageId === heard.id)
      const cursor = data.conversationSignals.signalId
      expect(cursor).toMatch(ULID)
      expect((await t.chat('POST', '/conversations/c1/typing', { key: users.bob.key })).status).toBe(200)
      expect((await first.next((m) => m.data.conversationSignals.__typename === 'TypingStartedSignal')).data.conversationSignals.signalId).toBeNull()
      await first.close()

      const missed = await post('missed')
      const resumed = await subscribe(RESUMED, { id: 'c1', since: cursor })
      await resumed.next((m) => m.data.conversationSignals.message?.messageId === missed.id)
      const live = await post('live')
      await resumed.next((m) => m.data.conversationSignals.message?.messageId === live.id)
      expect(resumed.messages.map((m) => m.data.conversationSignals.message?.messageId)).toEqual([missed.id, live.id])
      await resumed.close()
    })

    it('an unknown cursor: ResyncSignal first', async () => {
      const resumed = await subscribe(RESUMED, { id: 'c1', since: 'nope' })
      expect(await resumed.next(() => true)).toEqual({ data: { conversationSignals: { __typename: 'ResyncSignal', reason: 'unknown_cursor' } } })
      await resumed.close()
    })
  })
})
