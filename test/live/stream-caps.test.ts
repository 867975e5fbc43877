import { describe, expect, it } from 'vitest'
import { errorBody } from '../helpers/app.ts'
import { type Bounded, useBounded } from '../helpers/bounded.ts'
import { firstChunk, openStream } from '../helpers/sockets.ts'

// Event streams held open are capped per user (the verified user a key names) and per client address (SSE_STREAMS_PER_USER,
// SSE_STREAMS_PER_ADDRESS): one over a cap is 429 RateLimited with Retry-After, and nothing of it stays open.

const SIGNALS = 'subscription ($id: String!) { conversationSignals(conversationId: $id) { __typename } }'

/** alice and bob, each with a conversation of their own. */
async function actors(b: Bounded) {
  const alice = await b.t.user('alice')
  const bob = await b.t.user('bob')
  await b.t.conversation(alice.key, 'c1')
  await b.t.conversation(bob.key, 'c2')
  return { alice, bob }
}

/** An open listen stream (200, its first bytes read), or the refusal's status, headers and body. */
async function listen(b: Bounded, key: string, conversationId: string, localAddress?: string) {
  const stream = await openStream(`${b.apiUrl}/conversations/${conversationId}/listen`, { headers: { 'x-user-key': key }, localAddress })
  if (stream.response.statusCode === 200) await firstChunk(stream.response)
  return stream
}

/** A refusal of the stream cap in the contract's error body. */
async function expectCapRefusal(stream: Awaited<ReturnType<typeof listen>>, message: RegExp) {
  expect(stream.response.statusCode).toBe(429)
  expect(stream.response.headers['retry-after']).toBe('5')
  expect(stream.response.headers['content-type']).toMatch(/^application\/json/)
  const body = JSON.parse(await stream.text())
  expect(body).toEqual({ ...errorBody(429, 'RateLimited'), message: expect.stringMatching(message) })
  expect(body.id).toBe(`err_${stream.response.headers['x-request-id']}`)
}

/** Retries opening until the server has let go of a closed stream's slot (its close reaches the server asynchronously). */
async function listenOnceFreed(b: Bounded, key: string, conversationId: string) {
  for (;;) {
    const stream = await listen(b, key, conversationId)
    if (stream.response.statusCode === 200) return stream
    await stream.text()
  }
}

describe('event streams per user (SSE_STREAMS_PER_USER)', () => {
  const b = useBounded({ streamsPerUser: 2, streamsPerAddress: 0 })

  it('refuses a third listen stream of one key with 429, leaves a second key unaffected, and frees a slot when a stream closes', async () => {
    const { alice, bob } = await actors(b.current)
    const first = await listen(b.current, alice.key, 'c1')
    const second = await listen(b.current, alice.key, 'c1')
    expect([first.response.statusCode, second.response.statusCode]).toEqual([200, 200])
    const signalsBefore = b.current.t.app.signals.activeSubscriptions()

    await expectCapRefusal(await listen(b.current, alice.key, 'c1'), /2 event streams are already open for this user \(SSE_STREAMS_PER_USER\)/)
    // The refused stream's subscription was ended, not left running.
    expect(b.current.t.app.signals.activeSubscriptions()).toBe(signalsBefore)

    const bobs = await listen(b.current, bob.key, 'c2')
    expect(bobs.response.statusCode).toBe(200)

    first.close()
    const again = await listenOnceFreed(b.current, alice.key, 'c1')
    expect(again.response.statusCode).toBe(200)
    for (const stream of [second, bobs, again]) stream.close()
  })

  it('counts graphql-sse streams with the listen streams, and refuses one in the GraphQL error body', async () => {
    const { alice } = await actors(b.current)
    const graphqlSse = () =>
      openStream(`${b.current.apiUrl}/graphql/stream`, {
        method: 'POST',
        headers: { 'x-user-key': alice.key, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: SIGNALS, variables: { id: 'c1' } }),
      })
    const listening = await listen(b.current, alice.key, 'c1')
    const streaming = await graphqlSse()
    expect([listening.response.statusCode, streaming.response.statusCode]).toEqual([200, 200])
    expect(streaming.response.headers['content-type']).toMatch(/^text\/event-stream/)

    const refused = await graphqlSse()
    expect(refused.response.statusCode).toBe(429)
    expect(refused.response.headers['retry-after']).toBe('5')
    const requestId = refused.response.headers['x-request-id']
    expect(JSON.parse(await refused.text())).toEqual({
      errors: [{ message: expect.stringMatching(/SSE_STREAMS_PER_USER/), extensions: { type: 'RateLimited', status: 429, requestId } }],
    })
    listening.close()
    streaming.close()
  })
})

describe('event streams per client address (SSE_STREAMS_PER_ADDRESS)', () => {
  const b = useBounded({ streamsPerUser: 0, streamsPerAddress: 2 })

  it('refuses a third stream from one address whatever the key, and takes one from a second address', async () => {
    const { alice, bob } = await actors(b.current)
    const first = await listen(b.current, alice.key, 'c1')
    const second = await listen(b.current, bob.key, 'c2')
    expect([first.response.statusCode, second.response.statusCode]).toEqual([200, 200])

    await expectCapRefusal(await listen(b.current, bob.key, 'c2'), /2 event streams are already open from this address \(SSE_STREAMS_PER_ADDRESS\)/)

    const elsewhere = await listen(b.current, bob.key, 'c2', '127.0.0.2')
    expect(elsewhere.response.statusCode).toBe(200)
    for (const stream of [first, second, elsewhere]) stream.close()
  })

  it("counts the web chat's /initialize streams, which need no key", async () => {
    const initialize = (localAddress?: string) => openStream(`${b.current.apiUrl}/initialize`, { localAddress })
    const first = await initialize()
    const second = await initialize()
    expect([first.response.statusCode, second.response.statusCode]).toEqual([200, 200])
    await expectCapRefusal(await initialize(), /SSE_STREAMS_PER_ADDRESS/)
    const elsewhere = await initialize('127.0.0.2')
    expect(elsewhere.response.statusCode).toBe(200)
    for (const stream of [first, second, elsewhere]) stream.close()
  })
})

describe('event streams with the caps off (0, as RATE_LIMITS=off sets them)', () => {
  const b = useBounded({ streamsPerUser: 0, streamsPerAddress: 0 })

  it('opens as many streams as asked', async () => {
    const { alice } = await actors(b.current)
    const streams = []
    for (let i = 0; i < 25; i++) streams.push(await listen(b.current, alice.key, 'c1'))
    expect(streams.map((s) => s.response.statusCode)).toEqual(Array(25).fill(200))
    for (const stream of streams) stream.close()
  })
})

describe('in-process requests', () => {
  const b = useBounded({ streamsPerUser: 1, streamsPerAddress: 1 })

  it('are not counted: they have no connection', async () => {
    const { alice } = await actors(b.current)
    const responses = await Promise.all(
      [1, 2].map(() => b.current.t.app.fetch(new Request(`http://confab.test/test-webhook/conversations/c1/listen`, { headers: { 'x-user-key': alice.key } }))),
    )
    expect(responses.map((r) => r.status)).toEqual([200, 200])
    for (const response of responses) await response.body?.cancel()
  })
})
