import { describe, expect, it } from 'vitest'
import { defaultLimits, withoutPerKeyCaps } from '../../src/config.ts'
import { type Bounded, useBounded } from '../helpers/bounded.ts'
import { connectedSocket } from '../helpers/sockets.ts'

// GraphQL over WebSocket is bounded: a frame over the chat body limit (1 MB) closes the socket with
// 1009 before anything of it is read; operations under way per socket (WS_SUBSCRIPTIONS_PER_SOCKET)
// over the cap are refused with an error for that operation; sockets per user (the verified user a key names) and per client
// address (WS_SOCKETS_PER_USER, WS_SOCKETS_PER_ADDRESS) over the cap are closed with 4429.

const SIGNALS = 'subscription ($id: String!) { conversationSignals(conversationId: $id) { __typename } }'

async function alice(b: Bounded) {
  const actor = await b.t.user('alice')
  await b.t.conversation(actor.key, 'c1')
  return actor
}

const conversationIds = async (b: Bounded) => (await b.t.query<{ id: string }>('select id from conversations order by id')).map((row) => row.id)

describe('WebSocket frames over the chat body limit (1 MB)', () => {
  const b = useBounded()

  it('close the socket with 1009 and nothing of the operation runs', async () => {
    const { key } = await alice(b.current)
    const socket = await connectedSocket(b.current.wsUrl, key)
    await socket.acked
    const padding = `#${'x'.repeat(1024 * 1024)}\n`
    socket.send({ id: '1', type: 'subscribe', payload: { query: `${padding}mutation { createConversation(input: { id: "big" }) { conversation { id } } }` } })
    expect((await socket.closed).code).toBe(1009)
    expect(socket.messages.filter((m) => m.type !== 'connection_ack')).toEqual([])
    expect(await conversationIds(b.current)).toEqual(['c1'])
  })
})

describe('operations per socket (WS_SUBSCRIPTIONS_PER_SOCKET)', () => {
  const b = useBounded({ subscriptionsPerSocket: 3 })

  it('refuses the fourth subscription with an error for it alone; completing one makes room', async () => {
    const { key } = await alice(b.current)
    const socket = await connectedSocket(b.current.wsUrl, key)
    await socket.acked
    const subscribe = (id: string) => socket.send({ id, type: 'subscribe', payload: { query: SIGNALS, variables: { id: 'c1' } } })
    for (const id of ['1', '2', '3']) subscribe(id)
    const live = () => b.current.t.app.signals.activeSubscriptions()
    // Each subscription is live once the signal hub holds it.
    while (live() < 3) await new Promise((resolve) => setImmediate(resolve))

    subscribe('4')
    const refused = await socket.next((m) => m.id === '4')
    expect(refused).toEqual({
      id: '4',
      type: 'error',
      payload: [
        {
          message: 'too many operations on this WebSocket: 3 are under way (WS_SUBSCRIPTIONS_PER_SOCKET); complete one first',
          extensions: { type: 'RateLimited', status: 429, requestId: expect.any(String) },
        },
      ],
    })
    expect(live()).toBe(3)

    socket.send({ id: '1', type: 'complete' })
    while (live() > 2) await new Promise((resolve) => setImmediate(resolve))
    subscribe('5')
    while (live() < 3) await new Promise((resolve) => setImmediate(resolve))
    // A message reaches the three live subscriptions, and the socket is still open.
    await b.current.t.message(key, 'c1')
    for (const id of ['2', '3', '5']) await socket.next((m) => m.id === id && m.type === 'next')
    expect(socket.ws.readyState).toBe(socket.ws.OPEN)
    socket.ws.close()
  })
})

describe('sockets per user (WS_SOCKETS_PER_USER)', () => {
  const b = useBounded({ socketsPerUser: 2, socketsPerAddress: 0 })

  it('closes a third socket of one key with 4429, takes a second key, and frees a slot when a socket closes', async () => {
    const { key } = await alice(b.current)
    const bob = await b.current.t.user('bob')
    const first = await connectedSocket(b.current.wsUrl, key)
    const second = await connectedSocket(b.current.wsUrl, key)
    await Promise.all([first.acked, second.acked])

    const third = await connectedSocket(b.current.wsUrl, key)
    await expect(third.acked).rejects.toThrow()
    expect(await third.closed).toEqual({ code: 4429, reason: expect.stringMatching(/2 GraphQL WebSockets are already open for this user/) })

    const bobs = await connectedSocket(b.current.wsUrl, bob.key)
    await bobs.acked

    first.ws.close()
    await first.closed
    // The server hears of the close a moment after the client: try again until the slot is free.
    for (;;) {
      const again = await connectedSocket(b.current.wsUrl, key)
      const acked = await again.acked.then(
        () => true,
        () => false,
      )
      if (acked) {
        again.ws.close()
        break
      }
    }
    second.ws.close()
    bobs.ws.close()
  })
})

describe('sockets per client address (WS_SOCKETS_PER_ADDRESS)', () => {
  const b = useBounded({ socketsPerUser: 0, socketsPerAddress: 2 })

  it('closes a third socket from one address, with or without a key, and takes one from a second address', async () => {
    const { key } = await alice(b.current)
    const first = await connectedSocket(b.current.wsUrl, key)
    const second = await connectedSocket(b.current.wsUrl, undefined)
    await Promise.all([first.acked, second.acked])

    const third = await connectedSocket(b.current.wsUrl, undefined)
    expect(await third.closed).toEqual({ code: 4429, reason: expect.stringMatching(/from this address/) })

    const elsewhere = await connectedSocket(b.current.wsUrl, key, { localAddress: '127.0.0.2' })
    await elsewhere.acked
    for (const socket of [first, second, elsewhere]) socket.ws.close()
  })
})

describe('WebSockets with the caps off (0, as RATE_LIMITS=off sets them)', () => {
  const b = useBounded(withoutPerKeyCaps(defaultLimits), { rateLimits: 'off' })

  it('open as many sockets and subscriptions as asked', async () => {
    const { key } = await alice(b.current)
    const sockets = await Promise.all(Array.from({ length: 25 }, () => connectedSocket(b.current.wsUrl, key)))
    await Promise.all(sockets.map((s) => s.acked))
    const [socket] = sockets
    for (let i = 0; i < 120; i++) socket?.send({ id: String(i), type: 'subscribe', payload: { query: SIGNALS, variables: { id: 'c1' } } })
    while (b.current.t.app.signals.activeSubscriptions() < 120) await new Promise((resolve) => setImmediate(resolve))
    expect(socket?.messages.filter((m) => m.type === 'error')).toEqual([])
    for (const s of sockets) s.ws.close()
  })
})
