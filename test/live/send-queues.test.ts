import { describe, expect, it } from 'vitest'
import { defaultLimits } from '../../src/config.ts'
import { type Bounded, useBounded } from '../helpers/bounded.ts'
import { connectedSocket, firstChunk, openStream } from '../helpers/sockets.ts'
import { subscribersOf } from '../helpers/subscribers.ts'
import { eventually } from '../helpers/wait.ts'

// Every live connection sends through a queue whose high-water mark is SEND_QUEUE_MAX_BYTES (1 MiB
// by default): a client that stops reading is dropped once a message would bring what waits for it
// over the mark — a WebSocket closed with 1013, an event stream ended after a last `dropped` event —
// and the server never holds more than the mark for it, while every other listener is served.

const HIGH_WATER_MARK = defaultLimits.sendQueueBytes
const SIGNALS = 'subscription ($id: String!) { conversationSignals(conversationId: $id) { ... on MessageCreatedSignal { message { messageId rawPayload } } } }'
/** Under the mark: a message the size of this always goes to a reader that keeps up. */
const big = { type: 'text', text: 'x'.repeat(900_000) }

const messageIdOf = (message: any): string | undefined =>
  message?.data?.conversationSignals?.message?.messageId ?? (message?.type === 'message_created' ? message.data?.id : undefined)

/**
 * Posts large messages to c1 until a connection has been dropped, each once a reading listener has
 * it (its fan-out is done), and checks that one was, with at most the mark ever held for a
 * connection, and that its subscription was let go; the ids posted. A cap on the count keeps a broken
 * server from looping.
 */
async function postUntilDropped(b: Bounded, key: string) {
  const { stats } = b.t.app.sendQueues
  const reader = await subscribersOf(b.apiUrl).ws(key, SIGNALS, { id: 'c1' })
  await eventually(() => expect(b.t.app.signals.activeSubscriptions()).toBe(2))
  const posted: string[] = []
  while (stats.dropped === 0 && posted.length < 100) {
    const message = await b.t.message(key, 'c1', big)
    posted.push(message.id)
    await reader.next((m) => messageIdOf(m) === message.id)
  }
  // The reader kept up, and heard every one.
  expect(reader.messages.map(messageIdOf)).toEqual(posted)
  await reader.close()
  expect(stats.dropped).toBe(1)
  expect(stats.peak).toBeLessThanOrEqual(HIGH_WATER_MARK)
  // The dropped one's subscription let go of its signals; the server goes on.
  await eventually(() => expect(b.t.app.signals.activeSubscriptions()).toBe(0))
  return posted
}

// Several megabytes are posted before the kernel's buffers fill and the queue grows: minutes on a busy machine.
describe('send queues (SEND_QUEUE_MAX_BYTES)', { timeout: 180_000 }, () => {
  // No WebSocket pings: the paused client could not answer them, and would be terminated instead.
  // Messages of 900 KB (over the 128 KiB default cap), as many as the queue needs to fill.
  const b = useBounded({ messageMaxBytes: 1024 * 1024 }, { webSocketKeepAliveMs: 0 })

  it('drops a WebSocket that stops reading with close code 1013, holding at most the mark for it', async () => {
    const { t, wsUrl } = b.current
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const slow = await connectedSocket(wsUrl, alice.key)
    await slow.acked
    slow.send({ id: 'slow', type: 'subscribe', payload: { query: SIGNALS, variables: { id: 'c1' } } })
    await eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(1))
    slow.ws.pause()

    const posted = await postUntilDropped(b.current, alice.key)
    slow.ws.resume()
    expect(await slow.closed).toEqual({ code: 1013, reason: expect.stringContaining('SEND_QUEUE_MAX_BYTES') })
    // What had been queued before the drop comes first, in order, then the close.
    const heard = slow.messages.filter((m) => m.type === 'next').map((m) => m.payload.data.conversationSignals.message.messageId)
    expect(heard.length).toBeGreaterThan(0)
    expect(heard).toEqual(posted.slice(0, heard.length))
  })

  it.each([
    [
      'GET …/conversations/{id}/listen (written by its stream)',
      (apiUrl: string, key: string) => openStream(`${apiUrl}/conversations/c1/listen`, { headers: { 'x-user-key': key } }),
    ],
    [
      'graphql-sse on …/graphql/stream (its body relayed)',
      (apiUrl: string, key: string) =>
        openStream(`${apiUrl}/graphql/stream`, {
          method: 'POST',
          headers: { 'x-user-key': key, 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify({ query: SIGNALS, variables: { id: 'c1' } }),
        }),
    ],
  ])('ends an event stream that stops reading after a last `dropped` event, holding at most the mark for it: %s', async (_name, open) => {
    const { t, apiUrl } = b.current
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const slow = await open(apiUrl, alice.key)
    expect(slow.response.statusCode).toBe(200)
    await firstChunk(slow.response)
    await eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(1))
    slow.response.pause()

    const posted = await postUntilDropped(b.current, alice.key)
    const read = slow.text()
    slow.response.resume()
    const blocks = (await read).split('\n\n').filter((block) => /^(id|data|event): /.test(block))
    expect(blocks.pop()).toBe(
      'event: dropped\ndata: {"reason":"this client reads too slowly: over 1048576 bytes would be waiting for it (SEND_QUEUE_MAX_BYTES)"}',
    )
    const heard = blocks.flatMap((block) => {
      const data = block.split('\n').find((line) => line.startsWith('data: '))
      const id = data && messageIdOf(JSON.parse(data.slice('data: '.length)))
      return id ? [id] : []
    })
    expect(heard.length).toBeGreaterThan(0)
    expect(heard).toEqual(posted.slice(0, heard.length))
  })
})
