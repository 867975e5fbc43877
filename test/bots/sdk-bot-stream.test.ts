import { Client } from '@botpress/chat'
import { createClient as createWsClient } from 'graphql-ws'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { adminFetchOn } from '../helpers/admin-fetch.ts'
import { type Listening, PING, startListening } from '../helpers/listening.ts'
import { SseReader } from '../helpers/sse.ts'
import { eventually } from '../helpers/wait.ts'
import { botWithApiKey, type SdkBot, startSdkBot } from './sdk-bot.ts'

// A stock @botpress/sdk 7.2.4 bot written for Botpress' chat integration 1.x
// (test/bots/sdk-stream-bot/bot.ts), in its own process, streams its answer through
// chat:publishMessageStream and posts it with metadata.streamId. A user of @botpress/chat writes to
// it; the conversation's listeners — the Chat API's SSE stream read off the wire as @botpress/chat
// 1.1.0 reads it ({type, data} per `data:` line), and the conversationSignals subscription — hear
// every delta in order, message_stream_complete, then the final message_created.

interface Signal {
  type: string
  data: Record<string, any>
}

let confab: Listening
let bot: SdkBot
let botId: string
let apiUrl: string
const cleanups: (() => unknown)[] = []

const admin = adminFetchOn(() => confab)

beforeAll(async () => {
  confab = await startListening({ botRetrySchedule: [0, 0.2, 0.2] })
  const created = await botWithApiKey(confab.baseUrl, 'Streaming SDK bot')
  botId = created.botId
  bot = await startSdkBot({ BP_API_URL: confab.baseUrl, BP_TOKEN: created.token }, 'test/bots/sdk-stream-bot/bot.ts')
  const put = await admin('PUT', `/bots/${botId}`, { url: bot.url, protocol: 'botpress' })
  expect(put.status).toBe(200)
  apiUrl = put.body.bot.integrations.chat.webhookUrl
}, 60_000)

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

afterAll(async () => {
  await bot?.stop()
  await confab?.close()
})

/** A user in a new conversation, with what it hears over SSE and over GraphQL. */
async function chatting(conversationId: string) {
  const user = await Client.connect({ apiUrl })
  await user.createConversation({ id: conversationId })
  const before = confab.t.app.signals.activeSubscriptions()
  const response = await fetch(`${apiUrl}/conversations/${conversationId}/listen`, { headers: { 'x-user-key': user.user.key } })
  const sse = new SseReader(response.body!)
  cleanups.push(() => sse.cancel())
  const overSse: Signal[] = []
  void (async () => {
    for (let block = await sse.message((b) => b.data === PING); block; block = await sse.message((b) => b.data === PING)) {
      overSse.push(JSON.parse(block.data as string))
    }
  })()
  const client = createWsClient({
    url: `${confab.wsUrl}${new URL(apiUrl).pathname}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { 'x-user-key': user.user.key },
    retryAttempts: 0,
  })
  cleanups.push(() => client.dispose())
  const overGraphql: any[] = []
  client.subscribe(
    {
      query: /* GraphQL */ `
        subscription ($id: String!) {
          conversationSignals(conversationId: $id) {
            __typename
            ... on MessageStreamDeltaSignal { streamId sequence delta }
            ... on MessageStreamCompleteSignal { streamId message { messageId } }
            ... on MessageStreamAbortSignal { streamId }
            ... on MessageCreatedSignal { isBot message { messageId } }
          }
        }
      `,
      variables: { id: conversationId },
    },
    { next: (result) => void overGraphql.push(result.data?.conversationSignals), error: () => {}, complete: () => {} },
  )
  await eventually(() => expect(confab.t.app.signals.activeSubscriptions()).toBe(before + 2))
  /** What the bot's stream made, over SSE: the user's own message and the bot joining left out. */
  const fromBot = () => overSse.filter((s) => s.type.startsWith('message_stream') || (s.type === 'message_created' && s.data.isBot))
  return { user, overSse, overGraphql, fromBot }
}

const waitLong = 20_000

describe('an @botpress/sdk bot streaming its answer through chat:publishMessageStream', () => {
  it('every delta in order, message_stream_complete, then message_created: over SSE and over GraphQL', async () => {
    const { user, overGraphql, fromBot } = await chatting('stream-c1')
    await user.createMessage({ conversationId: 'stream-c1', payload: { type: 'text', text: 'stream Once upon a time' } })
    await eventually(() => expect(fromBot().at(-1)?.type).toBe('message_created'), waitLong)
    const signals = fromBot()
    const streamId = signals[0]?.data.streamId as string
    expect(streamId).toMatch(/^stream-/)
    const final = signals.at(-1)?.data as Record<string, unknown>
    expect(signals).toStrictEqual([
      ...['Once', ' upon', ' a', ' time'].map((delta, sequence) => ({
        type: 'message_stream_delta',
        data: { streamId, conversationId: 'stream-c1', userId: botId, createdAt: expect.any(String), sequence, delta },
      })),
      {
        type: 'message_stream_complete',
        data: {
          streamId,
          message: {
            id: final.id,
            createdAt: final.createdAt,
            payload: { type: 'text', text: 'Once upon a time' },
            userId: botId,
            conversationId: 'stream-c1',
            metadata: { streamId },
          },
        },
      },
      { type: 'message_created', data: { ...final, isBot: true } },
    ])
    await eventually(() => expect(overGraphql.filter((s) => s.__typename.startsWith('MessageStream') || s.isBot)).toHaveLength(6))
    expect(overGraphql.filter((s) => s.__typename.startsWith('MessageStream') || s.isBot)).toEqual([
      { __typename: 'MessageStreamDeltaSignal', streamId, sequence: 0, delta: 'Once' },
      { __typename: 'MessageStreamDeltaSignal', streamId, sequence: 1, delta: ' upon' },
      { __typename: 'MessageStreamDeltaSignal', streamId, sequence: 2, delta: ' a' },
      { __typename: 'MessageStreamDeltaSignal', streamId, sequence: 3, delta: ' time' },
      { __typename: 'MessageStreamCompleteSignal', streamId, message: { messageId: final.id } },
      { __typename: 'MessageCreatedSignal', isBot: true, message: { messageId: final.id } },
    ])
  }, 60_000)

  it('an abort: the deltas, then message_stream_abort, and no message', async () => {
    const { user, fromBot } = await chatting('stream-c2')
    await user.createMessage({ conversationId: 'stream-c2', payload: { type: 'text', text: 'abort never mind' } })
    await eventually(() => expect(fromBot().at(-1)?.type).toBe('message_stream_abort'), waitLong)
    const streamId = fromBot()[0]?.data.streamId
    expect(fromBot().map((s) => [s.type, s.data.delta ?? s.data.conversationId])).toEqual([
      ['message_stream_delta', 'never'],
      ['message_stream_delta', ' mind'],
      ['message_stream_abort', 'stream-c2'],
    ])
    expect(fromBot().at(-1)).toStrictEqual({ type: 'message_stream_abort', data: { streamId, conversationId: 'stream-c2' } })
    const { messages } = await user.listMessages({ conversationId: 'stream-c2' })
    expect(messages.map((m) => m.userId)).not.toContain(botId)
  }, 60_000)
})
