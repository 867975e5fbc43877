import { type ChildProcess, spawn } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createServerAdapter } from '@whatwg-node/server'
import { createClient as createSseClient, type Client as SseClient } from 'graphql-sse'
import { type Client as WsClient, createClient as createWsClient } from 'graphql-ws'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { SignJWT } from 'jose'
import WebSocket from 'ws'
import { BASE, createTestApp, type TestApp, WEBHOOK_ID } from '../helpers/app.ts'
import { ROOT } from '../helpers/server.ts'

const SIGNALS = /* GraphQL */ `
  subscription Signals($id: String!) {
    conversationSignals(conversationId: $id) {
      __typename
      ... on MessageCreatedSignal {
        type
        isBot
        message { messageId payload { __typename ... on TextPayload { text } } author { userId } }
      }
      ... on MessageDeletedSignal { type messageId conversationId userId }
      ... on EventCreatedSignal { type isBot event { eventId payload user { userId } } }
      ... on ParticipantAddedSignal { type conversationId participantId }
      ... on ParticipantRemovedSignal { type conversationId participantId }
    }
  }
`

interface Collected {
  results: any[]
  errors: unknown[]
  completed: boolean
}

/** A sink that keeps what a subscription delivers. */
const collector = () => {
  const collected: Collected = { results: [], errors: [], completed: false }
  const sink = {
    next: (result: unknown) => void collected.results.push(result),
    error: (error: unknown) => void collected.errors.push(error),
    complete: () => {
      collected.completed = true
    },
  }
  return { collected, sink }
}

const signalsOf = (collected: Collected) => collected.results.map((result) => result.data?.conversationSignals)

let t: TestApp
let server: Server
let base: string
let wsBase: string
let baseline: number
let alice: Awaited<ReturnType<TestApp['user']>>
let bob: Awaited<ReturnType<TestApp['user']>>
let botId: string
const cleanups: (() => unknown)[] = []

beforeEach(async () => {
  t = createTestApp()
  if (!t.tenant) throw new Error('the harness database was not bootstrapped')
  botId = t.tenant.botId
  server = createServer(createServerAdapter(t.app.fetch))
  t.app.attach(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  base = `http://127.0.0.1:${port}`
  wsBase = `ws://127.0.0.1:${port}`
  alice = await t.user('alice', { name: 'Alice' })
  bob = await t.user('bob', { name: 'Bob' })
  await t.conversation(alice.key, 'c1')
  baseline = t.app.signals.activeSubscriptions()
})

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await t.app.close()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  await t.close()
})

const subscribed = (count = 1) =>
  vi.waitFor(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline + count), { timeout: 5_000 })
const unsubscribed = () =>
  vi.waitFor(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline), { timeout: 5_000 })

const textMessage = (messageId: string, text: string, userId: string, isBot: boolean) => ({
  __typename: 'MessageCreatedSignal',
  type: 'message_created',
  isBot,
  message: { messageId, payload: { __typename: 'TextPayload', text }, author: { userId } },
})

/**
 * Drives c1 through every kind of signal, waiting for each step's signals before the next, and
 * checks what the subscription delivered: alice's message and the echo bot's answer (the bot
 * joins first), alice's event and its echo, bob joining, the message deleted, bob leaving.
 */
async function driveEverySignal(collected: Collected) {
  const received = (count: number) =>
    vi.waitFor(() => expect(collected.results).toHaveLength(count), { timeout: 5_000 })

  const posted = await t.chat('POST', '/messages', {
    key: alice.key,
    body: { conversationId: 'c1', payload: { type: 'text', text: 'hello' } },
  })
  expect(posted.status).toBe(200)
  const messageId: string = posted.body.message.id
  await received(3)
  const botAnswer = signalsOf(collected)[2]?.message?.messageId
  expect(signalsOf(collected)).toEqual([
    textMessage(messageId, 'hello', 'alice', false),
    { __typename: 'ParticipantAddedSignal', type: 'participant_added', conversationId: 'c1', participantId: botId },
    textMessage(botAnswer, 'hello', botId, true),
  ])
  expect(botAnswer).toEqual(expect.any(String))
  expect(botAnswer).not.toBe(messageId)

  const event = await t.chat('POST', '/events', { key: alice.key, body: { conversationId: 'c1', payload: { kind: 'ping' } } })
  expect(event.status).toBe(200)
  await received(5)
  const botEvent = signalsOf(collected)[4]?.event?.eventId
  expect(botEvent).toEqual(expect.any(String))
  expect(botEvent).not.toBe(event.body.event.id)
  expect(signalsOf(collected).slice(3)).toEqual([
    {
      __typename: 'EventCreatedSignal',
      type: 'event_created',
      isBot: false,
      event: { eventId: event.body.event.id, payload: { kind: 'ping' }, user: { userId: 'alice' } },
    },
    {
      __typename: 'EventCreatedSignal',
      type: 'event_created',
      isBot: true,
      event: { eventId: botEvent, payload: { kind: 'ping' }, user: { userId: botId } },
    },
  ])

  expect((await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })).status).toBe(200)
  await received(6)
  expect(signalsOf(collected)[5]).toEqual({
    __typename: 'ParticipantAddedSignal',
    type: 'participant_added',
    conversationId: 'c1',
    participantId: 'bob',
  })

  expect((await t.chat('DELETE', `/messages/${messageId}`, { key: alice.key, body: {} })).status).toBe(200)
  await received(7)
  expect(signalsOf(collected)[6]).toEqual({
    __typename: 'MessageDeletedSignal',
    type: 'message_deleted',
    messageId,
    conversationId: 'c1',
    userId: 'alice',
  })

  expect((await t.chat('DELETE', '/conversations/c1/participants/bob', { key: alice.key, body: {} })).status).toBe(200)
  await received(8)
  expect(signalsOf(collected)[7]).toEqual({
    __typename: 'ParticipantRemovedSignal',
    type: 'participant_removed',
    conversationId: 'c1',
    participantId: 'bob',
  })
  // Every result was data alone: no errors on the way.
  expect(collected.results.every((result) => result.errors === undefined)).toBe(true)
  expect(collected.errors).toEqual([])
  expect(collected.completed).toBe(false)
}

// ---------------------------------------------------------------------------------------------
// graphql-ws over a real WebSocket
// ---------------------------------------------------------------------------------------------

const wsClient = (
  key: string | undefined,
  options: { webhookId?: string; onClosed?: (event: unknown) => void; lazy?: boolean } = {},
) => {
  const client = createWsClient({
    // Lazy clients close their socket once no subscription is left; `lazy: false` keeps it open.
    lazy: options.lazy ?? true,
    url: `${wsBase}/${options.webhookId ?? WEBHOOK_ID}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: key === undefined ? {} : { 'x-user-key': key },
    retryAttempts: 0,
    on: options.onClosed ? { closed: options.onClosed } : {},
  })
  cleanups.push(() => client.dispose())
  return client
}

/** What a graphql-ws client reported as an error: the GraphQL errors' messages, or how the socket closed. */
const describeWsError = (error: unknown) => {
  if (Array.isArray(error)) return error.map((e: { message: string }) => e.message)
  const { code, reason } = error as { code?: number; reason?: string }
  return code === undefined ? String(error) : `socket closed ${code}: ${reason}`
}

/** Subscribes; the server holds the subscription soon after (see `subscribed`). */
function wsSubscribe(client: WsClient, conversationId = 'c1') {
  const { collected, sink } = collector()
  const unsubscribe = client.subscribe({ query: SIGNALS, variables: { id: conversationId } }, sink)
  return { collected, unsubscribe }
}

describe('conversationSignals over graphql-ws (WebSocket)', () => {
  it('delivers every signal of the conversation to a participant', async () => {
    const client = wsClient(alice.key)
    const { collected } = wsSubscribe(client)
    await subscribed()
    await driveEverySignal(collected)
  })

  it('unsubscribing, then disposing the client, releases the server-side subscription', async () => {
    const client = wsClient(alice.key)
    const { collected, unsubscribe } = wsSubscribe(client)
    await subscribed()
    unsubscribe()
    await unsubscribed()
    const second = wsSubscribe(client)
    await subscribed()
    await client.dispose()
    await unsubscribed()
    expect(collected.errors).toEqual([])
    expect(second.collected.errors).toEqual([])
  })

  it('ends the subscription of a participant who is removed, after its own participant_removed', async () => {
    await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })
    const client = wsClient(bob.key)
    const { collected } = wsSubscribe(client)
    await subscribed()
    expect((await t.chat('DELETE', '/conversations/c1/participants/bob', { key: alice.key, body: {} })).status).toBe(200)
    await vi.waitFor(() => expect(collected.completed).toBe(true), { timeout: 5_000 })
    expect(signalsOf(collected)).toEqual([
      { __typename: 'ParticipantRemovedSignal', type: 'participant_removed', conversationId: 'c1', participantId: 'bob' },
    ])
    await unsubscribed()
  })

  it.each([
    [
      'a key signed with another secret',
      () => new SignJWT({ id: 'alice' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('wrong-key')),
      WEBHOOK_ID,
    ],
    ['a key that is not a JWT', async () => 'not-a-jwt', WEBHOOK_ID],
    ['an unknown webhook id', async () => alice.key, 'no-such-webhook'],
  ])('refuses a connection with %s: the socket closes with 4403', async (_name, key, webhookId) => {
    let closed: { code: number } | undefined
    const client = wsClient(await key(), { webhookId, onClosed: (event) => (closed = event as { code: number }) })
    const { collected } = wsSubscribe(client)
    await vi.waitFor(() => expect(collected.errors).toHaveLength(1), { timeout: 5_000 })
    expect(closed?.code).toBe(4403)
    expect((collected.errors[0] as { code: number }).code).toBe(4403)
    expect(collected.results).toEqual([])
    expect(t.app.signals.activeSubscriptions()).toBe(baseline)
  })

  it('answers a non-participant with a Forbidden error for the subscription, then completes it', async () => {
    const client = wsClient(bob.key)
    const { collected } = wsSubscribe(client)
    await vi.waitFor(() => expect(collected.completed).toBe(true), { timeout: 5_000 })
    expect(collected.errors).toEqual([])
    expect(collected.results).toEqual([
      {
        errors: [
          {
            message: 'user "bob" is not a participant of conversation "c1"',
            locations: [expect.any(Object)],
            path: ['conversationSignals'],
            extensions: expect.objectContaining({ type: 'Forbidden', status: 403 }),
          },
        ],
      },
    ])
    expect(t.app.signals.activeSubscriptions()).toBe(baseline)
  })

  it('answers a connection without a key with an Unauthorized error for the subscription, then completes it', async () => {
    const client = wsClient(undefined)
    const { collected } = wsSubscribe(client)
    await vi.waitFor(() => expect(collected.completed).toBe(true), { timeout: 5_000 })
    expect(collected.errors).toEqual([])
    expect(collected.results).toEqual([
      {
        errors: [
          {
            message: 'the x-user-key header is required',
            locations: [expect.any(Object)],
            path: ['conversationSignals'],
            extensions: expect.objectContaining({ type: 'Unauthorized', status: 401 }),
          },
        ],
      },
    ])
    expect(t.app.signals.activeSubscriptions()).toBe(baseline)
  })

  it('names the request an error belongs to over the socket too (extensions.requestId)', async () => {
    const client = wsClient(bob.key)
    const { collected } = wsSubscribe(client)
    await vi.waitFor(() => expect(collected.completed).toBe(true), { timeout: 5_000 })
    expect(collected.results[0]?.errors?.[0]?.extensions).toEqual({
      type: 'Forbidden',
      status: 403,
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    })
  })
})

const DEEP_SUBSCRIPTION = /* GraphQL */ `
  subscription ($id: String!) {
    conversationSignals(conversationId: $id) {
      ... on MessageCreatedSignal {
        message { conversation { messages { edges { node {
          conversation { messages { edges { node { conversation { messages { edges { node { messageId } } } } } } } }
        } } } } }
      }
    }
  }
`
const TOKEN_HEAVY_SUBSCRIPTION = `subscription ($id: String!) { conversationSignals(conversationId: $id) { ${'__typename '.repeat(2000)} } }`

describe('execution limits on graphql-ws', () => {
  it.each([
    ['too deep', DEEP_SUBSCRIPTION, 'Syntax Error: Query depth limit of 12 exceeded, found 15.'],
    ['too many tokens', TOKEN_HEAVY_SUBSCRIPTION, 'Syntax Error: Token limit of 2000 exceeded.'],
  ])('refuses a subscription that is %s with an error, and the connection stays usable', async (_name, query, message) => {
    let closed: { code: number } | undefined
    const client = wsClient(alice.key, { lazy: false, onClosed: (event) => (closed = event as { code: number }) })
    const { collected, sink } = collector()
    client.subscribe({ query, variables: { id: 'c1' } }, sink)
    await vi.waitFor(() => expect(collected.errors.length > 0 || collected.completed).toBe(true), { timeout: 5_000 })
    expect(collected.results).toEqual([])
    expect(collected.errors.map(describeWsError)).toEqual([[message]])
    expect(closed).toBeUndefined()
    expect(t.app.signals.activeSubscriptions()).toBe(baseline)
    // The same socket still serves a legitimate subscription.
    const { collected: next } = wsSubscribe(client)
    await subscribed()
    const posted = await t.chat('POST', '/messages', {
      key: alice.key,
      body: { conversationId: 'c1', payload: { type: 'text', text: 'still here' } },
    })
    await vi.waitFor(() => expect(next.results.length).toBeGreaterThanOrEqual(1), { timeout: 5_000 })
    expect(signalsOf(next)[0]).toEqual(textMessage(posted.body.message.id, 'still here', 'alice', false))
  })
})

// ---------------------------------------------------------------------------------------------
// graphql-sse protocol (the graphql-sse client)
// ---------------------------------------------------------------------------------------------

/** What a graphql-sse client reported: the HTTP status it was refused with, or the error's message. */
const describeClientError = (error: unknown) => {
  const response = (error as { response?: Response }).response
  return response ? `HTTP ${response.status}` : String(error)
}

/**
 * How a graphql-sse client learned that its subscription was refused: a result on the stream
 * (status 200) or an HTTP error, with the GraphQL error messages either carries.
 */
async function refusalOf(collected: Collected): Promise<{ status: number; messages: string[] }> {
  if (collected.results.length > 0) {
    return { status: 200, messages: collected.results.flatMap((r) => (r.errors ?? []).map((e: { message: string }) => e.message)) }
  }
  const response = (collected.errors[0] as { response?: Response } | undefined)?.response
  if (!response) return { status: 0, messages: collected.errors.map(String) }
  const text = await response.text().catch(() => '')
  try {
    return { status: response.status, messages: (JSON.parse(text).errors ?? []).map((e: { message: string }) => e.message) }
  } catch {
    return { status: response.status, messages: [text] }
  }
}

const sseClient = (options: { key: string; singleConnection: boolean; path: string }) => {
  const client: SseClient = createSseClient({
    url: `${base}/${WEBHOOK_ID}${options.path}`,
    headers: { 'x-user-key': options.key },
    singleConnection: options.singleConnection,
    retryAttempts: 0,
  } as Parameters<typeof createSseClient>[0])
  cleanups.push(() => client.dispose())
  return client
}

describe.each([
  // A request the server refuses before executing it: graphql-sse's handler answers 400 with the
  // errors; yoga's own SSE streams them as a result.
  ['single connection mode on /graphql/stream', true, '/graphql/stream', 400],
  ['distinct connections mode on /graphql/stream', false, '/graphql/stream', 400],
  ['distinct connections mode on /graphql', false, '/graphql', 200],
])('conversationSignals over graphql-sse, %s', (_name, singleConnection, path, requestErrorStatus) => {
  it('delivers every signal of the conversation to a participant', async () => {
    const client = sseClient({ key: alice.key, singleConnection, path })
    const { collected, sink } = collector()
    client.subscribe({ query: SIGNALS, variables: { id: 'c1' } }, sink)
    await subscribed()
    await driveEverySignal(collected)
  })

  it('unsubscribing releases the server-side subscription, and so does disposing the client', async () => {
    const client = sseClient({ key: alice.key, singleConnection, path })
    const first = collector()
    const unsubscribe = client.subscribe({ query: SIGNALS, variables: { id: 'c1' } }, first.sink)
    await subscribed()
    unsubscribe()
    await unsubscribed()
    expect(first.collected.results).toEqual([])
    expect(first.collected.errors).toEqual([])
    const second = collector()
    client.subscribe({ query: SIGNALS, variables: { id: 'c1' } }, second.sink)
    await subscribed()
    client.dispose()
    await unsubscribed()
    expect(second.collected.results).toEqual([])
  })

  it('answers a non-participant with a Forbidden error for the subscription, then completes it', async () => {
    const client = sseClient({ key: bob.key, singleConnection, path })
    const { collected, sink } = collector()
    client.subscribe({ query: SIGNALS, variables: { id: 'c1' } }, sink)
    await vi.waitFor(() => expect(collected.completed || collected.errors.length > 0).toBe(true), { timeout: 5_000 })
    expect(collected.errors.map(describeClientError)).toEqual([])
    // graphql-sse's handler only relays a result that has `data`, so there a refused subscription
    // says `data: null`; yoga's own SSE sends the result as graphql-js made it.
    expect(collected.results).toEqual([
      {
        ...(path.endsWith('/stream') ? { data: null } : {}),
        errors: [
          {
            message: 'user "bob" is not a participant of conversation "c1"',
            locations: [expect.any(Object)],
            path: ['conversationSignals'],
            extensions: { type: 'Forbidden', status: 403, requestId: expect.any(String) },
          },
        ],
      },
    ])
    expect(collected.completed).toBe(true)
    expect(t.app.signals.activeSubscriptions()).toBe(baseline)
  })

  it.each([
    ['an invalid document', 'subscription { nope }', 'Cannot query field "nope" on type "Subscription".'],
    ['too deep', DEEP_SUBSCRIPTION, 'Syntax Error: Query depth limit of 12 exceeded, found 15.'],
    ['too many tokens', TOKEN_HEAVY_SUBSCRIPTION, 'Syntax Error: Token limit of 2000 exceeded.'],
  ])('refuses a subscription that is %s with an error naming why', async (_what, query, message) => {
    const client = sseClient({ key: alice.key, singleConnection, path })
    const { collected, sink } = collector()
    client.subscribe({ query, variables: { id: 'c1' } }, sink)
    await vi.waitFor(() => expect(collected.completed || collected.errors.length > 0).toBe(true), { timeout: 5_000 })
    // In single connection mode the client aborts the refused request, so only its status can be read.
    expect(await refusalOf(collected)).toEqual({
      status: requestErrorStatus,
      messages: singleConnection ? expect.anything() : [message],
    })
    expect(t.app.signals.activeSubscriptions()).toBe(baseline)
  })

  it('refuses an invalid key with 401 Unauthorized', async () => {
    const client = sseClient({ key: 'not-a-jwt', singleConnection, path })
    const { collected, sink } = collector()
    client.subscribe({ query: SIGNALS, variables: { id: 'c1' } }, sink)
    await vi.waitFor(() => expect(collected.completed || collected.errors.length > 0).toBe(true), { timeout: 5_000 })
    expect(collected.results).toEqual([])
    expect(collected.errors.map(describeClientError)).toEqual(['HTTP 401'])
    expect(t.app.signals.activeSubscriptions()).toBe(baseline)
  })
})

// ---------------------------------------------------------------------------------------------
// yoga's own SSE: POST with Accept: text/event-stream, in-process
// ---------------------------------------------------------------------------------------------

/** Reads `event: next` results of a yoga SSE response as they come; `cancel` ends the stream from the client side. */
function readSse(response: Response) {
  const collected: Collected = { results: [], errors: [], completed: false }
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  const done = (async () => {
    let buffer = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      buffer += decoder.decode(value, { stream: true })
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const lines = buffer.slice(0, end).split('\n')
        buffer = buffer.slice(end + 2)
        const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n')
        if (lines.includes('event: next')) collected.results.push(JSON.parse(data))
        if (lines.includes('event: complete')) collected.completed = true
      }
    }
  })().catch((error: unknown) => void collected.errors.push(error))
  return { collected, done, cancel: () => reader.cancel() }
}

const yogaSse = (key: string, conversationId = 'c1') =>
  t.app.fetch(
    new Request(`${BASE}/${WEBHOOK_ID}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-user-key': key },
      body: JSON.stringify({ query: SIGNALS, variables: { id: conversationId } }),
    }),
  )

describe("conversationSignals over yoga's SSE (POST, Accept: text/event-stream)", () => {
  it('delivers every signal of the conversation to a participant', async () => {
    const response = await yogaSse(alice.key)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const stream = readSse(response)
    cleanups.push(() => stream.cancel())
    await subscribed()
    await driveEverySignal(stream.collected)
  })

  it('cancelling the response stream releases the server-side subscription', async () => {
    const stream = readSse(await yogaSse(alice.key))
    await subscribed()
    await stream.cancel()
    await unsubscribed()
    await stream.done
    expect(stream.collected.errors).toEqual([])
  })

  it('answers a non-participant with a Forbidden error, then completes', async () => {
    const response = await yogaSse(bob.key)
    // A refusal is the caller's fault, as a query's field error is (200 with the error in the body), not a 5xx.
    expect(response.status).toBe(200)
    const stream = readSse(response)
    await stream.done
    expect(stream.collected.results).toEqual([
      {
        errors: [
          {
            message: 'user "bob" is not a participant of conversation "c1"',
            locations: [expect.any(Object)],
            path: ['conversationSignals'],
            extensions: { type: 'Forbidden', status: 403, requestId: response.headers.get('x-request-id') },
          },
        ],
      },
    ])
    expect(stream.collected.completed).toBe(true)
    expect(t.app.signals.activeSubscriptions()).toBe(baseline)
  })

  it('refuses an invalid key with 401 Unauthorized', async () => {
    const response = await yogaSse('not-a-jwt')
    expect(response.status).toBe(401)
    const stream = readSse(response)
    await stream.done
    expect(stream.collected.results).toEqual([
      {
        errors: [
          {
            message: 'the user key is not valid for this chat integration',
            extensions: { type: 'Unauthorized', status: 401, requestId: response.headers.get('x-request-id') },
          },
        ],
      },
    ])
    expect(t.app.signals.activeSubscriptions()).toBe(baseline)
  })
})

// ---------------------------------------------------------------------------------------------
// The typed @oneOf payload input, read back live
// ---------------------------------------------------------------------------------------------

describe('createMessage with the @oneOf MessagePayloadInput, read back through the subscription', () => {
  it('delivers the card with its typed fields, and its extras in rawPayload', async () => {
    const client = wsClient(alice.key)
    const { collected, sink } = collector()
    client.subscribe(
      {
        query: /* GraphQL */ `
          subscription ($id: String!) {
            conversationSignals(conversationId: $id) {
              ... on MessageCreatedSignal {
                isBot
                message {
                  messageId
                  author { userId }
                  payload {
                    __typename
                    ... on CardPayload { type title subtitle imageUrl actions { action label value } }
                  }
                  rawPayload
                  metadata
                }
              }
            }
          }
        `,
        variables: { id: 'c1' },
      },
      sink,
    )
    await subscribed()

    const created = await t.graphql(
      /* GraphQL */ `
        mutation ($input: CreateMessageInput!) {
          createMessage(input: $input) { message { messageId } }
        }
      `,
      {
        input: {
          conversationId: 'c1',
          metadata: { source: 'typed' },
          payload: {
            card: {
              title: 'Pick one',
              actions: [
                { action: 'postback', label: 'Yes', value: 'yes', extra: { color: 'green' } },
                { action: 'url', label: 'Docs', value: 'https://example.com/docs' },
              ],
              extra: { footer: 'kept', nested: { a: [1, null, 'x'] } },
            },
          },
        },
      },
      { key: alice.key },
    )
    expect(created.status).toBe(200)
    expect(created.body.errors).toBeUndefined()
    const messageId: string = created.body.data.createMessage.message.messageId

    await vi.waitFor(() => expect(collected.results.length).toBeGreaterThanOrEqual(1), { timeout: 5_000 })
    expect(collected.results[0]).toEqual({
      data: {
        conversationSignals: {
          isBot: false,
          message: {
            messageId,
            author: { userId: 'alice' },
            payload: {
              __typename: 'CardPayload',
              type: 'card',
              title: 'Pick one',
              subtitle: null,
              imageUrl: null,
              actions: [
                { action: 'postback', label: 'Yes', value: 'yes' },
                { action: 'url', label: 'Docs', value: 'https://example.com/docs' },
              ],
            },
            rawPayload: {
              type: 'card',
              title: 'Pick one',
              actions: [
                { action: 'postback', label: 'Yes', value: 'yes', color: 'green' },
                { action: 'url', label: 'Docs', value: 'https://example.com/docs' },
              ],
              footer: 'kept',
              nested: { a: [1, null, 'x'] },
            },
            metadata: { source: 'typed' },
          },
        },
      },
    })
  })

  it('refuses a payload naming two kinds, and nothing is signalled', async () => {
    const stream = readSse(await yogaSse(alice.key))
    cleanups.push(() => stream.cancel())
    await subscribed()
    const created = await t.graphql(
      /* GraphQL */ `
        mutation ($input: CreateMessageInput!) {
          createMessage(input: $input) { message { messageId } }
        }
      `,
      { input: { conversationId: 'c1', payload: { text: { text: 'a' }, markdown: { markdown: 'b' } } } },
      { key: alice.key },
    )
    expect(created.body).toEqual({
      errors: [
        expect.objectContaining({
          message: expect.stringContaining('Exactly one key must be specified for OneOf type "MessagePayloadInput"'),
        }),
      ],
    })
    // A message posted afterwards is the first thing the subscription hears.
    const posted = await t.chat('POST', '/messages', {
      key: alice.key,
      body: { conversationId: 'c1', payload: { type: 'text', text: 'after' } },
    })
    await vi.waitFor(() => expect(stream.collected.results.length).toBeGreaterThanOrEqual(1), { timeout: 5_000 })
    expect(stream.collected.results[0].data.conversationSignals).toEqual(
      textMessage(posted.body.message.id, 'after', 'alice', false),
    )
  })
})

// ---------------------------------------------------------------------------------------------
// A client that drops its stream, against a server in its own process (as src/main.ts runs it)
// ---------------------------------------------------------------------------------------------

/** The harness app behind a real HTTP server, mounted as src/main.ts mounts it, in a child process. */
const CHILD_SERVER = `
import { createServer } from 'node:http'
import { createServerAdapter } from '@whatwg-node/server'
import { createTestApp } from './test/helpers/app.ts'
const t = createTestApp()
const alice = await t.user('alice')
await t.conversation(alice.key, 'c1')
const server = createServer(createServerAdapter(t.app.fetch))
t.app.attach(server)
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: server.address().port, key: alice.key }) + '\\n')
})
`

describe('a client dropping its subscription stream does not take the server down', () => {
  let child: ChildProcess
  let exited: Promise<number | null>
  let url: string
  let key: string
  let stderr: string

  beforeEach(async () => {
    child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD_SERVER], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    stderr = ''
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)))
    const started = await new Promise<{ port: number; key: string }>((resolve, reject) => {
      let out = ''
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk
        const line = out.split('\n')[0]
        if (out.includes('\n') && line) resolve(JSON.parse(line))
      })
      void exited.then((code) => reject(new Error(`the server exited with ${code} before listening`)))
    })
    url = `http://127.0.0.1:${started.port}/${WEBHOOK_ID}`
    key = started.key
  }, 30_000)

  afterEach(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await exited
    }
  })

  /** Gives the server a moment to handle the dropped connection, then checks it still serves. */
  async function expectStillServing() {
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 1_000))])
    expect(child.exitCode, `the server exited; its stderr:\n${stderr}`).toBeNull()
    const health = await fetch(`${url.replace(`/${WEBHOOK_ID}`, '')}/healthz`)
    expect(health.status).toBe(200)
  }

  const subscribeBody = JSON.stringify({ query: SIGNALS, variables: { id: 'c1' } })

  it("yoga's SSE on /graphql", async () => {
    const abort = new AbortController()
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      signal: abort.signal,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-user-key': key },
      body: subscribeBody,
    })
    expect(response.status).toBe(200)
    await response.body?.getReader().read()
    abort.abort()
    await expectStillServing()
  })

  it('graphql-sse distinct connections mode on /graphql/stream', async () => {
    const abort = new AbortController()
    const response = await fetch(`${url}/graphql/stream`, {
      method: 'POST',
      signal: abort.signal,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-user-key': key },
      body: subscribeBody,
    })
    expect(response.status).toBe(200)
    await response.body?.getReader().read()
    abort.abort()
    await expectStillServing()
  })

  it('graphql-sse single connection mode: the reserved event stream of /graphql/stream', async () => {
    const reserved = await fetch(`${url}/graphql/stream`, { method: 'PUT', headers: { 'x-user-key': key } })
    expect(reserved.status).toBe(201)
    const token = await reserved.text()
    const abort = new AbortController()
    const stream = await fetch(`${url}/graphql/stream`, {
      signal: abort.signal,
      headers: { accept: 'text/event-stream', 'x-graphql-event-stream-token': token, 'x-user-key': key },
    })
    expect(stream.status).toBe(200)
    const operation = await fetch(`${url}/graphql/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-graphql-event-stream-token': token, 'x-user-key': key },
      body: JSON.stringify({ query: SIGNALS, variables: { id: 'c1' }, extensions: { operationId: 'op1' } }),
    })
    expect(operation.status).toBe(202)
    abort.abort()
    await expectStillServing()
  })
})
