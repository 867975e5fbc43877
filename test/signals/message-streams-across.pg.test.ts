import { Client as ChatClient } from '@botpress/chat'
import { Client } from '@botpress/client'
import { afterEach, describe, expect, it } from 'vitest'
import { twoInstances } from '../helpers/instances.ts'
import { PING } from '../helpers/listening.ts'
import { SseReader } from '../helpers/sse.ts'
import { eventually } from '../helpers/wait.ts'
import { adminClient } from '../bots/sdk-bot.ts'

/*
 * A bot's message stream across two instances (two apps behind real HTTP servers, one PostgreSQL
 * database, one Redis): deltas published on A reach a listener on B in order, B knows the stream
 * (an abort sent to B is taken), and the final message posted on A completes it on B before its
 * message_created. Always runs on PostgreSQL (TEST_DATABASE_URL, or 127.0.0.1:5432) and Redis
 * (TEST_REDIS_URL, or 127.0.0.1:6379).
 */
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

interface Signal {
  type: string
  data: Record<string, any>
}

describe('message streams across instances (Redis)', () => {
  it('a listener on B hears A’s deltas in order, B takes the abort of A’s stream, and A’s final message completes a stream on B before message_created', async () => {
    const { a, b, servedA, servedB } = await twoInstances(cleanups)
    const botId = a.tenant!.botId
    const { value: key } = await adminClient(servedA.baseUrl).createBotApiKey({ botId, note: 'across' })
    const onA = new Client({ apiUrl: servedA.baseUrl, token: key, botId, retry: { retries: 0 } })
    const onB = new Client({ apiUrl: servedB.baseUrl, token: key, botId, retry: { retries: 0 } })
    const alice = await ChatClient.connect({ apiUrl: servedB.apiUrl, userId: 'alice' })
    await alice.createConversation({ id: 'across' })

    const before = b.app.signals.activeSubscriptions()
    const response = await fetch(`${servedB.apiUrl}/conversations/across/listen`, { headers: { 'x-user-key': alice.user.key } })
    const sse = new SseReader(response.body!)
    cleanups.push(() => sse.cancel())
    await eventually(() => expect(b.app.signals.activeSubscriptions()).toBe(before + 1))
    const heard: Signal[] = []
    void (async () => {
      for (let block = await sse.message((x) => x.data === PING); block; block = await sse.message((x) => x.data === PING))
        heard.push(JSON.parse(block.data as string))
    })()

    const publish = (client: Client, signal: Record<string, unknown>) =>
      client.callAction({ type: 'chat:publishMessageStream', input: { conversationId: 'across', signal } })
    const delta = (streamId: string, sequence: number, text: string) => ({
      type: 'delta',
      streamId,
      createdAt: '2026-07-01T10:00:00.000Z',
      sequence,
      delta: text,
    })

    for (const [sequence, text] of ['one', ' two', ' three'].entries()) await publish(onA, delta('first', sequence, text))
    await eventually(() => expect(heard.map((s) => s.data.delta)).toEqual(['one', ' two', ' three']))
    expect(heard.map((s) => [s.type, s.data.sequence])).toEqual([
      ['message_stream_delta', 0],
      ['message_stream_delta', 1],
      ['message_stream_delta', 2],
    ])
    // B heard A's stream: it takes its abort, and refuses a delta of it out of order.
    await expect(publish(onB, delta('first', 1, 'late'))).rejects.toMatchObject({ code: 400, type: 'InvalidPayload' })
    await publish(onB, { type: 'abort', streamId: 'first' })
    await eventually(() => expect(heard.at(-1)).toStrictEqual({ type: 'message_stream_abort', data: { streamId: 'first', conversationId: 'across' } }))

    heard.length = 0
    await publish(onB, delta('second', 0, 'Done'))
    const { message } = await onA.createMessage({
      conversationId: 'across',
      userId: botId,
      tags: {},
      type: 'text',
      payload: { text: 'Done', metadata: { streamId: 'second' } },
    })
    await eventually(() => expect(heard.map((s) => s.type)).toContain('message_created'))
    expect(heard.filter((s) => s.type !== 'participant_added').map((s) => [s.type, s.data.streamId ?? s.data.id])).toEqual([
      ['message_stream_delta', 'second'],
      ['message_stream_complete', 'second'],
      ['message_created', message.id],
    ])
    // The completion reached B too: the stream is over there as well.
    await expect(publish(onB, delta('second', 1, 'more'))).rejects.toMatchObject({ code: 400, type: 'InvalidPayload' })
  }, 60_000)
})
