import { describe, expect, it } from 'vitest'
import { errorBody } from '../helpers/app.ts'
import { type Bounded, useBounded } from '../helpers/bounded.ts'
import { encodingsOf } from '../helpers/key-encodings.ts'
import { connectedSocket, firstChunk, openStream } from '../helpers/sockets.ts'

// Live subscriptions are capped per user and per conversation (SUBSCRIPTIONS_PER_USER,
// SUBSCRIPTIONS_PER_CONVERSATION), whatever their transport; these caps, and those on WebSockets and
// event streams per user (WS_SOCKETS_PER_USER, SSE_STREAMS_PER_USER), count the verified user a key
// names: every key of a user, and each of the four encodings an HS256 key has, count as one.

const SIGNALS = 'subscription ($id: String!) { conversationSignals(conversationId: $id) { __typename } }'

/** alice with c1 and c2, bob in c1. */
async function actors(b: Bounded) {
  const alice = await b.t.user('alice')
  const bob = await b.t.user('bob')
  await b.t.conversation(alice.key, 'c1', ['bob'])
  await b.t.conversation(alice.key, 'c2')
  return { alice, bob }
}

/** A socket (acknowledged) on which subscriptions are made one by one: each answer, once it is live or refused. */
async function subscriber(b: Bounded, key: string) {
  const socket = await connectedSocket(b.wsUrl, key)
  await socket.acked
  let ids = 0
  return {
    socket,
    /** Subscribes to a conversation's signals: 'live' once the hub holds it, or the error it was refused with. */
    async subscribe(conversationId: string): Promise<'live' | unknown> {
      const id = String(++ids)
      const live = b.t.app.signals.activeSubscriptions()
      socket.send({ id, type: 'subscribe', payload: { query: SIGNALS, variables: { id: conversationId } } })
      for (;;) {
        const refused = socket.messages.find((m) => m.id === id && m.type === 'next')
        if (refused) return refused.payload.errors[0]
        if (b.t.app.signals.activeSubscriptions() > live) return 'live'
        await new Promise((resolve) => setImmediate(resolve))
      }
    },
  }
}

const refusal = (message: RegExp) => ({
  message: expect.stringMatching(message),
  locations: [expect.any(Object)],
  path: ['conversationSignals'],
  extensions: { type: 'RateLimited', status: 429, requestId: expect.any(String) },
})

describe('subscriptions per user (SUBSCRIPTIONS_PER_USER)', () => {
  const b = useBounded({ subscriptionsPerUser: 3 })

  it('refuses a user its fourth subscription on any transport and conversation, not another user; one ending makes room', async () => {
    const { alice, bob } = await actors(b.current)
    const ws = await subscriber(b.current, alice.key)
    expect([await ws.subscribe('c1'), await ws.subscribe('c2')]).toEqual(['live', 'live'])
    const listening = await openStream(`${b.current.apiUrl}/conversations/c1/listen`, { headers: { 'x-user-key': alice.key } })
    expect(listening.response.statusCode).toBe(200)
    await firstChunk(listening.response)

    expect(await ws.subscribe('c2')).toEqual(refusal(/^too many subscriptions: 3 subscriptions are already open for this user \(SUBSCRIPTIONS_PER_USER\)/))
    const refusedStream = await openStream(`${b.current.apiUrl}/conversations/c2/listen`, { headers: { 'x-user-key': alice.key } })
    expect(refusedStream.response.statusCode).toBe(429)
    expect(refusedStream.response.headers['retry-after']).toBe('5')
    expect(JSON.parse(await refusedStream.text())).toEqual({ ...errorBody(429, 'RateLimited'), message: expect.stringMatching(/SUBSCRIPTIONS_PER_USER/) })

    const bobs = await subscriber(b.current, bob.key)
    expect(await bobs.subscribe('c1')).toBe('live')

    const live = b.current.t.app.signals.activeSubscriptions()
    listening.close()
    while (b.current.t.app.signals.activeSubscriptions() === live) await new Promise((resolve) => setImmediate(resolve))
    expect(await ws.subscribe('c2')).toBe('live')
    ws.socket.ws.close()
    bobs.socket.ws.close()
  })
})

describe('subscriptions per conversation (SUBSCRIPTIONS_PER_CONVERSATION)', () => {
  const b = useBounded({ subscriptionsPerConversation: 3 })

  it("refuses a conversation's fourth subscription, whoever makes it; another conversation is not affected", async () => {
    const { alice, bob } = await actors(b.current)
    const alices = await subscriber(b.current, alice.key)
    const bobs = await subscriber(b.current, bob.key)
    expect([await alices.subscribe('c1'), await alices.subscribe('c1'), await bobs.subscribe('c1')]).toEqual(['live', 'live', 'live'])

    expect(await bobs.subscribe('c1')).toEqual(
      refusal(/^too many subscriptions: 3 subscriptions are already open for this conversation \(SUBSCRIPTIONS_PER_CONVERSATION\)/),
    )
    expect(await alices.subscribe('c1')).toEqual(refusal(/SUBSCRIPTIONS_PER_CONVERSATION/))
    expect(await alices.subscribe('c2')).toBe('live')
    alices.socket.ws.close()
    bobs.socket.ws.close()
  })
})

describe('the four encodings of one key share one cap (default caps)', () => {
  const b = useBounded()

  it('every encoding verifies as the key it spells', async () => {
    const { alice } = await actors(b.current)
    const encodings = encodingsOf(alice.key)
    expect(new Set(encodings).size).toBe(4)
    for (const key of encodings) expect((await b.current.t.chat('GET', '/users/me', { key })).body.user.id).toBe('alice')
  })

  it('WebSockets: 20 for one user over its four encodings, the 21st closed with 4429 (WS_SOCKETS_PER_USER)', async () => {
    const { alice } = await actors(b.current)
    const encodings = encodingsOf(alice.key)
    const sockets = await Promise.all(Array.from({ length: 20 }, (_, i) => connectedSocket(b.current.wsUrl, encodings[i % 4])))
    await Promise.all(sockets.map((socket) => socket.acked))
    for (const key of encodings) {
      const over = await connectedSocket(b.current.wsUrl, key)
      expect(await over.closed).toEqual({
        code: 4429,
        reason: expect.stringMatching(/20 GraphQL WebSockets are already open for this user \(WS_SOCKETS_PER_USER\)/),
      })
    }
    for (const socket of sockets) socket.ws.close()
  })

  it('event streams: 20 for one user over its four encodings, the 21st refused with 429 (SSE_STREAMS_PER_USER)', async () => {
    const { alice } = await actors(b.current)
    const encodings = encodingsOf(alice.key)
    const listen = (key: string) => openStream(`${b.current.apiUrl}/conversations/c1/listen`, { headers: { 'x-user-key': key } })
    const streams = []
    for (let i = 0; i < 20; i++) {
      const stream = await listen(encodings[i % 4] as string)
      expect(stream.response.statusCode).toBe(200)
      await firstChunk(stream.response)
      streams.push(stream)
    }
    const over = await listen(encodings[3] as string)
    expect(over.response.statusCode).toBe(429)
    expect(JSON.parse(await over.text()).message).toMatch(/20 event streams are already open for this user \(SSE_STREAMS_PER_USER\)/)
    for (const stream of streams) stream.close()
  })

  it('subscriptions: 50 for one user over sockets of its four encodings, the 51st refused (SUBSCRIPTIONS_PER_USER)', async () => {
    const { alice } = await actors(b.current)
    const sockets = await Promise.all(encodingsOf(alice.key).map((key) => subscriber(b.current, key)))
    for (let i = 0; i < 50; i++) expect(await sockets[i % 4]?.subscribe(i % 2 ? 'c1' : 'c2')).toBe('live')
    expect(await sockets[2]?.subscribe('c1')).toEqual(refusal(/50 subscriptions are already open for this user \(SUBSCRIPTIONS_PER_USER\)/))
    for (const { socket } of sockets) socket.ws.close()
  })
})
