import { Client as ChatClient } from '@botpress/chat'
import type { Client } from '@botpress/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { iso, OTHER } from '../helpers/app.ts'
import { type AgentKey, agentDesk, botClient, feedMessages } from '../helpers/agents.ts'
import { type Listening, PING, startListening } from '../helpers/listening.ts'
import { SseReader } from '../helpers/sse.ts'
import { eventually } from '../helpers/wait.ts'

// What the agent console needs of the agent API besides the operations of agents.test.ts, through
// the real HTTP server: who the agent is (getMe), its colleagues (listAgents, whom it may transfer
// to), typing shown to the user (startTyping, stopTyping), and the live feed of the conversations it
// holds (listenMyConversations).

let s: Listening
let desk: ReturnType<typeof agentDesk>
let bot: Client
let alice: Awaited<ReturnType<typeof ChatClient.connect>>
let ada: AgentKey
let bo: AgentKey
let sue: AgentKey
let stranger: AgentKey

const text = (value: string) => ({ type: 'text' as const, text: value })
const at = (id: string) => `/bots/${s.botId}/conversations/${id}`

/** A conversation of alice's, handed off by the bot: waiting in the queue. */
async function handedOff(id: string) {
  await alice.createConversation({ id })
  await bot.callAction({ type: 'hitl:startHitl', input: { userId: 'alice', conversationId: id, messageHistory: [] } })
}

/** An agent feed read message by message (pings skipped). */
async function feedOf(agent: AgentKey, path: string) {
  const baseline = s.t.app.signals.activeSubscriptions()
  const feed = feedMessages(await desk.listen(agent, path))
  // Subscribed: what happens from now on is heard.
  await eventually(() => expect(s.t.app.signals.activeSubscriptions()).toBe(baseline + 1))
  return feed
}

beforeAll(async () => {
  s = await startListening()
  desk = agentDesk(s.baseUrl)
  await s.t.otherTenant()
  bot = await botClient(s.baseUrl, s.botId)
  alice = await ChatClient.connect({ apiUrl: s.apiUrl, userId: 'alice' })
  ada = await desk.createAgent('Ada')
  bo = await desk.createAgent('Bo')
  sue = await desk.createAgent('Sue', 'supervisor')
  stranger = await desk.createAgent('Stranger', undefined, { token: OTHER.adminToken, workspaceId: OTHER.workspaceId })
}, 60_000)

afterAll(async () => {
  await s?.close()
})

describe('getMe (GET /v1/agent/me)', () => {
  it('answers the agent its key opens, without its key; no other credential opens it', async () => {
    expect(await desk.asAgent(sue, 'GET', '/me')).toEqual({
      status: 200,
      body: { agent: { id: sue.id, name: 'Sue', role: 'supervisor', createdAt: iso, updatedAt: iso } },
    })
    expect(await desk.call(OTHER.adminToken, 'GET', '/v1/agent/me')).toMatchObject({ status: 401, body: { type: 'Unauthorized' } })
  })
})

describe('listAgents (GET /v1/agent/agents)', () => {
  it("lists the workspace's agents, oldest first, never another workspace's nor any key", async () => {
    expect(await desk.asAgent(ada, 'GET', '/agents')).toEqual({
      status: 200,
      body: {
        agents: [
          { id: ada.id, name: 'Ada', role: 'agent', createdAt: iso, updatedAt: iso },
          { id: bo.id, name: 'Bo', role: 'agent', createdAt: iso, updatedAt: iso },
          { id: sue.id, name: 'Sue', role: 'supervisor', createdAt: iso, updatedAt: iso },
        ],
      },
    })
    expect(await desk.asAgent(stranger, 'GET', '/agents')).toEqual({
      status: 200,
      body: { agents: [{ id: stranger.id, name: 'Stranger', role: 'agent', createdAt: iso, updatedAt: iso }] },
    })
  })
})

describe('startTyping, stopTyping (POST, DELETE …/typing)', () => {
  it("tells the user's listeners the agent types, once it holds the conversation; refuses anyone else", async () => {
    await handedOff('t1')
    expect(await desk.asAgent(ada, 'POST', `${at('t1')}/typing`, {})).toMatchObject({ status: 403, body: { type: 'Forbidden' } })
    expect(await desk.asAgent(ada, 'POST', `${at('t1')}/claim`, {})).toMatchObject({ status: 200 })
    expect(await desk.asAgent(bo, 'POST', `${at('t1')}/typing`, {})).toMatchObject({ status: 404, body: { type: 'ResourceNotFound' } })
    expect(await desk.asAgent(stranger, 'POST', `${at('t1')}/typing`, {})).toMatchObject({ status: 404 })
    for (const timeout of [0, 1.5, 60_001, 'soon']) {
      expect(await desk.asAgent(ada, 'POST', `${at('t1')}/typing`, { timeout })).toMatchObject({ status: 400, body: { type: 'InvalidPayload' } })
    }

    const listen = await fetch(`${s.apiUrl}/conversations/t1/listen`, { headers: { 'x-user-key': alice.user.key } })
    expect(listen.status).toBe(200)
    const signals = new SseReader(listen.body as ReadableStream<Uint8Array>)
    const nextSignal = async () => JSON.parse((await signals.message((b) => b.data === PING))?.data ?? 'null')
    await eventually(async () => {
      expect(await desk.asAgent(ada, 'POST', `${at('t1')}/typing`, { timeout: 4000 })).toEqual({ status: 200, body: {} })
      expect(await nextSignal()).toEqual({ type: 'typing_started', data: { conversationId: 't1', userId: `agent:${ada.id}`, timeout: 4000 } })
    })
    expect(await desk.asAgent(ada, 'DELETE', `${at('t1')}/typing`)).toEqual({ status: 200, body: {} })
    expect(await nextSignal()).toEqual({ type: 'typing_stopped', data: { conversationId: 't1', userId: `agent:${ada.id}` } })
    expect(await desk.asAgent(ada, 'POST', `${at('t1')}/typing`, {})).toEqual({ status: 200, body: {} })
    expect(await nextSignal()).toEqual({ type: 'typing_started', data: { conversationId: 't1', userId: `agent:${ada.id}`, timeout: 5000 } })
    await signals.cancel()
  })
})

describe('listenMyConversations (GET /v1/agent/conversations/listen)', () => {
  it('hears the messages and the typing of the conversations the agent holds, from the moment it holds them', async () => {
    await handedOff('m1')
    await handedOff('m2')
    expect(await desk.asAgent(ada, 'POST', `${at('m1')}/claim`, {})).toMatchObject({ status: 200 })
    const adas = await feedOf(ada, '/conversations/listen')
    const bos = await feedOf(bo, '/conversations/listen')
    const sues = await feedOf(sue, '/conversations/listen')

    // m2 waits (nobody holds it): nobody's feed hears it; m1 is Ada's, and her supervisor's.
    await alice.createMessage({ conversationId: 'm2', payload: text('anyone?') })
    const { message } = await alice.createMessage({ conversationId: 'm1', payload: text('my order is late') })
    const heard = {
      type: 'message_created',
      botId: s.botId,
      conversationId: 'm1',
      message: { id: message.id, conversationId: 'm1', userId: 'alice', payload: text('my order is late'), createdAt: iso },
    }
    expect(await adas.next()).toEqual(heard)
    expect(await sues.next()).toEqual(heard)

    expect((await s.t.chat('POST', '/conversations/m1/typing', { key: alice.user.key, body: {} })).status).toBe(200)
    expect(await adas.next()).toEqual({ type: 'typing_started', botId: s.botId, conversationId: 'm1', userId: 'alice', timeout: 5000 })
    // Her own typing and her own message: the message only.
    expect(await desk.asAgent(ada, 'POST', `${at('m1')}/typing`, {})).toMatchObject({ status: 200 })
    expect(await desk.asAgent(ada, 'POST', `${at('m1')}/messages`, { payload: text('on it') })).toMatchObject({ status: 200 })
    expect(await adas.next()).toMatchObject({ type: 'message_created', conversationId: 'm1', message: { userId: `agent:${ada.id}` } })

    // Bo claims m2 after his feed opened: he hears it from then on; Ada does not.
    expect(await desk.asAgent(bo, 'POST', `${at('m2')}/claim`, {})).toMatchObject({ status: 200 })
    await alice.createMessage({ conversationId: 'm2', payload: text('hello Bo') })
    expect(await bos.next()).toMatchObject({ type: 'message_created', conversationId: 'm2', message: { payload: text('hello Bo') } })

    // Released, m1 is no longer Ada's: her feed hears nothing of it, but still of what she holds next.
    expect(await desk.asAgent(ada, 'POST', `${at('m1')}/release`, {})).toMatchObject({ status: 200 })
    await alice.createMessage({ conversationId: 'm1', payload: text('back to the bot') })
    await handedOff('m3')
    expect(await desk.asAgent(ada, 'POST', `${at('m3')}/claim`, {})).toMatchObject({ status: 200 })
    await alice.createMessage({ conversationId: 'm3', payload: text('third') })
    expect(await adas.next()).toMatchObject({ type: 'message_created', conversationId: 'm3', message: { payload: text('third') } })

    // The supervisor heard m1's and Bo's m2 in their order; the stranger's workspace is another's.
    const seen = [await sues.next(), await sues.next(), await sues.next(), await sues.next()]
    expect(seen.map((u) => [u.type, u.conversationId, u.message?.payload?.text ?? u.userId])).toEqual([
      ['typing_started', 'm1', 'alice'],
      ['typing_started', 'm1', `agent:${ada.id}`],
      ['message_created', 'm1', 'on it'],
      ['message_created', 'm2', 'hello Bo'],
    ])
    for (const feed of [adas, bos, sues]) await feed.close()
  })

  it('refuses any key but an agent’s (401)', async () => {
    expect((await fetch(`${s.baseUrl}/v1/agent/conversations/listen`, { headers: { authorization: `Bearer ${OTHER.adminToken}` } })).status).toBe(401)
  })
})

describe('the console’s fields on the agent GraphQL endpoint (/v1/agent/graphql)', () => {
  const graphql = (agent: AgentKey, query: string, variables: Record<string, unknown> = {}) => desk.asAgent(agent, 'POST', '/graphql', { query, variables })

  it('answers agents, the handoff’s description and messageHistory, and typing; refuses a typing timeout out of bounds', async () => {
    await alice.createConversation({ id: 'g1' })
    const messageHistory = [{ source: { type: 'user', userId: 'alice' }, type: 'text', payload: { text: 'hi' } }]
    await bot.callAction({ type: 'hitl:startHitl', input: { userId: 'alice', conversationId: 'g1', description: 'late order', messageHistory } })
    expect(await graphql(bo, '{ agents { name role } queue { id description messageHistory } }')).toEqual({
      status: 200,
      body: {
        data: {
          agents: [
            { name: 'Ada', role: 'agent' },
            { name: 'Bo', role: 'agent' },
            { name: 'Sue', role: 'supervisor' },
          ],
          queue: [{ id: 'g1', description: 'late order', messageHistory: null }],
        },
      },
    })
    const address = { botId: s.botId, id: 'g1' }
    expect(await graphql(bo, 'query ($botId: String!, $id: String!) { conversation(botId: $botId, id: $id) { description messageHistory } }', address)).toEqual(
      {
        status: 200,
        body: { data: { conversation: { description: 'late order', messageHistory } } },
      },
    )
    const typing =
      'mutation ($botId: String!, $id: String!, $timeout: Int) { startTyping(input: { botId: $botId, id: $id, timeout: $timeout }) { conversationId } }'
    expect(await graphql(bo, typing, address)).toMatchObject({ body: { errors: [{ path: ['startTyping'], extensions: { type: 'Forbidden', status: 403 } }] } })
    expect(await desk.asAgent(bo, 'POST', `${at('g1')}/claim`, {})).toMatchObject({ status: 200 })
    expect(await graphql(bo, typing, { ...address, timeout: 0 })).toMatchObject({ body: { errors: [{ extensions: { type: 'InvalidPayload', status: 400 } }] } })
    expect(await graphql(bo, typing, { ...address, timeout: 3000 })).toEqual({ status: 200, body: { data: { startTyping: { conversationId: 'g1' } } } })
    expect(await graphql(bo, 'mutation ($botId: String!, $id: String!) { stopTyping(input: { botId: $botId, id: $id }) { conversationId } }', address)).toEqual(
      { status: 200, body: { data: { stopTyping: { conversationId: 'g1' } } } },
    )
  })
})
