import { Client as ChatClient } from '@botpress/chat'
import { Client } from '@botpress/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, ENCRYPTION_KEY, iso, OTHER, type TestApp, WORKSPACE_ID } from '../helpers/app.ts'
import { serve, type Served } from '../helpers/listening.ts'
import { type Call, jsonCaller } from '../helpers/agent-api.ts'
import { SseReader } from '../helpers/sse.ts'
import { eventually } from '../helpers/wait.ts'
import { logsOf, type Receiver, setBot, startReceiver, webhookBotApp } from '../bots/receiver.ts'
import { signUserKey } from '../../src/auth/user-key.ts'

// Agents (docs/guides/handoff.md) through the real HTTP server: an administrator makes them, each
// with its own key; they claim what the bot handed off (hitl:startHitl), answer the user as
// themselves, keep notes the user never sees, transfer, and give the conversation back to the bot,
// which is told hitl:hitlAssigned and hitl:hitlStopped. Each credential opens its own API only.

let t: TestApp
let served: Served
let receiver: Receiver
let botId: string
let botKey: string
let bot: Client
let alice: Awaited<ReturnType<typeof ChatClient.connect>>
const agents: Record<'ada' | 'bo' | 'sue' | 'stranger', { id: string; key: string }> = {} as never

const text = (value: string) => ({ type: 'text' as const, text: value })
const hitlEvents = () =>
  receiver.received.filter((r) => String(r.json.type).startsWith('hitl:')).map((r) => ({ type: r.json.type, payload: r.json.data.payload }))

const call: Call = (...args) => jsonCaller(served.baseUrl)(...args)
const asAgent = (who: keyof typeof agents, method: string, path: string, body?: unknown) => call(agents[who].key, method, `/v1/agent${path}`, body)
const c1 = () => `/bots/${botId}/conversations/c1`

async function createAgent(name: string, role?: string, admin = { token: ADMIN_TOKEN, workspaceId: WORKSPACE_ID }) {
  const res = await call(admin.token, 'POST', '/v1/admin/agents', { name, ...(role ? { role } : {}) }, { 'x-workspace-id': admin.workspaceId })
  expect(res.status).toBe(200)
  return { id: res.body.agent.id as string, key: res.body.key as string }
}

beforeAll(async () => {
  receiver = await startReceiver((request) =>
    request.json.type === 'message' ? { status: 200, body: { messages: [{ payload: text(`bot: ${request.json.data.payload.text}`) }] } } : { status: 200 },
  )
  ;({ t, botId } = await webhookBotApp({ url: receiver.url }))
  served = await serve(t)
  await t.otherTenant()
  const admin = new Client({ apiUrl: served.baseUrl, token: ADMIN_TOKEN, workspaceId: WORKSPACE_ID })
  botKey = (await admin.createBotApiKey({ botId, note: 'agents test' })).value
  bot = new Client({ apiUrl: served.baseUrl, token: botKey, botId, retry: { retries: 0 } })
  alice = await ChatClient.connect({ apiUrl: served.apiUrl, userId: 'alice' })
  await alice.createConversation({ id: 'c1' })
  agents.ada = await createAgent('Ada')
  agents.bo = await createAgent('Bo')
  agents.sue = await createAgent('Sue', 'supervisor')
  agents.stranger = await createAgent('Stranger', 'supervisor', { token: OTHER.adminToken, workspaceId: OTHER.workspaceId })
}, 60_000)

afterAll(async () => {
  await served?.close()
  await t?.close()
  await receiver?.close()
})

describe('createAgent, listAgents, deleteAgent (admin)', () => {
  it('shows the key once, lists agents without it, and refuses a blank name or an unknown role', async () => {
    expect(agents.ada.key).toMatch(/^agk_[A-Za-z0-9_-]{43}$/)
    const listed = await call(ADMIN_TOKEN, 'GET', '/v1/admin/agents', undefined, { 'x-workspace-id': WORKSPACE_ID })
    expect(listed).toEqual({
      status: 200,
      body: {
        agents: [
          { id: agents.ada.id, name: 'Ada', role: 'agent', createdAt: iso, updatedAt: iso },
          { id: agents.bo.id, name: 'Bo', role: 'agent', createdAt: iso, updatedAt: iso },
          { id: agents.sue.id, name: 'Sue', role: 'supervisor', createdAt: iso, updatedAt: iso },
        ],
      },
    })
    for (const body of [{ name: '  ' }, { name: 'x', role: 'owner' }]) {
      const res = await call(ADMIN_TOKEN, 'POST', '/v1/admin/agents', body, { 'x-workspace-id': WORKSPACE_ID })
      expect(res).toMatchObject({ status: 400, body: { code: 400, type: 'InvalidPayload' } })
    }
    const temp = await createAgent('Temp')
    expect((await call(ADMIN_TOKEN, 'DELETE', `/v1/admin/agents/${temp.id}`, {}, { 'x-workspace-id': WORKSPACE_ID })).status).toBe(200)
    expect((await call(temp.key, 'GET', '/v1/agent/queue')).status).toBe(401)
    expect((await call(ADMIN_TOKEN, 'DELETE', `/v1/admin/agents/${temp.id}`, {}, { 'x-workspace-id': WORKSPACE_ID })).status).toBe(404)
  })
})

describe('credentials: each opens its own API only', () => {
  it('a user key, a bot API key and an admin token cannot act as an agent (401)', async () => {
    const userKey = await signUserKey('alice', ENCRYPTION_KEY)
    for (const key of [undefined, userKey, botKey, ADMIN_TOKEN, 'agk_not-a-key']) {
      expect(await call(key, 'GET', '/v1/agent/queue')).toMatchObject({ status: 401, body: { code: 401, type: 'Unauthorized' } })
    }
    expect((await call(undefined, 'GET', '/v1/agent/queue', undefined, { 'x-user-key': userKey })).status).toBe(401)
  })

  it('an agent key cannot act as an admin, a bot or a user (401)', async () => {
    const key = agents.sue.key
    expect((await call(key, 'GET', '/v1/admin/bots', undefined, { 'x-workspace-id': WORKSPACE_ID })).status).toBe(401)
    expect((await call(key, 'GET', '/v1/chat/conversations', undefined, { 'x-bot-id': botId })).status).toBe(401)
    expect((await call(undefined, 'GET', '/test-webhook/users/me', undefined, { 'x-user-key': key })).status).toBe(401)
  })
})

describe('the whole path: startHitl → queue → claim → reply → skip the bot → transfer → release → hitlStopped', () => {
  it('runs on the real server, each step asserted', async () => {
    const feed = await fetch(`${served.baseUrl}/v1/agent/queue/listen`, { headers: { authorization: `Bearer ${agents.ada.key}` } })
    expect(feed.status).toBe(200)
    const updates = new SseReader(feed.body as ReadableStream<Uint8Array>)
    const nextUpdate = async () => JSON.parse((await updates.message((b) => !b.data?.includes('handoff_changed')))?.data ?? 'null')

    await alice.createMessage({ conversationId: 'c1', payload: text('hello') })
    await eventually(async () => expect(receiver.received.some((r) => r.json.data?.payload?.text === 'hello')).toBe(true))
    expect(await asAgent('ada', 'GET', '/queue')).toEqual({ status: 200, body: { conversations: [] } })

    await bot.callAction({ type: 'hitl:startHitl', input: { userId: 'alice', title: 'Refund', conversationId: 'c1', messageHistory: [] } })
    expect(await nextUpdate()).toEqual({ type: 'handoff_changed', botId, conversationId: 'c1', handledBy: 'waiting', title: 'Refund' })
    expect(await asAgent('ada', 'GET', '/queue')).toEqual({
      status: 200,
      body: { conversations: [{ botId, id: 'c1', ownerId: 'alice', handledBy: 'waiting', title: 'Refund', handedOffAt: iso, createdAt: iso, updatedAt: iso }] },
    })
    // Another workspace's agent sees none of it, even as a supervisor.
    expect(await asAgent('stranger', 'GET', '/queue')).toEqual({ status: 200, body: { conversations: [] } })
    expect(await asAgent('stranger', 'GET', c1())).toMatchObject({ status: 404, body: { type: 'ResourceNotFound' } })
    expect(await asAgent('stranger', 'POST', `${c1()}/claim`, {})).toMatchObject({ status: 404 })

    const claimed = await asAgent('ada', 'POST', `${c1()}/claim`, {})
    expect(claimed).toMatchObject({ status: 200, body: { conversation: { id: 'c1', handledBy: 'agent', agentId: agents.ada.id } } })
    expect(await asAgent('bo', 'POST', `${c1()}/claim`, {})).toMatchObject({ status: 404 })
    expect(await nextUpdate()).toEqual({
      type: 'handoff_changed',
      botId,
      conversationId: 'c1',
      handledBy: 'agent',
      agentId: agents.ada.id,
      agentName: 'Ada',
      title: 'Refund',
    })
    const adaUser = `agent:${agents.ada.id}`
    await eventually(() => expect(hitlEvents()).toEqual([{ type: 'hitl:hitlAssigned', payload: { conversationId: 'c1', userId: adaUser } }]))
    // The user sees a person join, by name.
    const { participants } = await alice.listParticipants({ conversationId: 'c1' })
    expect(participants).toContainEqual(expect.objectContaining({ id: adaUser, name: 'Ada' }))

    const reply = await asAgent('ada', 'POST', `${c1()}/messages`, { payload: text('Ada here, how can I help?') })
    expect(reply).toMatchObject({ status: 200, body: { message: { userId: adaUser, payload: text('Ada here, how can I help?') } } })
    expect((await alice.listMessages({ conversationId: 'c1' })).messages[0]).toMatchObject({ userId: adaUser, payload: text('Ada here, how can I help?') })

    const { message: mine } = await alice.createMessage({ conversationId: 'c1', payload: text('my order is late') })
    await eventually(async () =>
      expect((await logsOf(t)).map((l) => l.message)).toContain(
        `skipped message ${mine.id}: the conversation is handled by a person (agent), not delivered to the bot`,
      ),
    )
    const history = await asAgent('ada', 'GET', `${c1()}/messages`)
    expect(history.body.messages.slice(0, 2).map((m: { userId: string }) => m.userId)).toEqual(['alice', adaUser])

    expect(await asAgent('ada', 'POST', `${c1()}/notes`, { text: 'VIP customer' })).toMatchObject({
      status: 200,
      body: { note: { text: 'VIP customer', agentId: agents.ada.id } },
    })
    expect((await asAgent('sue', 'GET', `${c1()}/notes`)).body.notes.map((n: { text: string }) => n.text)).toEqual(['VIP customer'])
    expect(JSON.stringify((await alice.listMessages({ conversationId: 'c1' })).messages)).not.toContain('VIP customer')
    expect(await asAgent('ada', 'POST', `${c1()}/notes`, { text: '' })).toMatchObject({ status: 400, body: { type: 'InvalidPayload' } })

    // Bo neither sees nor acts on Ada's conversation.
    expect(await asAgent('bo', 'GET', `${c1()}/messages`)).toMatchObject({ status: 404 })
    expect(await asAgent('bo', 'POST', `${c1()}/messages`, { payload: text('hi') })).toMatchObject({ status: 404 })
    expect(await asAgent('bo', 'GET', '/conversations')).toEqual({ status: 200, body: { conversations: [] } })
    expect((await asAgent('ada', 'GET', '/conversations')).body.conversations.map((c: { id: string }) => c.id)).toEqual(['c1'])

    expect(await asAgent('ada', 'POST', `${c1()}/transfer`, { agentId: agents.bo.id })).toMatchObject({
      status: 200,
      body: { conversation: { agentId: agents.bo.id } },
    })
    // Ada's feed hears that another agent holds it, not whom.
    expect(await nextUpdate()).toEqual({ type: 'handoff_changed', botId, conversationId: 'c1', handledBy: 'agent' })
    const boUser = `agent:${agents.bo.id}`
    await eventually(() => expect(hitlEvents()).toContainEqual({ type: 'hitl:hitlAssigned', payload: { conversationId: 'c1', userId: boUser } }))
    expect(await asAgent('ada', 'POST', `${c1()}/messages`, { payload: text('still me') })).toMatchObject({ status: 404 })
    expect(await asAgent('bo', 'POST', `${c1()}/messages`, { payload: text('Bo takes over') })).toMatchObject({ status: 200 })

    expect(await asAgent('bo', 'POST', `${c1()}/release`, {})).toMatchObject({ status: 200, body: { conversation: { handledBy: 'bot' } } })
    expect(await nextUpdate()).toEqual({ type: 'handoff_changed', botId, conversationId: 'c1', handledBy: 'bot' })
    await eventually(() => expect(hitlEvents().at(-1)).toEqual({ type: 'hitl:hitlStopped', payload: { conversationId: 'c1' } }))
    expect((await alice.listParticipants({ conversationId: 'c1' })).participants.map((p) => p.id)).not.toContain(boUser)

    await alice.createMessage({ conversationId: 'c1', payload: text('thanks') })
    await eventually(async () =>
      expect((await alice.listMessages({ conversationId: 'c1' })).messages[0]).toMatchObject({ userId: botId, payload: text('bot: thanks') }),
    )
    expect(receiver.received.filter((r) => r.json.type === 'message').map((r) => r.json.data.payload.text)).toEqual(['hello', 'thanks'])
    await updates.cancel()
  })
})

describe('closeConversation and refusals', () => {
  it('closes a held conversation (the bot is told hitlStopped); an unheld one is 403, a bad body 400', async () => {
    await alice.createConversation({ id: 'c2' })
    const c2 = `/bots/${botId}/conversations/c2`
    expect(await asAgent('sue', 'POST', `${c2}/close`, {})).toMatchObject({ status: 403, body: { type: 'Forbidden' } })
    await bot.callAction({ type: 'hitl:startHitl', input: { userId: 'alice', conversationId: 'c2', messageHistory: [] } })
    expect(await asAgent('ada', 'POST', `${c2}/messages`, { payload: text('not yet claimed') })).toMatchObject({ status: 403, body: { type: 'Forbidden' } })
    expect(await asAgent('ada', 'POST', `${c2}/claim`, { extra: true })).toMatchObject({ status: 400, body: { type: 'InvalidPayload' } })
    expect(await asAgent('ada', 'POST', `${c2}/claim`, {})).toMatchObject({ status: 200 })
    expect(await asAgent('ada', 'POST', `${c2}/messages`, { payload: { type: 'nonsense' } })).toMatchObject({ status: 400, body: { type: 'InvalidPayload' } })
    expect(await asAgent('ada', 'POST', `${c2}/transfer`, { agentId: agents.stranger.id })).toMatchObject({ status: 404 })
    expect(await asAgent('ada', 'POST', `${c2}/close`, {})).toMatchObject({
      status: 200,
      body: { conversation: { handledBy: 'closed', agentId: agents.ada.id } },
    })
    await eventually(() => expect(hitlEvents()).toContainEqual({ type: 'hitl:hitlStopped', payload: { conversationId: 'c2' } }))
    // Closed: the bot answers again.
    await alice.createMessage({ conversationId: 'c2', payload: text('one more thing') })
    await eventually(async () =>
      expect((await alice.listMessages({ conversationId: 'c2' })).messages[0]).toMatchObject({ payload: text('bot: one more thing') }),
    )
  })
})

describe('the agent GraphQL endpoint (/v1/agent/graphql)', () => {
  const graphql = (key: string, query: string, variables: Record<string, unknown> = {}) => call(key, 'POST', '/v1/agent/graphql', { query, variables })

  it('answers the typed fields the REST routes run with an agent key, and 401 with an admin token', async () => {
    expect(await graphql(agents.ada.key, '{ me { id name role } queue { id } }')).toEqual({
      status: 200,
      body: { data: { me: { id: agents.ada.id, name: 'Ada', role: 'agent' }, queue: [] } },
    })
    expect(await call(agents.ada.key, 'GET', '/v1/agent/me')).toEqual({
      status: 200,
      body: { agent: { id: agents.ada.id, name: 'Ada', role: 'agent', createdAt: iso, updatedAt: iso } },
    })
    expect((await graphql(ADMIN_TOKEN, '{ queue { id } }')).status).toBe(401)
  })

  it('answers messages with the chat schema’s payload union, and a refusal in the documented error body', async () => {
    const history = await graphql(
      agents.sue.key,
      'query ($botId: String!, $id: String!) { history(botId: $botId, id: $id) { userId payload { __typename ... on TextPayload { text } } rawPayload } }',
      { botId, id: 'c1' },
    )
    expect(history.status).toBe(200)
    expect(history.body.data.history.at(-1)).toEqual({ userId: 'alice', payload: { __typename: 'TextPayload', text: 'hello' }, rawPayload: text('hello') })
    const hidden = await graphql(agents.stranger.key, 'query ($botId: String!) { conversation(botId: $botId, id: "c1") { id } }', { botId })
    expect(hidden).toMatchObject({
      status: 200,
      body: { data: null, errors: [{ path: ['conversation'], extensions: { type: 'ResourceNotFound', status: 404 } }] },
    })
    const blank = await graphql(agents.sue.key, 'mutation ($botId: String!) { addNote(input: { botId: $botId, id: "c1", text: " " }) { note { id } } }', {
      botId,
    })
    expect(blank).toMatchObject({ body: { errors: [{ path: ['addNote'], extensions: { type: 'InvalidPayload', status: 400 } }] } })
  })
})

describe('listenConversation (GET …/{id}/listen)', () => {
  it('streams the new messages of a conversation the agent may see, and is 404 for one it may not', async () => {
    await alice.createConversation({ id: 'c4' })
    await bot.callAction({ type: 'hitl:startHitl', input: { userId: 'alice', conversationId: 'c4', messageHistory: [] } })
    const c4 = `/v1/agent/bots/${botId}/conversations/c4`
    expect(await call(agents.stranger.key, 'GET', `${c4}/listen`)).toMatchObject({ status: 404, body: { type: 'ResourceNotFound' } })
    const res = await fetch(`${served.baseUrl}${c4}/listen`, { headers: { authorization: `Bearer ${agents.bo.key}` } })
    expect(res.status).toBe(200)
    const stream = new SseReader(res.body as ReadableStream<Uint8Array>)
    const { message } = await alice.createMessage({ conversationId: 'c4', payload: text('anyone there?') })
    expect(JSON.parse((await stream.message())?.data ?? 'null')).toEqual({
      id: message.id,
      conversationId: 'c4',
      userId: 'alice',
      payload: text('anyone there?'),
      createdAt: iso,
    })
    // Once another agent holds it, Bo no longer sees it: the stream ends.
    expect(await asAgent('ada', 'POST', `/bots/${botId}/conversations/c4/claim`, {})).toMatchObject({ status: 200 })
    expect(await stream.message()).toBeUndefined()
  })
})

describe('an @botpress/sdk bot (protocol botpress) is told as the SDK reads events', () => {
  it('gets hitl:hitlAssigned as an event_received of that type, its payload the interface’s', async () => {
    await setBot(t, botId, { protocol: 'botpress' })
    await alice.createConversation({ id: 'c3' })
    await bot.callAction({ type: 'hitl:startHitl', input: { userId: 'alice', conversationId: 'c3', messageHistory: [] } })
    expect(await asAgent('ada', 'POST', `/bots/${botId}/conversations/c3/claim`, {})).toMatchObject({ status: 200 })
    await eventually(() =>
      expect(receiver.received.map((r) => r.json.event).filter((e) => e?.conversationId === 'c3')).toEqual([
        expect.objectContaining({ type: 'hitl:hitlAssigned', payload: { conversationId: 'c3', userId: `agent:${agents.ada.id}` }, userId: 'alice' }),
      ]),
    )
    const request = receiver.received.find((r) => r.json.event?.conversationId === 'c3')
    expect(request?.headers['x-bp-type']).toBe('hitl:hitlAssigned')
  })
})
