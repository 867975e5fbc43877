import { Client, LimitExceededError } from '@botpress/chat'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultLimits } from '../../src/config.ts'
import { WebChatConversationDocument } from '../../src/webchat/__generated__/graphql.ts'
import { ENCRYPTION_KEY, type TestAppOptions } from '../helpers/app.ts'
import { type Listening, expectApiError, startListening } from '../helpers/listening.ts'

// No chat answer is larger than RESPONSE_MAX_BYTES (8 MiB by default): over it, the request is
// refused with 413 LimitExceeded. An operation that may pass it counts the written bytes it answers
// as it goes and stops there, rather than building the whole answer first.

const cap = defaultLimits.responseMaxBytes
/** Messages of 1 MiB (MESSAGE_MAX_BYTES, 128 KiB by default, raised): a REST page of them passes the cap too. */
const messageBytes = 1024 * 1024

/** A real server of its own for the enclosing describe, with a user and a conversation full of the largest messages. */
function useConversationOverTheCap(options: TestAppOptions = {}, bytes = cap, messageBytes = defaultLimits.messageMaxBytes) {
  const state: { listening?: Listening; key?: string; messageId?: string } = {}
  beforeAll(async () => {
    state.listening = await startListening(options)
    const { t } = state.listening
    const { key } = await t.user('alice')
    await t.conversation(key, 'big')
    // By default as large as a message may be (MESSAGE_MAX_BYTES, payload and metadata as JSON): enough of them to pass the cap.
    const text = 'x'.repeat(messageBytes - 200)
    for (let sent = 0; sent <= bytes; sent += text.length) {
      const posted = await t.chat('POST', '/messages', { key, body: { conversationId: 'big', payload: { type: 'text', text } } })
      expect(posted.status).toBe(200)
      state.messageId = posted.body.message.id
    }
    state.key = key
  }, 120_000)
  afterAll(() => state.listening?.close())
  return {
    get key() {
      return state.key as string
    },
    get messageId() {
      return state.messageId as string
    },
    /** A request over HTTP as alice; the answer's bytes as sent, and its JSON. */
    async send(path: string, init: { method?: string; body?: unknown } = {}) {
      const listening = state.listening as Listening
      const response = await fetch(`${listening.apiUrl}${path}`, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: { 'x-user-key': this.key, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      })
      const bytes = Buffer.from(await response.arrayBuffer())
      return { status: response.status, headers: response.headers, bytes: bytes.length, body: JSON.parse(bytes.toString('utf8')) }
    },
    graphql(query: string, variables: Record<string, unknown> = {}) {
      return this.send('/graphql', { body: { query, variables } })
    },
    get apiUrl() {
      return (state.listening as Listening).apiUrl
    },
  }
}

const refusedAsTooLarge = (answer: { status: number; headers: Headers; body: unknown; bytes: number }) => {
  expect(answer.status).toBe(413)
  expect(answer.body).toEqual({
    errors: [
      {
        message: expect.stringMatching(
          new RegExp(`^the answer (is|would be \\d+ bytes,) over the limit of ${cap} bytes \\(RESPONSE_MAX_BYTES\\): ask for fewer items or fields$`),
        ),
        extensions: { type: 'LimitExceeded', status: 413, requestId: answer.headers.get('x-request-id') },
      },
    ],
  })
  expect(answer.bytes).toBeLessThan(1024)
}

describe('the answer byte cap (RESPONSE_MAX_BYTES, 8 MiB by default)', () => {
  const big = useConversationOverTheCap({ caps: { ...defaultLimits, messageMaxBytes: messageBytes } }, cap, messageBytes)

  it('refuses a GraphQL page whose payloads pass the cap with 413 LimitExceeded', async () => {
    refusedAsTooLarge(await big.graphql('{ conversation(id: "big") { messages(first: 100) { edges { node { messageId rawPayload } } } } }'))
  })

  it('refuses the cycle Message.conversation.messages: one alias at the cap, four at the cost limit, before it runs', async () => {
    const cycle = (alias: string) =>
      `${alias}: conversation(id: "big") { messages(first: 100) { edges { node { rawPayload conversation { messages(first: 20) { edges { node { rawPayload metadata } } } } } } } }`
    refusedAsTooLarge(await big.graphql(`{ ${cycle('a')} }`))
    const four = await big.graphql(`{ ${['a', 'b', 'c', 'd'].map(cycle).join(' ')} }`)
    expect(four.status).toBe(200)
    expect(four.body).toEqual({
      errors: [
        {
          message: expect.stringMatching(/^Query cost limit of 100000 exceeded, found \d+ /),
          extensions: expect.objectContaining({ type: 'InvalidPayload', status: 400 }),
        },
      ],
    })
  })

  it('answers what fits: the same page without its payloads, and one message', async () => {
    const ids = await big.graphql('{ conversation(id: "big") { messages(first: 100) { edges { node { messageId } } } } }')
    expect(ids.status).toBe(200)
    expect(ids.body.data.conversation.messages.edges.length).toBeGreaterThan(cap / messageBytes)
    const one = await big.send(`/messages/${big.messageId}`)
    expect(one.status).toBe(200)
    expect(one.body.message.payload.text.length).toBe(messageBytes - 200)
  })

  it('holds every read of the conversation to the cap, whatever its shape', async () => {
    const { body } = await big.graphql('{ conversation(id: "big") { messages(first: 100) { edges { node { id } } } } }')
    const ids = body.data.conversation.messages.edges.map((edge: { node: { id: string } }) => edge.node.id)
    const answers = [
      await big.send('/conversations/big/messages'),
      await big.graphql(WebChatConversationDocument.toString(), { id: 'big' }),
      await big.graphql(
        'query ($ids: [ID!]!) { nodes(ids: $ids) { ... on Message { rawPayload metadata payload { ... on TextPayload { text again: text } } } } }',
        { ids },
      ),
      await big.graphql('{ conversations(first: 5) { edges { node { messages(last: 50) { edges { node { payload { ... on TextPayload { text } } } } } } } } }'),
    ]
    for (const answer of answers) {
      expect(answer.bytes).toBeLessThanOrEqual(cap)
      expect([200, 413]).toContain(answer.status)
    }
    expect(answers.filter((answer) => answer.status === 413).length).toBeGreaterThanOrEqual(3)
  })
})

describe('RESPONSE_MAX_BYTES set lower caps the REST answers too, as the official client reads them', () => {
  const small = 256 * 1024
  const big = useConversationOverTheCap({ caps: { ...defaultLimits, responseMaxBytes: small } }, small, 64 * 1024)

  it("refuses GET /conversations/{id}/messages over it with the contract's error body, 413 LimitExceeded", async () => {
    const answer = await big.send('/conversations/big/messages')
    expect(answer.status).toBe(413)
    expect(answer.body).toEqual({
      id: expect.stringMatching(/^err_/),
      code: 413,
      type: 'LimitExceeded',
      message: expect.stringMatching(new RegExp(`over the limit of ${small} bytes \\(RESPONSE_MAX_BYTES\\)`)),
    })
    const client = await Client.connect({ apiUrl: big.apiUrl, userId: 'alice', encryptionKey: ENCRYPTION_KEY })
    await expectApiError(client.listMessages({ conversationId: 'big' }), LimitExceededError, 413, 'LimitExceeded')
  })

  it('answers a read under it', async () => {
    const one = await big.send(`/messages/${big.messageId}`)
    expect(one.status).toBe(200)
    expect(one.bytes).toBeGreaterThan(64 * 1024 - 200)
  })
})
