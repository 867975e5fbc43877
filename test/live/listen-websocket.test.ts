import { Writable } from 'node:stream'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { errorBody, iso, WEBHOOK_ID } from '../helpers/app.ts'
import { type Bounded, startBounded, useBounded } from '../helpers/bounded.ts'
import { rules } from '../helpers/limited.ts'
import { firstMatching, openStream, firstChunk } from '../helpers/sockets.ts'
import { eventually } from '../helpers/wait.ts'

// listenConversation over WebSocket — ws://…/{webhookId}/conversations/{id}/listen?x-user-key=… — as
// @botpress/chat 1.x's `listenConversation({ id, protocol: 'websocket' })` opens it (its
// eventsource.ts: the http URL made ws, the key encodeURIComponent'd into the query, since browsers
// set no header on a WebSocket): each text frame one signal as JSON, the same bytes as the SSE
// stream's `data:`, and the integration's keep-alive, the text `ping`. Everything before the upgrade
// is the SSE request's: its refusals are HTTP answers with the error body, and no upgrade.

/** The URL @botpress/chat 1.x's eventsource.ts makes of the listen URL and the key. */
const listenUrl = (b: Bounded, conversationId: string, key?: string) =>
  `${b.apiUrl.replace(/^http/, 'ws')}/conversations/${conversationId}/listen${key === undefined ? '' : `?x-user-key=${encodeURIComponent(key)}`}`

interface Refusal {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: any
}

/** A listener as the 1.x client is one: every frame kept as text; opened, or refused with the HTTP answer given instead of the upgrade. */
function listen(url: string) {
  const ws = new WebSocket(url)
  const frames: string[] = []
  const waiters = new Set<() => void>()
  let isClosed = false
  ws.on('message', (data, binary) => {
    expect(binary).toBe(false)
    frames.push(String(data))
    for (const wake of waiters) wake()
  })
  ws.on('error', () => {})
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => {
      isClosed = true
      for (const wake of waiters) wake()
      resolve({ code, reason: String(reason) })
    }),
  )
  const opened = new Promise<Refusal | undefined>((resolve, reject) => {
    ws.once('open', () => resolve(undefined))
    ws.once('unexpected-response', (_request, response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        text += chunk
      })
      response.once('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text ? JSON.parse(text) : undefined }))
    })
    ws.once('error', reject)
  })
  /** The signals heard, the keep-alive left out, each parsed. */
  const signals = () => frames.filter((frame) => frame !== 'ping').map((frame) => JSON.parse(frame))
  return {
    ws,
    frames,
    closed,
    opened,
    signals,
    /** The first signal (heard already, or to come) of `type`. */
    signal: async (type: string, where: (data: any) => boolean = () => true) => {
      const frame = await firstMatching(
        frames,
        waiters,
        () => isClosed,
        (f) => f !== 'ping' && JSON.parse(f).type === type && where(JSON.parse(f).data),
        'the socket closed',
      )
      return JSON.parse(frame)
    },
    frame: (matches: (frame: string) => boolean) => firstMatching(frames, waiters, () => isClosed, matches, 'the socket closed'),
  }
}

/** A listener opened (the server has subscribed it: nothing published from then on is missed). */
async function listening(b: Bounded, conversationId: string, key: string) {
  const before = b.t.app.signals.activeSubscriptions()
  const listener = listen(listenUrl(b, conversationId, key))
  expect(await listener.opened).toBeUndefined()
  await eventually(() => expect(b.t.app.signals.activeSubscriptions()).toBe(before + 1))
  return listener
}

/** A refusal before the upgrade, in the contract's error body, its id the request id. */
function expectRefusal(refusal: Refusal | undefined, status: number, type: string, message?: RegExp) {
  expect(refusal).toBeDefined()
  const { status: got, headers, body } = refusal as Refusal
  expect({ status: got, type: body?.type }).toEqual({ status, type })
  expect(headers['content-type']).toMatch(/^application\/json/)
  expect(body).toEqual({ ...errorBody(status, type), message: message ? expect.stringMatching(message) : expect.any(String) })
  expect(body.id).toBe(`err_${headers['x-request-id']}`)
}

/** alice in c1; bob, who is in no conversation. */
async function actors(b: Bounded) {
  const alice = await b.t.user('alice')
  const bob = await b.t.user('bob')
  await b.t.conversation(alice.key, 'c1')
  return { alice, bob }
}

describe('listenConversation over WebSocket', () => {
  describe('the signals', () => {
    const b = useBounded()

    it('sends each signal as one text frame of JSON {type, data}, the same bytes as the SSE stream sends in its `data:`, a persisted one with its SSE `id:` first', async () => {
      const { alice, bob } = await actors(b.current)
      const sse = await openStream(`${b.current.apiUrl}/conversations/c1/listen`, { headers: { 'x-user-key': alice.key } })
      await firstChunk(sse.response)
      const ws = await listening(b.current, 'c1', alice.key)
      await eventually(() => expect(b.current.t.app.signals.activeSubscriptions()).toBe(2))

      const message = await b.current.t.message(alice.key, 'c1', { type: 'text', text: 'over the socket' }, { trace: 'x1' })
      await b.current.t.chat('POST', `/conversations/c1/participants`, { key: alice.key, body: { userId: 'bob' } })
      await b.current.t.chat('DELETE', `/messages/${message.id}`, { key: alice.key })
      await ws.signal('message_deleted')

      const id = expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/)
      expect(ws.signals()).toStrictEqual([
        {
          id,
          type: 'message_created',
          data: {
            id: message.id,
            createdAt: iso,
            payload: { type: 'text', text: 'over the socket' },
            metadata: { trace: 'x1' },
            userId: 'alice',
            conversationId: 'c1',
            isBot: false,
          },
        },
        { id, type: 'participant_added', data: { conversationId: 'c1', participantId: bob.id } },
        { id, type: 'message_deleted', data: { id: message.id, conversationId: 'c1', userId: 'alice' } },
      ])
      sse.close()
      const text = sse.text()
      void text.catch(() => {})
      ws.ws.close()
      await ws.closed
    })

    it('sends the same frame text as the SSE data line, byte for byte, with the SSE id as its first property', async () => {
      const { alice } = await actors(b.current)
      const sse = await openStream(`${b.current.apiUrl}/conversations/c1/listen`, { headers: { 'x-user-key': alice.key } })
      const sseText: string[] = []
      sse.response.setEncoding('utf8').on('data', (chunk: string) => sseText.push(chunk))
      const ws = await listening(b.current, 'c1', alice.key)
      await eventually(() => expect(b.current.t.app.signals.activeSubscriptions()).toBe(2))
      await b.current.t.message(alice.key, 'c1', { type: 'text', text: 'é ✓ "quoted"' })
      const frame = await ws.frame((f) => f.includes('"type":"message_created"'))
      const { id } = JSON.parse(frame)
      const idFirst = `{"id":${JSON.stringify(id)},`
      expect(frame.startsWith(idFirst)).toBe(true)
      await eventually(() => expect(sseText.join('')).toContain(`id: ${id}\ndata: {${frame.slice(idFirst.length)}\n\n`))
      sse.close()
      ws.ws.close()
    })

    it('is a 1.x client key: a key with characters that need encoding in a query still opens', async () => {
      const { alice } = await actors(b.current)
      // A user key is a JWT (base64url: nothing to encode), but the client encodes it: a `+` or `=` must come back as sent.
      expect(encodeURIComponent(alice.key)).toBe(alice.key)
      const ws = await listening(b.current, 'c1', alice.key)
      ws.ws.close()
      await ws.closed
    })
  })

  describe('the keep-alive', () => {
    const b = useBounded({}, { sseTiming: { commentIntervalMs: 10, pingIntervalMs: 30 } })

    it('sends the text `ping` (as the integration does) every SSE ping interval, and nothing for the SSE comments', async () => {
      const { alice } = await actors(b.current)
      const ws = await listening(b.current, 'c1', alice.key)
      await eventually(() => expect(ws.frames.filter((f) => f === 'ping').length).toBeGreaterThanOrEqual(3))
      const message = await b.current.t.message(alice.key, 'c1', { type: 'text', text: 'between pings' })
      expect((await ws.signal('message_created')).data.id).toBe(message.id)
      for (const frame of ws.frames) expect(frame === 'ping' || /^\{"(id|type)":/.test(frame)).toBe(true)
      ws.ws.close()
      await ws.closed
    })
  })

  describe('who may listen: refused before the upgrade, as SSE refuses', () => {
    const b = useBounded()

    it('answers no key 401 Unauthorized', async () => {
      await actors(b.current)
      expectRefusal(await listen(listenUrl(b.current, 'c1')).opened, 401, 'Unauthorized')
    })

    it('answers a bad key 401 Unauthorized, and opens no subscription', async () => {
      const { alice } = await actors(b.current)
      expectRefusal(await listen(listenUrl(b.current, 'c1', `${alice.key}x`)).opened, 401, 'Unauthorized')
      expectRefusal(await listen(listenUrl(b.current, 'c1', 'not-a-key')).opened, 401, 'Unauthorized')
      expect(b.current.t.app.signals.activeSubscriptions()).toBe(0)
      expect(b.current.t.app.streams.size).toBe(0)
    })

    it('answers a user who does not participate and a conversation that does not exist alike: 404 ResourceNotFound', async () => {
      const { alice, bob } = await actors(b.current)
      expectRefusal(await listen(listenUrl(b.current, 'c1', bob.key)).opened, 404, 'ResourceNotFound')
      expectRefusal(await listen(listenUrl(b.current, 'nope', alice.key)).opened, 404, 'ResourceNotFound')
      expect(b.current.t.app.signals.activeSubscriptions()).toBe(0)
    })

    it('answers an unknown webhook id 404', async () => {
      const { alice } = await actors(b.current)
      const refusal = await listen(listenUrl(b.current, 'c1', alice.key).replace(WEBHOOK_ID, 'no-such-webhook')).opened
      expect(refusal?.status).toBe(404)
    })

    it('ignores what a client sends, and closes one that sends a frame over 4 KiB with 1009', async () => {
      const { alice } = await actors(b.current)
      const ws = await listening(b.current, 'c1', alice.key)
      ws.ws.send('hello')
      const message = await b.current.t.message(alice.key, 'c1', { type: 'text', text: 'still here' })
      expect((await ws.signal('message_created')).data.id).toBe(message.id)
      ws.ws.send('x'.repeat(5000))
      expect((await ws.closed).code).toBe(1009)
      await eventually(() => expect(b.current.t.app.signals.activeSubscriptions()).toBe(0))
    })
  })

  describe('when the stream ends', () => {
    const b = useBounded()

    it('closes with 1000 after participant_removed when the listener is removed, and lets go of its subscription and stream', async () => {
      const { alice, bob } = await actors(b.current)
      await b.current.t.chat('POST', `/conversations/c1/participants`, { key: alice.key, body: { userId: 'bob' } })
      const ws = await listening(b.current, 'c1', bob.key)
      await b.current.t.chat('DELETE', `/conversations/c1/participants/bob`, { key: alice.key })
      expect(await ws.closed).toEqual({ code: 1000, reason: 'the stream has ended' })
      expect(ws.signals()).toEqual([{ id: expect.any(String), type: 'participant_removed', data: { conversationId: 'c1', participantId: 'bob' } }])
      await eventually(() => {
        expect(b.current.t.app.signals.activeSubscriptions()).toBe(0)
        expect(b.current.t.app.streams.size).toBe(0)
      })
    })

    it('lets go of its subscription and stream when the client closes', async () => {
      const { alice } = await actors(b.current)
      const ws = await listening(b.current, 'c1', alice.key)
      expect(b.current.t.app.streams.size).toBe(1)
      ws.ws.close()
      await ws.closed
      await eventually(() => {
        expect(b.current.t.app.signals.activeSubscriptions()).toBe(0)
        expect(b.current.t.app.streams.size).toBe(0)
        expect(b.current.t.app.openSockets()).toBe(0)
      })
    })

    it('lets go of them when the connection is cut', async () => {
      const { alice } = await actors(b.current)
      const ws = await listening(b.current, 'c1', alice.key)
      ws.ws.terminate()
      await eventually(() => {
        expect(b.current.t.app.signals.activeSubscriptions()).toBe(0)
        expect(b.current.t.app.streams.size).toBe(0)
      })
    })
  })

  it('closes with 1001 when the server stops', async () => {
    const b = await startBounded()
    try {
      const { alice } = await actors(b)
      const ws = await listening(b, 'c1', alice.key)
      const closing = b.close()
      expect(await ws.closed).toEqual({ code: 1001, reason: 'server shutting down' })
      await closing
    } finally {
      await b.close()
    }
  })

  describe('the caps of event streams (SSE_STREAMS_PER_USER), counted with the SSE streams', () => {
    const b = useBounded({ streamsPerUser: 2, streamsPerAddress: 0 })

    it('refuses a third stream of one user with 429 RateLimited and Retry-After before the upgrade, and frees a slot when one closes', async () => {
      const { alice } = await actors(b.current)
      const sse = await openStream(`${b.current.apiUrl}/conversations/c1/listen`, { headers: { 'x-user-key': alice.key } })
      await firstChunk(sse.response)
      const ws = await listening(b.current, 'c1', alice.key)
      const refused = await listen(listenUrl(b.current, 'c1', alice.key)).opened
      expectRefusal(refused, 429, 'RateLimited', /2 event streams are already open for this user \(SSE_STREAMS_PER_USER\)/)
      expect(refused?.headers['retry-after']).toBe('5')
      expect(b.current.t.app.signals.activeSubscriptions()).toBe(2)

      ws.ws.close()
      await ws.closed
      await eventually(async () => {
        const again = listen(listenUrl(b.current, 'c1', alice.key))
        expect(await again.opened).toBeUndefined()
        again.ws.close()
      })
      sse.close()
    })
  })

  describe('a client that stops reading (SEND_QUEUE_MAX_BYTES)', { timeout: 180_000 }, () => {
    const b = useBounded({ messageMaxBytes: 1024 * 1024 })

    it('is closed with 1013 once over the mark, after what was queued, in order; the server holds at most the mark for it', async () => {
      const { t } = b.current
      const { alice } = await actors(b.current)
      const slow = await listening(b.current, 'c1', alice.key)
      const reader = await listening(b.current, 'c1', alice.key)
      slow.ws.pause()
      const { stats } = t.app.sendQueues
      const posted: string[] = []
      while (stats.dropped === 0 && posted.length < 100) {
        const message = await t.message(alice.key, 'c1', { type: 'text', text: 'x'.repeat(900_000) })
        posted.push(message.id)
        await reader.signal('message_created', (data) => data.id === message.id)
      }
      expect(stats.dropped).toBe(1)
      expect(stats.peak).toBeLessThanOrEqual(t.app.sendQueues.limit)
      slow.ws.resume()
      expect(await slow.closed).toEqual({ code: 1013, reason: expect.stringContaining('SEND_QUEUE_MAX_BYTES') })
      const heard = slow.signals().map((s) => s.data.id)
      expect(heard.length).toBeGreaterThan(0)
      expect(heard).toEqual(posted.slice(0, heard.length))
      // The reader kept up and heard every one; the dropped one let go of its subscription.
      expect(reader.signals().map((s) => s.data.id)).toEqual(posted)
      await eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(1))
      reader.ws.close()
    })
  })

  describe('the rate limits of HTTP', () => {
    const b = useBounded({}, { rateLimits: rules({ failedAuth: { points: 2, seconds: 60 }, streams: { points: 1, seconds: 60 } }) })

    it('counts a bad key against the address (failedAuth): past the limit, 429 before the upgrade, even with a good key', async () => {
      const { alice } = await actors(b.current)
      expectRefusal(await listen(listenUrl(b.current, 'c1', 'not-a-key')).opened, 401, 'Unauthorized')
      expectRefusal(await listen(listenUrl(b.current, 'c1', 'not-a-key')).opened, 401, 'Unauthorized')
      expectRefusal(await listen(listenUrl(b.current, 'c1', 'not-a-key')).opened, 429, 'RateLimited', /failedAuth/)
      expectRefusal(await listen(listenUrl(b.current, 'c1', alice.key)).opened, 429, 'RateLimited', /failedAuth/)
      expect(b.current.t.app.signals.activeSubscriptions()).toBe(0)
    })

    it('counts an opened stream against the user (streams): the second of the window is 429 before the upgrade', async () => {
      const { alice } = await actors(b.current)
      const first = await listening(b.current, 'c1', alice.key)
      expectRefusal(await listen(listenUrl(b.current, 'c1', alice.key)).opened, 429, 'RateLimited', /streams/)
      expect(b.current.t.app.signals.activeSubscriptions()).toBe(1)
      first.ws.close()
      await first.closed
    })
  })

  describe('the logs', () => {
    const raw: string[] = []
    const log = pino(
      { level: 'debug' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          raw.push(chunk.toString('utf8'))
          done()
        },
      }),
    )
    const b = useBounded({}, { log })

    it('never carry the key or the query: the access line names the route pattern and the credential kind', async () => {
      const { alice } = await actors(b.current)
      const ws = await listening(b.current, 'c1', alice.key)
      expectRefusal(await listen(listenUrl(b.current, 'c1', `${alice.key}x`)).opened, 401, 'Unauthorized')
      ws.ws.close()
      await ws.closed
      await eventually(() => expect(raw.join('')).toContain('"stream":"closed"'))
      const lines = raw
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
      const listens = lines.filter((line) => line.route === '/:webhookId/conversations/:id/listen')
      expect(listens.map((line) => [line.status, line.credential, line.stream])).toEqual(
        expect.arrayContaining([
          [200, 'user-key', 'open'],
          [200, 'user-key', 'closed'],
          [401, 'user-key', undefined],
        ]),
      )
      const all = raw.join('')
      expect(all).not.toContain(alice.key)
      expect(all).not.toContain(alice.key.split('.')[2])
      expect(all).not.toContain('x-user-key=')
    })
  })
})
