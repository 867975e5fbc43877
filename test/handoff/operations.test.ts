import { Client as ChatClient } from '@botpress/chat'
import { Client } from '@botpress/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, iso, type TestApp, WORKSPACE_ID } from '../helpers/app.ts'
import { type Call, createAgent, jsonCaller } from '../helpers/agent-api.ts'
import { capturedLog } from '../helpers/captured-log.ts'
import { rowsHolding } from '../helpers/every-row.ts'
import { serve, type Served } from '../helpers/listening.ts'
import { eventually } from '../helpers/wait.ts'
import { logsOf, type Receiver, startReceiver, webhookBotApp } from '../bots/receiver.ts'

// Handoff operations (issue 52, item 5; docs/guides/handoff.md) through the real HTTP server, on the
// suite's engine: what startHitl hands over is shown to agents, a user's custom events wait like its
// messages, every agent action is a log line, and deletion and export cover what agents wrote.

const captured = capturedLog('info')
let t: TestApp
let served: Served
let receiver: Receiver
let botId: string
let botKey: string
let bot: Client
let call: Call
const agents: Record<'ada' | 'bo' | 'sue', { id: string; key: string }> = {} as never

const text = (value: string) => ({ type: 'text' as const, text: value })
const agent = (who: keyof typeof agents, method: string, path: string, body?: unknown) => call(agents[who].key, method, `/v1/agent${path}`, body)
const at = (conversationId: string) => `/bots/${botId}/conversations/${conversationId}`
const admin = (method: string, path: string) =>
  call(ADMIN_TOKEN, method, `/v1/admin${path}`, method === 'GET' ? undefined : {}, { 'x-workspace-id': WORKSPACE_ID })
const startHitl = (input: Record<string, unknown>) => bot.callAction({ type: 'hitl:startHitl', input: { messageHistory: [], ...input } })
const users = new Map<string, ReturnType<typeof ChatClient.connect>>()
/** The user's client, made (and the user created) on first use. */
const connect = (userId: string) => {
  if (!users.has(userId)) users.set(userId, ChatClient.connect({ apiUrl: served.apiUrl, userId }))
  return users.get(userId) as ReturnType<typeof ChatClient.connect>
}

beforeAll(async () => {
  receiver = await startReceiver((request) =>
    request.json.type === 'message' ? { status: 200, body: { messages: [{ payload: text(`bot: ${request.json.data.payload.text}`) }] } } : { status: 200 },
  )
  ;({ t, botId } = await webhookBotApp({ url: receiver.url, log: captured.log }))
  served = await serve(t)
  call = jsonCaller(served.baseUrl)
  const botpress = new Client({ apiUrl: served.baseUrl, token: ADMIN_TOKEN, workspaceId: WORKSPACE_ID })
  botKey = (await botpress.createBotApiKey({ botId, note: 'operations test' })).value
  bot = new Client({ apiUrl: served.baseUrl, token: botKey, botId, retry: { retries: 0 } })
  agents.ada = await createAgent(call, 'Ada')
  agents.bo = await createAgent(call, 'Bo')
  agents.sue = await createAgent(call, 'Sue', 'supervisor')
}, 60_000)

afterAll(async () => {
  await served?.close()
  await t?.close()
  await receiver?.close()
})

describe("hitl:startHitl's description and messageHistory", () => {
  const history = [
    { source: { type: 'user', userId: 'alice' }, type: 'text', payload: { text: 'where is my parcel' } },
    { source: { type: 'bot' }, type: 'text', payload: { text: 'let me find a person' } },
  ]

  it('are kept while handed off: the description in the queue, both in the conversation; gone once the handoff ends', async () => {
    const alice = await connect('alice')
    await alice.createConversation({ id: 'd1' })
    await startHitl({ userId: 'alice', conversationId: 'd1', title: 'Parcel', description: 'late parcel, asked twice', messageHistory: history })

    const queued = { botId, id: 'd1', ownerId: 'alice', handledBy: 'waiting', title: 'Parcel', handedOffAt: iso, createdAt: iso, updatedAt: iso }
    expect(await agent('ada', 'GET', '/queue')).toEqual({ status: 200, body: { conversations: [{ ...queued, description: 'late parcel, asked twice' }] } })
    expect(await agent('ada', 'GET', at('d1'))).toEqual({
      status: 200,
      body: { conversation: { ...queued, description: 'late parcel, asked twice', messageHistory: history } },
    })

    expect((await agent('ada', 'POST', `${at('d1')}/claim`, {})).status).toBe(200)
    expect((await agent('ada', 'GET', at('d1'))).body.conversation).toMatchObject({ handledBy: 'agent', messageHistory: history })
    expect((await agent('ada', 'POST', `${at('d1')}/release`, {})).status).toBe(200)
    const released = (await agent('sue', 'GET', at('d1'))).body.conversation
    expect(released).toEqual({ botId, id: 'd1', ownerId: 'alice', handledBy: 'bot', createdAt: iso, updatedAt: iso })
    expect(await t.query('select * from handoff_requests where conversation_id = ?', 'd1')).toEqual([])
  })

  it('refuses an entry of messageHistory that is not an object (400 InvalidPayload naming the field)', async () => {
    const refused = await call(
      botKey,
      'POST',
      '/v1/chat/actions',
      { type: 'hitl:startHitl', input: { userId: 'alice', conversationId: 'd1', messageHistory: ['just text'] } },
      { 'x-bot-id': botId },
    )
    expect(refused).toMatchObject({ status: 400, body: { type: 'InvalidPayload', message: expect.stringContaining('input.messageHistory') } })
    expect((await agent('sue', 'GET', at('d1'))).body.conversation.handledBy).toBe('bot')
  })
})

describe('custom events while a person handles the conversation', () => {
  it('are recorded as skipped for the bot, never delivered; once the bot has it back they are delivered again', async () => {
    const alice = await connect('alice')
    await alice.createConversation({ id: 'e1' })
    await startHitl({ userId: 'alice', conversationId: 'e1' })
    const { event: held } = await alice.createEvent({ conversationId: 'e1', payload: { type: 'rating', stars: 5 } })
    await eventually(async () =>
      expect((await logsOf(t)).map((l) => l.message)).toContain(
        `skipped custom event ${held.id}: the conversation is handled by a person (waiting), not delivered to the bot`,
      ),
    )
    // The bot may still read it.
    expect((await bot.getEvent({ id: held.id })).event).toMatchObject({ id: held.id, payload: { conversationId: 'e1', payload: { type: 'rating', stars: 5 } } })

    expect((await agent('ada', 'POST', `${at('e1')}/claim`, {})).status).toBe(200)
    expect((await agent('ada', 'POST', `${at('e1')}/release`, {})).status).toBe(200)
    await alice.createEvent({ conversationId: 'e1', payload: { type: 'rating', stars: 4 } })
    // A conversation's deliveries go in order: had the held event been delivered, it would be first.
    const ratings = () => receiver.received.filter((r) => r.json.type === 'rating').map((r) => r.json.data.payload.stars)
    await eventually(() => expect(ratings()).toContain(4))
    expect(ratings()).toEqual([4])
  })
})

describe('agent action lines (the access log)', () => {
  it('say who did what to which conversation and how it ended, beside the request line; never what was written nor a key', async () => {
    const alice = await connect('alice')
    await alice.createConversation({ id: 'l1' })
    await startHitl({ userId: 'alice', conversationId: 'l1' })
    const c = at('l1')
    expect((await agent('ada', 'GET', c)).status).toBe(200)
    expect((await agent('ada', 'POST', `${c}/claim`, {})).status).toBe(200)
    expect((await agent('bo', 'GET', `${c}/messages`)).status).toBe(404)
    expect((await agent('ada', 'POST', `${c}/messages`, { payload: text('reply-text-never-logged') })).status).toBe(200)
    expect((await agent('ada', 'POST', `${c}/notes`, { text: 'note-text-never-logged' })).status).toBe(200)
    expect((await agent('ada', 'POST', `${c}/notes`, { text: ' ' })).status).toBe(400)
    expect((await agent('ada', 'GET', `${c}/notes`)).status).toBe(200)
    expect((await agent('ada', 'GET', `${c}/messages`)).status).toBe(200)
    expect((await agent('ada', 'POST', `${c}/transfer`, { agentId: agents.bo.id })).status).toBe(200)
    expect((await agent('bo', 'POST', `${c}/release`, {})).status).toBe(200)
    await startHitl({ userId: 'alice', conversationId: 'l1' })
    expect((await agent('bo', 'POST', `${c}/claim`, {})).status).toBe(200)
    expect((await agent('bo', 'POST', `${c}/close`, {})).status).toBe(200)

    const [ada, bo] = [agents.ada.id, agents.bo.id]
    const expected = [
      [ada, 'getConversation', 'ok'],
      [ada, 'claimConversation', 'ok'],
      [bo, 'listHistory', 'ResourceNotFound'],
      [ada, 'replyToConversation', 'ok'],
      [ada, 'addNote', 'ok'],
      [ada, 'addNote', 'InvalidPayload'],
      [ada, 'listNotes', 'ok'],
      [ada, 'listHistory', 'ok'],
      [ada, 'transferConversation', 'ok'],
      [bo, 'releaseConversation', 'ok'],
      [bo, 'claimConversation', 'ok'],
      [bo, 'closeConversation', 'ok'],
    ]
    const actions = () => captured.lines().filter((line) => line.msg === 'agent action' && line.conversationId === 'l1')
    await eventually(() => expect(actions().map((line) => [line.agentId, line.action, line.outcome])).toEqual(expected))
    for (const line of actions()) expect(line).toMatchObject({ level: 30, requestId: expect.any(String), botId, conversationId: 'l1' })
    expect(actions().find((line) => line.action === 'transferConversation')?.toAgentId).toBe(bo)
    // Each beside its request's access line, which names the credential's kind.
    const requestLine = captured.lines().find((line) => line.msg === 'request' && line.requestId === actions()[1]?.requestId)
    expect(requestLine).toMatchObject({ route: expect.stringMatching(/^\/v1\/agent/), credential: 'agent-key', status: 200 })

    const everything = captured.raw.join('\n')
    for (const secret of ['reply-text-never-logged', 'note-text-never-logged', agents.ada.key, agents.bo.key, botKey]) expect(everything).not.toContain(secret)
  })
})

describe('deleting an agent', () => {
  it('keeps its messages in the users’ conversations, shown as "Former agent": its name is nowhere in them', async () => {
    const tess = await createAgent(call, 'Tess Ravenwood')
    const alice = await connect('alice')
    await alice.createConversation({ id: 'g1' })
    await startHitl({ userId: 'alice', conversationId: 'g1' })
    expect((await call(tess.key, 'POST', `/v1/agent${at('g1')}/claim`, {})).status).toBe(200)
    expect((await call(tess.key, 'POST', `/v1/agent${at('g1')}/messages`, { payload: text('Tess here') })).status).toBe(200)

    expect((await admin('DELETE', `/agents/${tess.id}`)).status).toBe(200)
    expect((await call(tess.key, 'GET', '/v1/agent/queue')).status).toBe(401)
    const tessUser = `agent:${tess.id}`
    expect((await alice.listMessages({ conversationId: 'g1' })).messages[0]).toMatchObject({ userId: tessUser, payload: text('Tess here') })
    expect((await alice.listParticipants({ conversationId: 'g1' })).participants).toContainEqual(
      expect.objectContaining({ id: tessUser, name: 'Former agent' }),
    )
    expect(await rowsHolding(t, ['Tess Ravenwood'])).toEqual({})
  })
})

describe('export and deletion of a user cover what agents wrote and were handed', () => {
  const history = (userId: string, words: string) => ({ source: { type: 'user', userId }, type: 'text', payload: { text: words } })

  /** Erin owns a handed-off conversation (an agent answered and noted) and is in Zed's, handed off with her words in its history. */
  async function erinHandedOff() {
    const erin = await connect('erin')
    const zed = await connect('zed')
    await erin.createConversation({ id: 'erins-own' })
    await erin.addParticipant({ conversationId: 'erins-own', userId: 'zed' })
    await startHitl({
      userId: 'erin',
      conversationId: 'erins-own',
      title: 'Erin title',
      description: 'erin-description',
      messageHistory: [history('erin', 'erin-words'), history('zed', 'zed-words'), { source: { type: 'bot' }, type: 'text', payload: { text: 'bot-words' } }],
    })
    expect((await agent('ada', 'POST', `${at('erins-own')}/claim`, {})).status).toBe(200)
    const { body } = await agent('ada', 'POST', `${at('erins-own')}/messages`, { payload: text('agent-said-to-erin') })
    expect((await agent('ada', 'POST', `${at('erins-own')}/notes`, { text: 'note-about-erin' })).status).toBe(200)
    await zed.createConversation({ id: 'zeds-own' })
    await zed.addParticipant({ conversationId: 'zeds-own', userId: 'erin' })
    await startHitl({ userId: 'zed', conversationId: 'zeds-own', messageHistory: [history('erin', 'erin-words-in-zeds')] })
    return { agentMessageId: body.message.id as string }
  }

  it('the export has the agents’ messages, and of the conversations she owns the notes and the handoff (her and the bot’s history only)', async () => {
    const { agentMessageId } = await erinHandedOff()
    const exported = await admin('GET', `/bots/${botId}/users/erin/export`)
    expect(exported.status).toBe(200)
    const own = exported.body.conversations.find((c: { id: string }) => c.id === 'erins-own')
    expect(own.messages).toContainEqual(expect.objectContaining({ id: agentMessageId, userId: `agent:${agents.ada.id}`, payload: text('agent-said-to-erin') }))
    expect(own.notes).toEqual([{ id: expect.any(String), agentId: agents.ada.id, text: 'note-about-erin', createdAt: iso }])
    expect(own.handoff).toEqual({
      title: 'Erin title',
      description: 'erin-description',
      requestedAt: iso,
      messageHistory: [history('erin', 'erin-words'), { source: { type: 'bot' }, type: 'text', payload: { text: 'bot-words' } }],
    })
    // Zed's conversation is Zed's: no notes nor handoff of it in Erin's export.
    const zeds = exported.body.conversations.find((c: { id: string }) => c.id === 'zeds-own')
    expect(zeds).not.toHaveProperty('notes')
    expect(zeds).not.toHaveProperty('handoff')
  })

  it('deleting her leaves no row holding her conversation, the agent’s messages and notes in it, its handoff, or her words in another’s handoff', async () => {
    const needles = ['erins-own', 'agent-said-to-erin', 'note-about-erin', 'erin-description', 'erin-words']
    const before = await rowsHolding(t, needles)
    expect(Object.keys(before)).toEqual(expect.arrayContaining(['conversation_notes', 'handoff_requests', 'messages']))
    expect((await admin('DELETE', `/bots/${botId}/users/erin`)).status).toBe(200)
    expect(await rowsHolding(t, needles)).toEqual({})
    // Zed's conversation stays, handed off still, without its request's copy of her words.
    expect((await agent('sue', 'GET', at('zeds-own'))).body.conversation).toMatchObject({ id: 'zeds-own', handledBy: 'waiting' })
  })
})
