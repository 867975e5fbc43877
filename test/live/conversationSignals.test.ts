import { createClient as createSseClient } from 'graphql-sse'
import { createClient as createWsClient } from 'graphql-ws'
import { SignJWT } from 'jose'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { type Actor, BASE, useTestApp, WEBHOOK_ID } from '../helpers/app.ts'
import { subscribeOverSse } from '../helpers/graphql.ts'
import { type Served, serve } from '../helpers/listening.ts'
import { SseReader } from '../helpers/sse.ts'
import { eventually } from '../helpers/wait.ts'

// conversationSignals — the GraphQL twin of listenConversation — over each transport a GraphQL
// client may use: graphql-ws on a WebSocket, the graphql-sse protocol (both modes), and
// graphql-yoga's own SSE (POST with Accept: text/event-stream).

const SIGNALS = /* GraphQL */ `
  subscription Signals($id: String!) {
    conversationSignals(conversationId: $id) {
      __typename
      ... on MessageCreatedSignal {
        type
        isBot
        message { messageId userId conversationId createdAt rawPayload metadata payload { __typename ... on TextPayload { text } } author { userId } }
      }
      ... on MessageDeletedSignal { type messageId conversationId userId }
      ... on EventCreatedSignal { type isBot event { eventId userId conversationId payload user { userId } } }
      ... on ParticipantAddedSignal { type conversationId participantId }
      ... on ParticipantRemovedSignal { type conversationId participantId }
    }
  }
`

const DEEP = /* GraphQL */ `
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
const TOKEN_HEAVY = `subscription ($id: String!) { conversationSignals(conversationId: $id) { ${'__typename '.repeat(2000)} } }`

/** What a subscription delivered: its results, the transport's errors, whether it completed. */
interface Collected {
  results: any[]
  errors: unknown[]
  completed: boolean
}

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

interface Transport {
  /** Subscribes as the user of `key` (none when undefined); `stop` unsubscribes. */
  subscribe(key: string | undefined, query?: string, conversationId?: string): { collected: Collected; stop: () => unknown; response?: Promise<Response> }
  /** Whether a refused subscription's result says `data: null` (graphql-sse's handler only relays results with data). */
  refusalData: boolean
}

describe('conversationSignals', () => {
  const t = useTestApp()
  let served: Served
  let alice: Actor
  let bob: Actor
  let botId: string
  let baseline: number
  const cleanups: (() => unknown)[] = []
  beforeEach(async () => {
    served = await serve(t)
    botId = t.tenant!.botId
    alice = await t.user('alice', { name: 'Alice' })
    bob = await t.user('bob', { name: 'Bob' })
    await t.conversation(alice.key, 'c1')
    baseline = t.app.signals.activeSubscriptions()
  })
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
    await served.close()
  })

  const subscribed = (count = 1) => eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline + count))
  const unsubscribed = () => eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline))
  const settled = (collected: Collected) => eventually(() => expect(collected.completed || collected.errors.length > 0).toBe(true))

  const wsClient = (key: string | undefined, options: { webhookId?: string; onClosed?: (event: unknown) => void; lazy?: boolean } = {}) => {
    const client = createWsClient({
      // Lazy clients close their socket once no subscription is left; `lazy: false` keeps it open.
      lazy: options.lazy ?? true,
      url: `${served.wsUrl}/${options.webhookId ?? WEBHOOK_ID}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: key === undefined ? {} : { 'x-user-key': key },
      retryAttempts: 0,
      on: options.onClosed ? { closed: options.onClosed } : {},
    })
    cleanups.push(() => client.dispose())
    return client
  }

  const sseClient = (key: string | undefined, singleConnection: boolean, path: string) => {
    const client = createSseClient({
      url: `${served.baseUrl}/${WEBHOOK_ID}${path}`,
      headers: key === undefined ? {} : { 'x-user-key': key },
      singleConnection,
      retryAttempts: 0,
    } as Parameters<typeof createSseClient>[0])
    cleanups.push(() => client.dispose())
    return client
  }

  /** graphql-yoga's SSE, in-process: `event: next` results and `event: complete`, read as they come. */
  const yogaSse = (key: string | undefined, query = SIGNALS, conversationId = 'c1') => {
    const collected: Collected = { results: [], errors: [], completed: false }
    const opened = subscribeOverSse(t, key, query, { id: conversationId }).then((response) => ({ response, sse: new SseReader(response.body!) }))
    cleanups.push(async () => (await opened).sse.cancel())
    const reading = opened.then(async ({ sse }) => {
      for (let block = await sse.message(); block; block = await sse.message()) {
        if (block.event === 'next') collected.results.push(JSON.parse(block.data as string))
        if (block.event === 'complete') collected.completed = true
      }
    })
    reading.catch((error: unknown) => void collected.errors.push(error))
    return { collected, opened, reading }
  }

  const clientTransport = (make: (key: string | undefined) => ReturnType<typeof wsClient> | ReturnType<typeof sseClient>) => ({
    subscribe(key: string | undefined, query = SIGNALS, conversationId = 'c1') {
      const { collected, sink } = collector()
      const stop = make(key).subscribe({ query, variables: { id: conversationId } }, sink)
      return { collected, stop }
    },
  })

  const transports: [string, () => Transport][] = [
    ['graphql-ws (WebSocket)', () => ({ ...clientTransport((key) => wsClient(key)), refusalData: false })],
    [
      'graphql-sse, single connection mode, on /graphql/stream',
      () => ({ ...clientTransport((key) => sseClient(key, true, '/graphql/stream')), refusalData: true }),
    ],
    [
      'graphql-sse, distinct connections mode, on /graphql/stream',
      () => ({ ...clientTransport((key) => sseClient(key, false, '/graphql/stream')), refusalData: true }),
    ],
    ['graphql-sse, distinct connections mode, on /graphql', () => ({ ...clientTransport((key) => sseClient(key, false, '/graphql')), refusalData: false })],
    [
      "graphql-yoga's SSE (POST, Accept: text/event-stream)",
      () => ({
        subscribe(key: string | undefined, query?: string, conversationId?: string) {
          const { collected, opened } = yogaSse(key, query, conversationId)
          return { collected, stop: async () => (await opened).sse.cancel(), response: opened.then(({ response }) => response) }
        },
        refusalData: false,
      }),
    ],
  ]

  /**
   * Drives c1 through every kind of signal, waiting for each step's signals before the next, and
   * checks what the subscription delivered: alice's message and the echo bot's answer (the bot
   * joins first), alice's event and its echo, bob joining, the message deleted, bob leaving.
   */
  async function driveEverySignal(collected: Collected) {
    const received = (count: number) => eventually(() => expect(collected.results).toHaveLength(count))
    const message = await t.message(alice.key, 'c1', { type: 'text', text: 'hello' }, { m: 1 })
    await received(3)
    const botAnswer = signalsOf(collected)[2]?.message
    const messageSignal = (fields: object, isBot: boolean, author: string) => ({
      __typename: 'MessageCreatedSignal',
      type: 'message_created',
      isBot,
      message: {
        userId: author,
        conversationId: 'c1',
        rawPayload: { type: 'text', text: 'hello' },
        metadata: { m: 1 },
        payload: { __typename: 'TextPayload', text: 'hello' },
        author: { userId: author },
        ...fields,
      },
    })
    expect(signalsOf(collected)).toEqual([
      messageSignal({ messageId: message.id, createdAt: message.createdAt }, false, 'alice'),
      { __typename: 'ParticipantAddedSignal', type: 'participant_added', conversationId: 'c1', participantId: botId },
      messageSignal({ messageId: expect.any(String), createdAt: expect.any(String) }, true, botId),
    ])
    expect(botAnswer.messageId).not.toBe(message.id)

    const event = await t.event(alice.key, 'c1', { kind: 'ping' })
    await received(5)
    const eventSignal = (eventId: unknown, isBot: boolean, userId: string) => ({
      __typename: 'EventCreatedSignal',
      type: 'event_created',
      isBot,
      event: { eventId, userId, conversationId: 'c1', payload: { kind: 'ping' }, user: { userId } },
    })
    expect(signalsOf(collected).slice(3)).toEqual([eventSignal(event.id, false, 'alice'), eventSignal(expect.any(String), true, botId)])
    expect(signalsOf(collected)[4].event.eventId).not.toBe(event.id)

    expect((await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })).status).toBe(200)
    await received(6)
    expect((await t.chat('DELETE', `/messages/${message.id}`, { key: alice.key })).status).toBe(200)
    await received(7)
    expect((await t.chat('DELETE', '/conversations/c1/participants/bob', { key: alice.key })).status).toBe(200)
    await received(8)
    expect(signalsOf(collected).slice(5)).toEqual([
      { __typename: 'ParticipantAddedSignal', type: 'participant_added', conversationId: 'c1', participantId: 'bob' },
      { __typename: 'MessageDeletedSignal', type: 'message_deleted', messageId: message.id, conversationId: 'c1', userId: 'alice' },
      { __typename: 'ParticipantRemovedSignal', type: 'participant_removed', conversationId: 'c1', participantId: 'bob' },
    ])
    // Every result was data alone: no errors on the way, and the subscription goes on.
    expect(collected.results.every((result) => result.errors === undefined)).toBe(true)
    expect(collected.errors).toEqual([])
    expect(collected.completed).toBe(false)
  }

  describe.each(transports)('over %s', (_name, make) => {
    let transport: Transport
    beforeEach(() => {
      transport = make()
    })

    it('delivers every signal of the conversation to a participant', async () => {
      const { collected, response } = transport.subscribe(alice.key)
      await subscribed()
      const answered = await response
      if (answered) expect(answered.headers.get('content-type')).toMatch(/^text\/event-stream/)
      await driveEverySignal(collected)
    })

    it('releases the server-side subscription when the client unsubscribes', async () => {
      const { collected, stop } = transport.subscribe(alice.key)
      await subscribed()
      await stop()
      await unsubscribed()
      expect(collected.results).toEqual([])
      expect(collected.errors).toEqual([])
    })

    it.each([
      [
        'the subscriber is removed, after its own participant_removed',
        async () => {
          await t.chat('DELETE', '/conversations/c1/participants/bob', { key: alice.key })
          return [{ __typename: 'ParticipantRemovedSignal', type: 'participant_removed', conversationId: 'c1', participantId: 'bob' }]
        },
      ],
      [
        'the conversation is deleted',
        async () => {
          await t.chat('DELETE', '/conversations/c1', { key: alice.key })
          return []
        },
      ],
    ])('completes when %s', async (_when, end) => {
      await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })
      const { collected } = transport.subscribe(bob.key)
      await subscribed()
      const last = await end()
      await eventually(() => expect(collected.completed).toBe(true))
      expect(signalsOf(collected)).toEqual(last)
      expect(collected.errors).toEqual([])
      await unsubscribed()
    })

    it.each([
      [
        'a user who does not participate (as a conversation that does not exist)',
        () => bob.key,
        'c1',
        'Conversation "c1" does not exist',
        'ResourceNotFound',
        404,
      ],
      ['a conversation that does not exist', () => alice.key, 'nope', expect.any(String), 'ResourceNotFound', 404],
      ['a request without a user key', () => undefined, 'c1', 'the x-user-key header is required', 'Unauthorized', 401],
    ])('answers %s with an error for the subscription, then completes it, holding nothing', async (_what, key, conversationId, message, type, status) => {
      const { collected, response } = transport.subscribe(key(), SIGNALS, conversationId)
      await settled(collected)
      expect(collected.errors).toEqual([])
      // A refusal is the caller's fault, as a query's field error is: 200 with the error in the stream, not a 5xx.
      const answered = await response
      if (answered)
        expect({ status: answered.status, requestId: collected.results[0]?.errors?.[0]?.extensions.requestId }).toEqual({
          status: 200,
          requestId: answered.headers.get('x-request-id'),
        })
      expect(collected.results).toEqual([
        {
          ...(transport.refusalData ? { data: null } : {}),
          errors: [
            {
              message,
              locations: [expect.any(Object)],
              path: ['conversationSignals'],
              extensions: { type, status, requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
            },
          ],
        },
      ])
      expect(collected.completed).toBe(true)
      expect(t.app.signals.activeSubscriptions()).toBe(baseline)
    })
  })

  describe('refused before it starts', () => {
    const signed = (secret: string) => new SignJWT({ id: 'alice' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret))

    it.each([
      ['a key signed with another secret', () => signed('wrong-key'), WEBHOOK_ID],
      ['a key that is not a JWT', async () => 'not-a-jwt', WEBHOOK_ID],
      ['an unknown webhook id', async () => alice.key, 'no-such-webhook'],
    ])('graphql-ws closes the socket of a connection with %s with 4403', async (_name, key, webhookId) => {
      let closed: { code: number } | undefined
      const client = wsClient(await key(), { webhookId, onClosed: (event) => (closed = event as { code: number }) })
      const { collected, sink } = collector()
      client.subscribe({ query: SIGNALS, variables: { id: 'c1' } }, sink)
      await eventually(() => expect(collected.errors).toHaveLength(1))
      expect(closed?.code).toBe(4403)
      expect((collected.errors[0] as { code: number }).code).toBe(4403)
      expect(collected.results).toEqual([])
      expect(t.app.signals.activeSubscriptions()).toBe(baseline)
    })

    it.each([
      ['too deep', DEEP, 'Syntax Error: Query depth limit of 12 exceeded, found 15.'],
      ['too many tokens', TOKEN_HEAVY, 'Syntax Error: Token limit of 2000 exceeded.'],
    ])('graphql-ws refuses a subscription that is %s with an error, and the connection stays usable', async (_name, query, message) => {
      let closed: unknown
      const client = wsClient(alice.key, { lazy: false, onClosed: (event) => (closed = event) })
      const { collected, sink } = collector()
      client.subscribe({ query, variables: { id: 'c1' } }, sink)
      await settled(collected)
      expect(collected.results).toEqual([])
      expect(collected.errors).toEqual([[expect.objectContaining({ message })]])
      expect(closed).toBeUndefined()
      expect(t.app.signals.activeSubscriptions()).toBe(baseline)
      // The same socket still serves a legitimate subscription.
      const next = collector()
      client.subscribe({ query: SIGNALS, variables: { id: 'c1' } }, next.sink)
      await subscribed()
      const posted = await t.message(alice.key, 'c1', { type: 'text', text: 'still here' })
      await eventually(() => expect(signalsOf(next.collected)[0]?.message?.messageId).toBe(posted.id))
    })

    /** How a graphql-sse client learned that its subscription was refused: the HTTP status, and the GraphQL error messages it carried. */
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

    describe.each([
      // graphql-sse's handler answers a request it refuses before executing it with 400 and the
      // errors; yoga's own SSE (behind /graphql) streams them as a result.
      ['single connection mode on /graphql/stream', true, '/graphql/stream', 400],
      ['distinct connections mode on /graphql/stream', false, '/graphql/stream', 400],
      ['distinct connections mode on /graphql', false, '/graphql', 200],
    ])('graphql-sse, %s', (_name, singleConnection, path, requestErrorStatus) => {
      it.each([
        ['an invalid document', 'subscription { nope }', 'Cannot query field "nope" on type "Subscription".'],
        ['too deep', DEEP, 'Syntax Error: Query depth limit of 12 exceeded, found 15.'],
        ['too many tokens', TOKEN_HEAVY, 'Syntax Error: Token limit of 2000 exceeded.'],
      ])('refuses a subscription that is %s with an error naming why', async (_what, query, message) => {
        const { collected, sink } = collector()
        sseClient(alice.key, singleConnection, path).subscribe({ query, variables: { id: 'c1' } }, sink)
        await settled(collected)
        // In single connection mode the client aborts the refused request, so only its status can be read.
        expect(await refusalOf(collected)).toEqual({ status: requestErrorStatus, messages: singleConnection ? expect.anything() : [message] })
        expect(t.app.signals.activeSubscriptions()).toBe(baseline)
      })

      it('refuses an invalid key with HTTP 401', async () => {
        const { collected, sink } = collector()
        sseClient('not-a-jwt', singleConnection, path).subscribe({ query: SIGNALS, variables: { id: 'c1' } }, sink)
        await settled(collected)
        expect(collected.results).toEqual([])
        expect(collected.errors.map((error) => `HTTP ${(error as { response?: Response }).response?.status}`)).toEqual(['HTTP 401'])
        expect(t.app.signals.activeSubscriptions()).toBe(baseline)
      })
    })

    it("graphql-yoga's SSE refuses an invalid key with HTTP 401 and a JSON error body, not a stream", async () => {
      const response = await t.send('POST', `${BASE}/${WEBHOOK_ID}/graphql`, {
        key: 'not-a-jwt',
        headers: { accept: 'text/event-stream' },
        body: { query: SIGNALS, variables: { id: 'c1' } },
      })
      expect(response.status).toBe(401)
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
      expect(await response.json()).toEqual({
        errors: [
          {
            message: 'the user key is not valid for this chat integration',
            extensions: { type: 'Unauthorized', status: 401, requestId: response.headers.get('x-request-id') },
          },
        ],
      })
      expect(t.app.signals.activeSubscriptions()).toBe(baseline)
    })
  })

  describe('createMessage with the @oneOf MessagePayloadInput, heard live', () => {
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
                    payload { __typename ... on CardPayload { type title subtitle imageUrl actions { action label value } } }
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
      const card = {
        title: 'Pick one',
        actions: [
          { action: 'postback', label: 'Yes', value: 'yes', extra: { color: 'green' } },
          { action: 'url', label: 'Docs', value: 'https://example.com/docs' },
        ],
        extra: { footer: 'kept', nested: { a: [1, null, 'x'] } },
      }
      const created = await t.graphql(
        'mutation ($input: CreateMessageInput!) { createMessage(input: $input) { message { messageId } } }',
        { input: { conversationId: 'c1', metadata: { source: 'typed' }, payload: { card } } },
        { key: alice.key },
      )
      expect(created.body.errors).toBeUndefined()
      await eventually(() => expect(collected.results.length).toBeGreaterThanOrEqual(1))
      const actions = [
        { action: 'postback', label: 'Yes', value: 'yes' },
        { action: 'url', label: 'Docs', value: 'https://example.com/docs' },
      ]
      expect(collected.results[0]).toEqual({
        data: {
          conversationSignals: {
            isBot: false,
            message: {
              messageId: created.body.data.createMessage.message.messageId,
              payload: { __typename: 'CardPayload', type: 'card', title: 'Pick one', subtitle: null, imageUrl: null, actions },
              rawPayload: {
                type: 'card',
                title: 'Pick one',
                actions: [{ ...actions[0], color: 'green' }, actions[1]],
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
      const { collected } = yogaSse(alice.key)
      await subscribed()
      const refused = await t.graphql(
        'mutation ($input: CreateMessageInput!) { createMessage(input: $input) { message { messageId } } }',
        { input: { conversationId: 'c1', payload: { text: { text: 'a' }, markdown: { markdown: 'b' } } } },
        { key: alice.key },
      )
      expect(refused.body).toEqual({
        errors: [expect.objectContaining({ message: expect.stringContaining('Exactly one key must be specified for OneOf type "MessagePayloadInput"') })],
      })
      // A message posted afterwards is the first thing the subscription hears.
      const posted = await t.message(alice.key, 'c1', { type: 'text', text: 'after' })
      await eventually(() => expect(collected.results.length).toBeGreaterThanOrEqual(1))
      expect(signalsOf(collected)[0].message.messageId).toBe(posted.id)
    })
  })
})
