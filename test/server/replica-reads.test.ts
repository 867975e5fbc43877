import { Client } from '@botpress/chat'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { replicaReads } from '../../src/graphql/replica-reads.ts'
import { type ConfabServer, createServer } from '../../src/index.ts'
import { eventually } from '../helpers/wait.ts'

// Every operation the replica table names (graphql/replica-reads.ts), run through the real server on
// a read replica: its store refuses every write and hands the request back to the main thread, which
// then serves it (http/read-replicas.ts). So an operation that tried to write is not served by the
// replica, and fails here; one that wrote past the store, on the replica's read-only connection,
// answers an error, and fails here too.

const WEBHOOK = 'replica-reads'
const ADMIN = { authorization: 'Bearer bp_pat_replica_reads_admin', 'x-workspace-id': 'wkspace_replica_reads' }

type ChatOperation = (typeof replicaReads.chat.operations)[number]
type ChatRootField = (typeof replicaReads.chat.rootFields)[number]
type AdminOperation = (typeof replicaReads.admin.operations)[number]
type AdminRootField = (typeof replicaReads.admin.rootFields)[number]

let confab: ConfabServer
let key: string
let s: { conversationId: string; messageId: string; eventId: string; userId: string; botId: string; conversationNode: string; botNode: string }

const json = async (response: Response) => ({ status: response.status, body: await response.json() })
const chatGet = (path: string) => fetch(`${confab.url}/${WEBHOOK}${path}`, { headers: { 'x-user-key': key } })
const adminGet = (path: string) => fetch(`${confab.url}/v1/admin${path}`, { headers: ADMIN })
const post = (url: string, headers: Record<string, string>, query: string, variables: object = {}) =>
  fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) })
const chatQuery = (query: string, variables?: object) => post(`${confab.url}/${WEBHOOK}/graphql`, { 'x-user-key': key }, query, variables)
const adminQuery = (query: string, variables?: object) => post(`${confab.url}/v1/admin/graphql`, ADMIN, query, variables)

/** One request of each REST read the table names: the keys must be the table's (TypeScript and the first test hold it). */
const chatRest: Record<ChatOperation, () => Promise<Response>> = {
  hello: () => chatGet('/hello'),
  getUser: () => chatGet('/users/me'),
  getConversation: () => chatGet(`/conversations/${s.conversationId}`),
  listConversations: () => chatGet('/conversations'),
  getMessage: () => chatGet(`/messages/${s.messageId}`),
  listMessages: () => chatGet(`/conversations/${s.conversationId}/messages`),
  getParticipant: () => chatGet(`/conversations/${s.conversationId}/participants/${s.userId}`),
  listParticipants: () => chatGet(`/conversations/${s.conversationId}/participants`),
  getEvent: () => chatGet(`/events/${s.eventId}`),
}

const chatGraphql: Record<ChatRootField, () => Promise<Response>> = {
  me: () => chatQuery('{ me { userId name } }'),
  conversation: () =>
    chatQuery('query ($c: String!) { conversation(id: $c) { conversationId messages(first: 5) { edges { node { messageId } } } } }', { c: s.conversationId }),
  conversations: () => chatQuery('{ conversations(first: 5) { edges { node { conversationId } } } }'),
  message: () => chatQuery('query ($m: String!) { message(id: $m) { messageId } }', { m: s.messageId }),
  event: () => chatQuery('query ($e: String!) { event(id: $e) { eventId } }', { e: s.eventId }),
  node: () => chatQuery('query ($id: ID!) { node(id: $id) { id } }', { id: s.conversationNode }),
  nodes: () => chatQuery('query ($id: ID!) { nodes(ids: [$id]) { id } }', { id: s.conversationNode }),
}

const adminRest: Record<AdminOperation, () => Promise<Response>> = {
  listBots: () => adminGet('/bots'),
  getBot: () => adminGet(`/bots/${s.botId}`),
  getBotLogs: () => adminGet(`/bots/${s.botId}/logs?timeStart=2000-01-01T00:00:00.000Z`),
  listBotApiKeys: () => adminGet(`/bots/baks?botId=${s.botId}`),
  listBotUsers: () => adminGet(`/bots/${s.botId}/users`),
  listBotConversations: () => adminGet(`/bots/${s.botId}/conversations`),
  exportBotUser: () => adminGet(`/bots/${s.botId}/users/${s.userId}/export`),
  listAgents: () => adminGet('/agents'),
}

const adminGraphql: Record<AdminRootField, () => Promise<Response>> = {
  bots: () => adminQuery('{ bots(first: 5) { edges { node { botId } } } }'),
  bot: () => adminQuery('query ($b: String!) { bot(id: $b) { botId name } }', { b: s.botId }),
  botLogs: () => adminQuery('query ($b: String!) { botLogs(id: $b, timeStart: "2000-01-01T00:00:00.000Z") { edges { cursor } } }', { b: s.botId }),
  botApiKeys: () => adminQuery('query ($b: String!) { botApiKeys(botId: $b) { id note } }', { b: s.botId }),
  botUsers: () => adminQuery('query ($b: String!) { botUsers(id: $b, first: 5) { edges { node { userId } } } }', { b: s.botId }),
  botConversations: () => adminQuery('query ($b: String!) { botConversations(id: $b, first: 5) { edges { node { conversationId } } } }', { b: s.botId }),
  botUserExport: () => adminQuery('query ($b: String!, $u: String!) { botUserExport(id: $b, userId: $u) }', { b: s.botId, u: s.userId }),
  agents: () => adminQuery('{ agents { id name } }'),
  node: () => adminQuery('query ($id: ID!) { node(id: $id) { id } }', { id: s.botNode }),
  nodes: () => adminQuery('query ($id: ID!) { nodes(ids: [$id]) { id } }', { id: s.botNode }),
}

/** Sends a request and asserts a replica answered it 200, without handing it back to the main thread. */
async function servedByReplica(send: () => Promise<Response>) {
  const replicas = confab.replicas!
  const before = { served: replicas.served, handedBack: replicas.handedBack }
  const { status, body } = await json(await send())
  expect(status, JSON.stringify(body)).toBe(200)
  expect(body.errors).toBeUndefined()
  expect({ served: replicas.served - before.served, handedBack: replicas.handedBack - before.handedBack }).toEqual({ served: 1, handedBack: 0 })
  return body
}

beforeAll(async () => {
  confab = await createServer({
    databaseUrl: ':memory:',
    log: pino({ level: 'silent' }),
    bootstrap: { webhookId: WEBHOOK, workspaceId: ADMIN['x-workspace-id'], adminToken: ADMIN.authorization.slice('Bearer '.length) },
    readReplicas: 1,
    // The main thread serves whatever a rate limit counts (every administration call): off, every read goes to the replica.
    rateLimits: 'off',
  })
  const chat = await Client.connect({ apiUrl: `${confab.url}/${WEBHOOK}` })
  key = chat.user.key
  const { conversation } = await chat.createConversation({})
  const { message } = await chat.createMessage({ conversationId: conversation.id, payload: { type: 'text', text: 'hello' } })
  const { event } = await chat.createEvent({ conversationId: conversation.id, payload: { kind: 'seen' } })
  await eventually(async () => expect((await chat.listMessages({ conversationId: conversation.id })).messages).toHaveLength(2))
  const botId = confab.created!.botId
  const apiKey = await fetch(`${confab.url}/v1/admin/bots/baks`, {
    method: 'POST',
    headers: { ...ADMIN, 'content-type': 'application/json' },
    body: JSON.stringify({ botId, note: 'listed' }),
  })
  expect(apiKey.status).toBe(200)
  const nodes = await json(await chatQuery('query ($c: String!) { conversation(id: $c) { id } }', { c: conversation.id }))
  const bot = await json(await adminQuery('query ($b: String!) { bot(id: $b) { id } }', { b: botId }))
  s = {
    conversationId: conversation.id,
    messageId: message.id,
    eventId: event.id,
    userId: chat.user.id,
    botId,
    conversationNode: nodes.body.data.conversation.id,
    botNode: bot.body.data.bot.id,
  }
  // The first reads start the replica; it compiles the app (tsx) before it is ready.
  await eventually(async () => {
    await chatGet('/users/me')
    expect(confab.replicas?.ready).toBe(1)
  }, 60_000)
}, 120_000)

afterAll(() => confab?.close())

describe('what a read replica serves (the replica table)', () => {
  it('names a request of each of its operations and root fields here', () => {
    expect(Object.keys(chatRest).sort()).toEqual([...replicaReads.chat.operations].sort())
    expect(Object.keys(chatGraphql).sort()).toEqual([...replicaReads.chat.rootFields].sort())
    expect(Object.keys(adminRest).sort()).toEqual([...replicaReads.admin.operations].sort())
    expect(Object.keys(adminGraphql).sort()).toEqual([...replicaReads.admin.rootFields].sort())
  })

  it.each(Object.entries(chatRest))('chat REST %s: served by a replica, which wrote nothing', async (_name, send) => {
    await servedByReplica(send)
  })

  it.each(Object.entries(chatGraphql))('chat GraphQL %s: served by a replica, which wrote nothing', async (_name, send) => {
    await servedByReplica(send)
  })

  it.each(Object.entries(adminRest))('admin REST %s: served by a replica, which wrote nothing', async (_name, send) => {
    await servedByReplica(send)
  })

  it.each(Object.entries(adminGraphql))('admin GraphQL %s: served by a replica, which wrote nothing', async (_name, send) => {
    await servedByReplica(send)
  })

  it("a write is the main thread's: no replica is handed one", async () => {
    const before = { served: confab.replicas!.served, handedBack: confab.replicas!.handedBack }
    const created = await json(
      await chatQuery('mutation ($c: String!) { createMessage(input: { conversationId: $c, payload: { text: { text: "w" } } }) { message { messageId } } }', {
        c: s.conversationId,
      }),
    )
    expect(created.status).toBe(200)
    expect({ served: confab.replicas!.served, handedBack: confab.replicas!.handedBack }).toEqual(before)
  })
})
