import { describe, expect, it } from 'vitest'
import { BASE, useTestApp, WEBHOOK_ID } from '../helpers/app.ts'
import { PING, useOfficialClient } from '../helpers/listening.ts'
import { SseReader } from '../helpers/sse.ts'
import { eventually } from '../helpers/wait.ts'

// Between signals, the listen stream sends SSE comments (for proxies and the official client's Node
// transport, which drops a stream silent for ~5 s) and ping data messages (for the official
// client's watchdog, which gives up after 60 s without one).

describe('listenConversation heartbeats', () => {
  describe('with the timing given to the app', () => {
    const t = useTestApp({ handlers: {}, sseTiming: { commentIntervalMs: 10, pingIntervalMs: 25 } })

    it('sends comment lines and ping data messages between signals, and the signals still come through', async () => {
      const alice = await t.user('alice')
      await t.conversation(alice.key, 'c1')
      const response = await t.send('GET', `${BASE}/${WEBHOOK_ID}/conversations/c1/listen`, { key: alice.key })
      const sse = new SseReader(response.body!)
      const seen = new Set<string>()
      while (!(seen.has(': keep-alive') && seen.has(`data: ${PING}`))) {
        const block = await sse.block()
        if (block === undefined) throw new Error('the stream ended')
        seen.add(block.text)
      }
      for (const text of seen) expect([': connected', ': keep-alive', `data: ${PING}`]).toContain(text)
      const message = await t.message(alice.key, 'c1', { type: 'text', text: 'between beats' })
      const signal = await sse.message((block) => block.data === PING)
      expect(JSON.parse(signal?.data as string)).toEqual({ type: 'message_created', data: { ...message, isBot: false } })
      await sse.cancel()
    })
  })

  describe('with the default timing', () => {
    const t = useTestApp({ handlers: {} })
    const client = useOfficialClient(t)

    // The point is the real clock: the client's watchdog and its transport's idle timeout run on it.
    it('keeps an idle official-client listener connected through 70 s of silence', { timeout: 120_000 }, async () => {
      const alice = await client.connect('alice')
      await client.connect('bob')
      await alice.createConversation({ id: 'c1' })
      const hears = await client.listen(alice, 'c1')

      await new Promise((resolve) => setTimeout(resolve, 70_000))
      expect(hears.listener.status).toBe('connected')
      expect(hears.errors).toEqual([])

      await alice.addParticipant({ conversationId: 'c1', userId: 'bob' })
      await eventually(() => expect(hears.received).toEqual([{ type: 'participant_added', data: { conversationId: 'c1', participantId: 'bob' } }]))
      expect(hears.unknown).toEqual([])
    })
  })
})
