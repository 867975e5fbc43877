import { describe, expect, it } from 'vitest'
import { BASE, errorBody, iso, useTestApp, WEBHOOK_ID } from '../helpers/app.ts'
import { SseReader } from '../helpers/sse.ts'
import { initialize, type Signal } from '../helpers/webchat.ts'

// initialize — GET /{webhookId}/initialize[?conversationId=]: the official web chat's one stream.
// Its first message is `init` (conversation, messages newest first, participants, user with its
// userKey); the conversation's signals follow on the same stream. Its GraphQL twin is the
// `initialize` subscription.

describe('initialize', () => {
  const t = useTestApp()

  it('without a key creates the user and a conversation, and returns the key in init', async () => {
    const { response, init, sse } = await initialize(t)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(init).toEqual({
      type: 'init',
      data: {
        conversation: { id: expect.any(String), createdAt: iso, updatedAt: iso },
        messages: [],
        participants: [{ id: init!.data.user.id, createdAt: iso, updatedAt: iso }],
        user: { id: expect.any(String), createdAt: iso, updatedAt: iso, userKey: expect.any(String) },
      },
    })
    const key = init!.data.user.userKey as string
    const me = await t.chat('GET', '/users/me', { key })
    expect(me.body.user.id).toBe(init!.data.user.id)
    const conversations = await t.chat('GET', '/conversations', { key })
    expect(conversations.body.conversations.map((c: { id: string }) => c.id)).toEqual([init!.data.conversation.id])
    await sse!.cancel()
  })

  it('with a key and a conversation resumes it: its messages newest first, then its signals live', async () => {
    const first = await initialize(t)
    const key = first.init!.data.user.userKey as string
    const conversationId = first.init!.data.conversation.id as string
    const sent = await t.chat('POST', '/messages', {
      key,
      body: { conversationId, payload: { type: 'text', text: 'hi' }, metadata: { clientMessageId: 'local-1' } },
    })
    expect(sent.status).toBe(200)
    // In the bot's hands (processing) before the message itself, which comes back with its clientMessageId.
    const processing = await first.signal!()
    expect(processing).toEqual({ type: 'message_status_changed', data: { message: sent.body.message, oldStatus: 'pending', newStatus: 'processing' } })
    const created = await first.signal!()
    expect(created).toEqual({ type: 'message_created', data: { ...sent.body.message, isBot: false } })
    expect(created.data.metadata).toEqual({ clientMessageId: 'local-1' })
    // The bot joins and answers without the user's clientMessageId, and is done (processed).
    const later = [await first.signal!(), await first.signal!(), await first.signal!()]
    expect(later.map((s) => s.type)).toEqual(['participant_added', 'message_created', 'message_status_changed'])
    expect(later[0]?.data).toEqual({
      conversationId,
      participantId: t.tenant!.botId,
      participant: { id: t.tenant!.botId, name: expect.any(String), createdAt: iso, updatedAt: iso },
    })
    expect(later[1]?.data).toMatchObject({ isBot: true, userId: t.tenant!.botId, payload: { type: 'text', text: 'hi' } })
    expect(later[1]?.data.metadata?.clientMessageId).toBeUndefined()
    expect(later[2]?.data).toEqual({ message: sent.body.message, oldStatus: 'processing', newStatus: 'processed' })
    await first.sse!.cancel()

    const again = await initialize(t, { key, conversationId })
    expect(again.init!.data.conversation.id).toBe(conversationId)
    expect(again.init!.data.user.userKey).toBe(key)
    expect(again.init!.data.messages.map((m: { userId: string }) => m.userId)).toEqual([t.tenant!.botId, first.init!.data.user.id])
    expect(again.init!.data.participants.map((p: { id: string }) => p.id)).toEqual([first.init!.data.user.id, t.tenant!.botId])
    await again.sse!.cancel()
  })

  it('carries a bloc with its items as {type, payload}, as the web chat reads them, live and in init', async () => {
    const first = await initialize(t)
    const key = first.init!.data.user.userKey as string
    const conversationId = first.init!.data.conversation.id as string
    const items = [
      { type: 'text', text: 'first' },
      { type: 'image', imageUrl: 'https://files.test/a.png' },
    ]
    const asWebchat = {
      type: 'bloc',
      items: [
        { type: 'text', payload: { text: 'first' } },
        { type: 'image', payload: { imageUrl: 'https://files.test/a.png' } },
      ],
    }
    expect((await t.chat('POST', '/messages', { key, body: { conversationId, payload: { type: 'bloc', items } } })).status).toBe(200)
    const created: Signal[] = []
    while (created.length < 2) {
      const signal = await first.signal!()
      if (signal.type === 'message_created') created.push(signal)
    }
    // The user's bloc, then the echo bot's.
    expect(created.map((s) => s.data.payload)).toEqual([asWebchat, asWebchat])
    await first.sse!.cancel()
    const again = await initialize(t, { key, conversationId })
    expect(again.init!.data.messages.map((m: { payload: unknown }) => m.payload)).toEqual([asWebchat, asWebchat])
    await again.sse!.cancel()
    // The Chat API keeps them as they were sent.
    const listed = await t.chat('GET', `/conversations/${conversationId}/messages`, { key })
    expect(listed.body.messages[0].payload).toEqual({ type: 'bloc', items })
  })

  it('with a key and no conversation (or one that is gone) opens a new conversation for the same user', async () => {
    const first = await initialize(t)
    const key = first.init!.data.user.userKey as string
    await first.sse!.cancel()
    const fresh = await initialize(t, { key })
    expect(fresh.init!.data.user.id).toBe(first.init!.data.user.id)
    expect(fresh.init!.data.conversation.id).not.toBe(first.init!.data.conversation.id)
    await fresh.sse!.cancel()
    const gone = await initialize(t, { key, conversationId: 'no-such-conversation' })
    expect(gone.init!.data.conversation.id).not.toBe('no-such-conversation')
    await gone.sse!.cancel()
  })

  it("takes another user's conversation for one that does not exist (a new one of the caller's) and refuses an invalid key (401)", async () => {
    const alice = await initialize(t)
    await alice.sse!.cancel()
    const bob = await t.user('bob')
    const aliceConversation = alice.init!.data.conversation.id
    const other = await initialize(t, { key: bob.key, conversationId: aliceConversation })
    expect(other.response.status).toBe(200)
    expect(other.init!.data.conversation.id).not.toBe(aliceConversation)
    await other.sse!.cancel()
    expect(await t.participantIds(bob.key, other.init!.data.conversation.id)).toEqual(['bob'])
    const invalid = await initialize(t, { key: 'not-a-key' })
    expect(invalid.response.status).toBe(401)
    expect(invalid.body).toEqual(errorBody(401, 'Unauthorized'))
  })

  it('takes conversation_started and custom events with bindConversation/bindUser (POST /events)', async () => {
    const { init, sse } = await initialize(t)
    const key = init!.data.user.userKey as string
    const conversationId = init!.data.conversation.id as string
    const started = await t.chat('POST', '/events', { key, body: { conversationId, payload: { type: 'conversation_started', data: {} } } })
    expect(started.status).toBe(200)
    expect(started.body.event.payload).toEqual({ type: 'conversation_started', data: {} })
    const custom = await t.chat('POST', '/events', {
      key,
      body: { conversationId, payload: { type: 'custom', data: { page: '/pricing' } }, bindConversation: true, bindUser: true },
    })
    expect(custom.status).toBe(200)
    expect(custom.body.event.payload).toEqual({ type: 'custom', data: { page: '/pricing' } })
    await sse!.cancel()
  })

  it("carries the bot's typing (never the caller's own) and the bot's events as the web chat's signals", async () => {
    const { init, sse, signal } = await initialize(t)
    const key = init!.data.user.userKey as string
    const conversationId = init!.data.conversation.id as string
    await t.chat('POST', '/messages', { key, body: { conversationId, payload: { type: 'text', text: 'hi' } } })
    // processing, the message, the bot joining, its answer, processed.
    for (let i = 0; i < 5; i++) await signal!()
    const bot = await t.keyFor(t.tenant!.botId)

    expect(await t.chat('POST', `/conversations/${conversationId}/typing`, { key, body: {} })).toMatchObject({ status: 200, body: {} })
    expect(await t.chat('POST', `/conversations/${conversationId}/typing`, { key: bot, body: { timeout: 3000 } })).toMatchObject({ status: 200 })
    expect(await signal!()).toEqual({ type: 'typing_started', data: { conversationId, userId: t.tenant!.botId, timeout: 3000 } })
    expect(await t.chat('DELETE', `/conversations/${conversationId}/typing`, { key: bot })).toMatchObject({ status: 200, body: {} })
    expect(await signal!()).toEqual({ type: 'typing_stopped', data: { conversationId, userId: t.tenant!.botId } })

    await t.chat('POST', '/events', { key: bot, body: { conversationId, payload: { type: 'webchat_visibility', visibility: 'show' } } })
    expect(await signal!()).toEqual({ type: 'webchat_visibility', data: { visibility: 'show' } })
    await t.chat('POST', '/events', { key: bot, body: { conversationId, payload: { type: 'webchat_config', config: { botName: 'B' } } } })
    expect(await signal!()).toEqual({ type: 'webchat_config', data: { config: { botName: 'B' } } })
    await t.chat('POST', '/events', { key: bot, body: { conversationId, payload: { type: 'promo', code: 'X' } } })
    expect(await signal!()).toEqual({ type: 'custom', data: { event: { type: 'promo', code: 'X' } } })

    const tooLong = await t.chat('POST', `/conversations/${conversationId}/typing`, { key, body: { timeout: 600_000 } })
    expect(tooLong).toMatchObject({
      status: 400,
      body: { ...errorBody(400, 'InvalidPayload'), message: 'timeout: expected a number at most 60000, got the number 600000' },
    })
    const outsider = await t.user('mallory')
    const forbidden = await t.chat('POST', `/conversations/${conversationId}/typing`, { key: outsider.key, body: {} })
    expect(forbidden).toMatchObject({ status: 404, body: errorBody(404, 'ResourceNotFound') })
    await sse!.cancel()
  })

  it("carries the bot's message stream: its deltas, message_stream_complete, then the final message_created; or its abort", async () => {
    const { init, sse, signal } = await initialize(t)
    const conversationId = init!.data.conversation.id as string
    const botId = t.tenant!.botId
    const created = await t.admin('POST', '/bots/baks', { body: { botId, note: 'initialize stream' } })
    const botApi = (path: string, body: unknown) =>
      t.send('POST', `${BASE}/v1/chat${path}`, { headers: { authorization: `Bearer ${created.body.value}`, 'x-bot-id': botId }, body })
    const publish = async (signal: Record<string, unknown>) =>
      expect((await botApi('/actions', { type: 'chat:publishMessageStream', input: { conversationId, signal } })).status).toBe(200)
    const delta = (streamId: string, sequence: number, text: string) => ({
      type: 'delta',
      streamId,
      createdAt: '2026-07-01T10:00:00.000Z',
      sequence,
      delta: text,
    })

    await publish(delta('w1', 0, 'Hel'))
    await publish(delta('w1', 1, 'lo'))
    const posted = await botApi('/messages', { conversationId, userId: botId, type: 'text', payload: { text: 'Hello', metadata: { streamId: 'w1' } } })
    const message = {
      id: (await posted.json()).message.id,
      createdAt: iso,
      payload: { type: 'text', text: 'Hello' },
      userId: botId,
      conversationId,
      metadata: { streamId: 'w1' },
    }
    const streamDelta = (sequence: number, text: string) => ({
      type: 'message_stream_delta',
      data: { streamId: 'w1', conversationId, userId: botId, createdAt: '2026-07-01T10:00:00.000Z', sequence, delta: text },
    })
    expect(await signal!()).toEqual(streamDelta(0, 'Hel'))
    expect(await signal!()).toEqual(streamDelta(1, 'lo'))
    expect((await signal!()).type).toBe('participant_added')
    expect(await signal!()).toEqual({ type: 'message_stream_complete', data: { streamId: 'w1', message } })
    expect(await signal!()).toEqual({ type: 'message_created', data: { ...message, isBot: true } })

    await publish(delta('w2', 0, 'Hm'))
    await publish({ type: 'abort', streamId: 'w2' })
    expect((await signal!()).type).toBe('message_stream_delta')
    expect(await signal!()).toEqual({ type: 'message_stream_abort', data: { streamId: 'w2', conversationId } })
    await sse!.cancel()
  })

  it('is the initialize subscription in GraphQL, typing and statuses included', async () => {
    const { init, sse } = await initialize(t)
    await sse!.cancel()
    const key = init!.data.user.userKey as string
    const conversationId = init!.data.conversation.id as string
    const response = await t.send('POST', `${BASE}/${WEBHOOK_ID}/graphql`, {
      key,
      headers: { accept: 'text/event-stream' },
      body: {
        query: `subscription($id: String) { initialize(conversationId: $id) { __typename
          ... on InitSignal { conversation { conversationId } user { userId } userKey }
          ... on MessageStatusChangedSignal { newStatus message { metadata } }
          ... on MessageCreatedSignal { isBot } } }`,
        variables: { id: conversationId },
      },
    })
    expect(response.status).toBe(200)
    const reader = new SseReader(response.body!)
    const next = async () => JSON.parse((await reader.message((b) => b.event !== 'next'))!.data as string).data.initialize
    expect(await next()).toEqual({ __typename: 'InitSignal', conversation: { conversationId }, user: { userId: init!.data.user.id }, userKey: key })
    await t.chat('POST', '/messages', { key, body: { conversationId, payload: { type: 'text', text: 'hi' }, metadata: { clientMessageId: 'c' } } })
    expect(await next()).toEqual({ __typename: 'MessageStatusChangedSignal', newStatus: 'processing', message: { metadata: { clientMessageId: 'c' } } })
    expect(await next()).toEqual({ __typename: 'MessageCreatedSignal', isBot: false })
    await reader.cancel()
  })
})
