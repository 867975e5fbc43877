import { Client as ChatClient } from '@botpress/chat'
import { Client } from '@botpress/client'
import { createClient as createWsClient } from 'graphql-ws'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { defaultLimits } from '../../src/config.ts'
import { iso } from '../helpers/app.ts'
import { setClock } from '../helpers/clock.ts'
import { type Listening, PING, startListening } from '../helpers/listening.ts'
import { SseReader } from '../helpers/sse.ts'
import { eventually } from '../helpers/wait.ts'
import { adminClient } from '../bots/sdk-bot.ts'

// chat:publishMessageStream (Botpress' chat integration 1.x) through @botpress/client's runtime
// client on the real server: a bot's deltas reach the conversation's listeners (the Chat API's SSE
// stream on the wire, and the conversationSignals subscription) in order, its final message
// (metadata.streamId) completes the stream just before its message_created, an abort gives it up;
// bad input is refused with the documented error body. Its limits are set low here to be reached.

interface Signal {
  type: string
  data: Record<string, any>
}

let confab: Listening
let botId: string
let key: string
let bot: Client
let alice: Awaited<ReturnType<typeof ChatClient.connect>>
let otherBotConversation: string
let conversations = 0
const cleanups: (() => unknown)[] = []

beforeAll(async () => {
  confab = await startListening({
    handlers: {},
    caps: { ...defaultLimits, messageStreamDeltaMaxBytes: 64, messageStreamDeltasPerSecond: 20, messageStreamsPerConversation: 2 },
  })
  botId = confab.botId
  const admin = adminClient(confab.baseUrl)
  ;({ value: key } = await admin.createBotApiKey({ botId, note: 'stream test' }))
  bot = new Client({ apiUrl: confab.baseUrl, token: key, botId, retry: { retries: 0 } })
  alice = await ChatClient.connect({ apiUrl: confab.apiUrl, userId: 'alice' })
  const { bot: other } = await admin.createBot({ name: 'other' })
  const { bot: otherBot } = (await admin.getBot({ id: other.id })) as unknown as { bot: { integrations: { chat: { webhookId: string } } } }
  const bob = await ChatClient.connect({ apiUrl: `${confab.baseUrl}/${otherBot.integrations.chat.webhookId}`, userId: 'bob' })
  otherBotConversation = (await bob.createConversation({ id: 'theirs' })).conversation.id
}, 60_000)

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

afterAll(async () => {
  await confab?.close()
})

/** A new conversation of alice's (the bot posts into it as the integration's bot). */
async function conversation(): Promise<string> {
  const id = `s${++conversations}`
  await alice.createConversation({ id })
  return id
}

/** What alice hears over the Chat API's SSE stream, read off the wire (pings left out). */
async function listenOverSse(conversationId: string): Promise<Signal[]> {
  const before = confab.t.app.signals.activeSubscriptions()
  const response = await fetch(`${confab.apiUrl}/conversations/${conversationId}/listen`, { headers: { 'x-user-key': alice.user.key } })
  expect(response.status).toBe(200)
  const sse = new SseReader(response.body!)
  cleanups.push(() => sse.cancel())
  await eventually(() => expect(confab.t.app.signals.activeSubscriptions()).toBe(before + 1))
  const received: Signal[] = []
  void (async () => {
    for (let block = await sse.message((b) => b.data === PING); block; block = await sse.message((b) => b.data === PING)) {
      received.push(JSON.parse(block.data as string))
    }
  })()
  return received
}

const SIGNALS = /* GraphQL */ `
  subscription ($id: String!) {
    conversationSignals(conversationId: $id) {
      __typename
      ... on MessageStreamDeltaSignal { type streamId conversationId userId createdAt clientMessageId sequence delta }
      ... on MessageStreamCompleteSignal { type streamId message { messageId userId conversationId rawPayload metadata } }
      ... on MessageStreamAbortSignal { type streamId conversationId }
      ... on MessageCreatedSignal { type isBot message { messageId } }
      ... on MessageUpdatedSignal { type isBot message { messageId rawPayload } }
    }
  }
`

/** What alice hears over the conversationSignals subscription (graphql-ws). */
async function listenOverGraphql(conversationId: string): Promise<any[]> {
  const before = confab.t.app.signals.activeSubscriptions()
  const client = createWsClient({
    url: `${confab.wsUrl}/${confab.apiUrl.split('/').at(-1)}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { 'x-user-key': alice.user.key },
    retryAttempts: 0,
  })
  cleanups.push(() => client.dispose())
  const received: any[] = []
  client.subscribe({ query: SIGNALS, variables: { id: conversationId } }, { next: (result) => void received.push(result), error: () => {}, complete: () => {} })
  await eventually(() => expect(confab.t.app.signals.activeSubscriptions()).toBe(before + 1))
  return received
}

const delta = (conversationId: string, streamId: string, sequence: number, text: string, extra: Record<string, unknown> = {}) =>
  bot.callAction({
    type: 'chat:publishMessageStream',
    input: { conversationId, signal: { type: 'delta', streamId, createdAt: '2026-07-01T10:00:00.000Z', sequence, delta: text, ...extra } },
  })

const abort = (conversationId: string, streamId: string) =>
  bot.callAction({ type: 'chat:publishMessageStream', input: { conversationId, signal: { type: 'abort', streamId } } })

/** The bot's final message of the stream, as an @botpress/sdk bot posts it: the stream id in its metadata. */
const finalMessage = (conversationId: string, streamId: string, text: string) =>
  bot.createMessage({ conversationId, userId: botId, tags: {}, type: 'text', payload: { text, metadata: { streamId } } })

/** A bot API call as raw HTTP: its status and body. */
async function call(body: unknown) {
  const response = await fetch(`${confab.baseUrl}/v1/chat/actions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'x-bot-id': botId, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: await response.json(), retryAfter: response.headers.get('retry-after') }
}

const publish = (conversationId: string, signal: Record<string, unknown>) => call({ type: 'chat:publishMessageStream', input: { conversationId, signal } })

const refused = (code: number, type: string, message: string, retryAfter: string | null = null) => ({
  status: code,
  body: { code, type, message, id: expect.any(String) },
  retryAfter,
})

describe('chat:publishMessageStream: delta, then the final message', () => {
  it('a listener over SSE hears every delta in order (Botpress’ shapes), then message_stream_complete, then message_created', async () => {
    const c = await conversation()
    const heard = await listenOverSse(c)
    const words = ['Once', ' upon', ' a', ' time']
    for (const [i, word] of words.entries()) {
      expect(await delta(c, 'st-1', i + 1, word, i === 0 ? { clientMessageId: 'cm-1' } : {})).toEqual({ output: {}, meta: { cached: false } })
    }
    const { message } = await finalMessage(c, 'st-1', words.join(''))
    await eventually(() => expect(heard.map((s) => s.type)).toContain('message_created'))
    const deltas = words.map((word, i) => ({
      type: 'message_stream_delta',
      data: {
        streamId: 'st-1',
        conversationId: c,
        userId: botId,
        createdAt: '2026-07-01T10:00:00.000Z',
        ...(i === 0 ? { clientMessageId: 'cm-1' } : {}),
        sequence: i + 1,
        delta: word,
      },
    }))
    const chatMessage = {
      id: message.id,
      createdAt: iso,
      payload: { type: 'text', text: 'Once upon a time' },
      userId: botId,
      conversationId: c,
      metadata: { streamId: 'st-1' },
    }
    // The bot joins with its final message (participant_added), as when it posts any.
    expect(heard.filter((s) => s.type !== 'participant_added')).toStrictEqual([
      ...deltas,
      { type: 'message_stream_complete', data: { streamId: 'st-1', message: chatMessage } },
      { type: 'message_created', data: { ...chatMessage, isBot: true } },
    ])
    // Deltas are transient: the conversation holds the final message only.
    const { messages } = await alice.listMessages({ conversationId: c })
    expect(messages.map((m) => m.id)).toEqual([message.id])
  })

  it('a GraphQL subscription hears the same, typed: MessageStreamDeltaSignal, MessageStreamCompleteSignal, then MessageCreatedSignal', async () => {
    const c = await conversation()
    const heard = await listenOverGraphql(c)
    await delta(c, 'st-2', 0, 'Hel')
    await delta(c, 'st-2', 1, 'lo')
    const { message } = await finalMessage(c, 'st-2', 'Hello')
    await eventually(() => expect(heard.at(-1)?.data?.conversationSignals?.__typename).toBe('MessageCreatedSignal'))
    const streamDelta = (sequence: number, text: string) => ({
      __typename: 'MessageStreamDeltaSignal',
      type: 'message_stream_delta',
      streamId: 'st-2',
      conversationId: c,
      userId: botId,
      createdAt: '2026-07-01T10:00:00.000Z',
      clientMessageId: null,
      sequence,
      delta: text,
    })
    expect(heard.map((r) => r.data.conversationSignals).filter((s) => Object.keys(s).length > 1)).toEqual([
      streamDelta(0, 'Hel'),
      streamDelta(1, 'lo'),
      {
        __typename: 'MessageStreamCompleteSignal',
        type: 'message_stream_complete',
        streamId: 'st-2',
        message: { messageId: message.id, userId: botId, conversationId: c, rawPayload: { type: 'text', text: 'Hello' }, metadata: { streamId: 'st-2' } },
      },
      { __typename: 'MessageCreatedSignal', type: 'message_created', isBot: true, message: { messageId: message.id } },
    ])
  })

  it('a delta sent again (same sequence: a retry) is answered and not heard twice; a stream that ended refuses further deltas', async () => {
    const c = await conversation()
    const heard = await listenOverSse(c)
    await delta(c, 'st-3', 1, 'a')
    expect(await delta(c, 'st-3', 1, 'a')).toEqual({ output: {}, meta: { cached: false } })
    await delta(c, 'st-3', 2, 'b')
    await finalMessage(c, 'st-3', 'ab')
    await eventually(() => expect(heard.map((s) => s.type)).toContain('message_created'))
    expect(heard.filter((s) => s.type === 'message_stream_delta').map((s) => s.data.sequence)).toEqual([1, 2])
    expect(await publish(c, { type: 'delta', streamId: 'st-3', createdAt: 'x', sequence: 3, delta: 'late' })).toEqual(
      refused(400, 'InvalidPayload', 'message stream "st-3" has ended (its final message was posted, or it was aborted)'),
    )
  })

  it('a user’s message carrying metadata.streamId completes nothing: only the bot’s does', async () => {
    const c = await conversation()
    const heard = await listenOverSse(c)
    await alice.createMessage({ conversationId: c, payload: { type: 'text', text: 'mine' }, metadata: { streamId: 'st-x' } })
    await eventually(() => expect(heard.map((s) => s.type)).toEqual(['message_created']))
  })
})

describe('chat:publishMessageStream: abort', () => {
  it('listeners hear message_stream_abort {streamId, conversationId}; the stream is over', async () => {
    const c = await conversation()
    const heard = await listenOverSse(c)
    await delta(c, 'st-4', 1, 'I think')
    expect(await abort(c, 'st-4')).toEqual({ output: {}, meta: { cached: false } })
    await eventually(() => expect(heard.map((s) => s.type)).toEqual(['message_stream_delta', 'message_stream_abort']))
    expect(heard[1]).toStrictEqual({ type: 'message_stream_abort', data: { streamId: 'st-4', conversationId: c } })
    expect(await publish(c, { type: 'abort', streamId: 'st-4' })).toEqual(refused(404, 'ResourceNotFound', 'Message stream "st-4" does not exist'))
  })
})

describe('chat:publishMessageStream: refusals, in the documented error body', () => {
  const c1 = () => 'refusals'
  beforeAll(async () => {
    await alice.createConversation({ id: 'refusals' })
  })

  it.each([
    [{ type: 'delta', streamId: 'r1', createdAt: 'x', sequence: '1', delta: 'a' }, 'input.signal.sequence must be a number'],
    [{ type: 'delta', streamId: 'r1', createdAt: 'x', sequence: 1, delta: 7 }, 'input.signal.delta must be a string'],
    [{ type: 'delta', createdAt: 'x', sequence: 1, delta: 'a' }, 'input.signal.streamId must be a non-empty string'],
    [{ type: 'delta', streamId: 'r1', sequence: 1, delta: 'a' }, 'input.signal.createdAt must be a string'],
    [{ type: 'delta', streamId: 'r1', createdAt: 'x', sequence: 1, delta: 'a', clientMessageId: 5 }, 'input.signal.clientMessageId must be a string'],
    [{ type: 'delta', streamId: 'r'.repeat(257), createdAt: 'x', sequence: 1, delta: 'a' }, 'input.signal.streamId must be at most 256 characters'],
    [{ type: 'finish', streamId: 'r1' }, 'input.signal.type must be "delta" or "abort"'],
    [{ streamId: 'r1' }, 'input.signal.type must be "delta" or "abort"'],
    ['delta', 'input.signal must be an object'],
  ])('wrong types: %j → 400 InvalidPayload naming the field', async (signal, message) => {
    expect(await publish(c1(), signal as Record<string, unknown>)).toEqual(refused(400, 'InvalidPayload', message))
  })

  it('a conversation id that is missing or not a string → 400', async () => {
    expect(await call({ type: 'chat:publishMessageStream', input: { signal: { type: 'abort', streamId: 'r1' } } })).toEqual(
      refused(400, 'InvalidPayload', 'input.conversationId must be a non-empty string'),
    )
  })

  it('a delta over MESSAGE_STREAM_DELTA_MAX_BYTES (as UTF-8) → 413 PayloadTooLarge; the stream is not opened by it', async () => {
    expect(await publish(c1(), { type: 'delta', streamId: 'big', createdAt: 'x', sequence: 1, delta: 'é'.repeat(33) })).toEqual(
      refused(413, 'PayloadTooLarge', 'input.signal.delta is 66 bytes, over the limit of 64 bytes (MESSAGE_STREAM_DELTA_MAX_BYTES)'),
    )
    expect(await publish(c1(), { type: 'abort', streamId: 'big' })).toEqual(refused(404, 'ResourceNotFound', 'Message stream "big" does not exist'))
  })

  it('an abort of a stream never opened → 404; of a stream open in another conversation → 404', async () => {
    expect(await publish(c1(), { type: 'abort', streamId: 'never' })).toEqual(refused(404, 'ResourceNotFound', 'Message stream "never" does not exist'))
    const c = await conversation()
    await delta(c, 'elsewhere', 1, 'x')
    expect(await publish(c1(), { type: 'abort', streamId: 'elsewhere' })).toEqual(refused(404, 'ResourceNotFound', 'Message stream "elsewhere" does not exist'))
    expect(await publish(c1(), { type: 'delta', streamId: 'elsewhere', createdAt: 'x', sequence: 2, delta: 'y' })).toEqual(
      refused(400, 'InvalidPayload', 'message stream "elsewhere" belongs to another conversation'),
    )
    await abort(c, 'elsewhere')
  })

  it('a stranger’s conversation (another bot’s) or none → 404, nothing heard', async () => {
    for (const signal of [
      { type: 'delta', streamId: 'r2', createdAt: 'x', sequence: 1, delta: 'a' },
      { type: 'abort', streamId: 'r2' },
    ]) {
      expect(await publish(otherBotConversation, signal)).toEqual(refused(404, 'ResourceNotFound', `Conversation "${otherBotConversation}" does not exist`))
      expect(await publish('nowhere', signal)).toEqual(refused(404, 'ResourceNotFound', 'Conversation "nowhere" does not exist'))
    }
  })

  it('a delta before the stream’s last → 400 (deltas are published in order)', async () => {
    const c = await conversation()
    await delta(c, 'r3', 5, 'x')
    expect(await publish(c, { type: 'delta', streamId: 'r3', createdAt: 'x', sequence: 4, delta: 'y' })).toEqual(
      refused(400, 'InvalidPayload', "input.signal.sequence 4 is not after the stream's last (5): a stream's deltas are published in order"),
    )
    await abort(c, 'r3')
  })

  it('over MESSAGE_STREAM_DELTAS_PER_SECOND → 429 RateLimited, and the delta is not heard; the bucket refills with time', async () => {
    const c = await conversation()
    const heard = await listenOverSse(c)
    // The clock stands still: every delta comes within the same second, however slow the machine.
    setClock('2026-07-01T10:00:00.000Z')
    const answers = []
    for (let i = 0; i < 25; i++) answers.push(await publish(c, { type: 'delta', streamId: 'fast', createdAt: 'x', sequence: i, delta: '.' }))
    expect(answers.map((a) => a.status)).toEqual([...Array(20).fill(200), ...Array(5).fill(429)])
    expect(answers[20]).toEqual(refused(429, 'RateLimited', 'message stream "fast" is over 20 deltas a second (MESSAGE_STREAM_DELTAS_PER_SECOND)', '1'))
    await eventually(() => expect(heard.filter((s) => s.type === 'message_stream_delta').map((s) => s.data.sequence)).toEqual([...Array(20).keys()]))
    // Half a second on, ten more may go.
    setClock('2026-07-01T10:00:00.500Z')
    for (let i = 25; i < 35; i++) expect((await publish(c, { type: 'delta', streamId: 'fast', createdAt: 'x', sequence: i, delta: '.' })).status).toBe(200)
    expect((await publish(c, { type: 'delta', streamId: 'fast', createdAt: 'x', sequence: 35, delta: '.' })).status).toBe(429)
    await abort(c, 'fast')
  })

  it('over MESSAGE_STREAMS_PER_CONVERSATION open streams → 429; one ended makes room', async () => {
    const c = await conversation()
    await delta(c, 'o1', 1, 'a')
    await delta(c, 'o2', 1, 'a')
    expect(await publish(c, { type: 'delta', streamId: 'o3', createdAt: 'x', sequence: 1, delta: 'a' })).toEqual(
      refused(
        429,
        'RateLimited',
        'there are already 2 message streams open in this conversation (MESSAGE_STREAMS_PER_CONVERSATION): end one (its final message, or abort) first',
        '1',
      ),
    )
    await abort(c, 'o1')
    await finalMessage(c, 'o2', 'done')
    expect((await publish(c, { type: 'delta', streamId: 'o3', createdAt: 'x', sequence: 1, delta: 'a' })).status).toBe(200)
    await abort(c, 'o3')
  })

  it('@botpress/client surfaces a refusal as its typed error, with the code, type and message', async () => {
    await expect(abort(c1(), 'ghost')).rejects.toMatchObject({ code: 404, type: 'ResourceNotFound', message: 'Message stream "ghost" does not exist' })
  })
})

describe('updateMessage on the bot API', () => {
  it('tells listeners: message_updated with the message as it now is (a bot that edits in place streams too)', async () => {
    const c = await conversation()
    const { message } = await bot.createMessage({ conversationId: c, userId: botId, tags: {}, type: 'text', payload: { text: 'Th' } })
    const heard = await listenOverSse(c)
    const graphql = await listenOverGraphql(c)
    await bot.updateMessage({ id: message.id, tags: {}, payload: { text: 'The answer' } })
    const updated = { id: message.id, createdAt: iso, payload: { type: 'text', text: 'The answer' }, userId: botId, conversationId: c, isBot: true }
    await eventually(() => expect(heard).toStrictEqual([{ type: 'message_updated', data: updated }]))
    await eventually(() =>
      expect(graphql.map((r) => r.data.conversationSignals)).toEqual([
        {
          __typename: 'MessageUpdatedSignal',
          type: 'message_updated',
          isBot: true,
          message: { messageId: message.id, rawPayload: { type: 'text', text: 'The answer' } },
        },
      ]),
    )
  })
})
