import { Client as ChatClient, type SignalListener } from '@botpress/chat'
import { expect, vi } from 'vitest'
import { recordSignals } from '../helpers/listening.ts'
import { SseReader } from '../helpers/sse.ts'

/*
 * The handoff's done-when path (issue 52; docs/guides/handoff.md), each step asserted, shared by the
 * run on one SQLite instance and the run on two PostgreSQL instances: a @botpress/chat user talks to
 * a stock @botpress/sdk bot (test/handoff/hitl-bot/bot.ts), writes "human", and the bot calls
 * hitl:startHitl; an agent, through the typed agent GraphQL API (its queries, mutations and
 * subscriptions), sees the conversation in its queue, claims it and replies; the user sees the reply
 * and the agent's name (the bot, told hitl:hitlAssigned, says who joined); the user's next message
 * reaches the agent and not the bot; the agent releases it; the bot is told hitl:hitlStopped and answers again.
 */

/** The bot's log lines of a conversation, since the test began, through an admin API call (`admin(path)`: its JSON body). */
export const botLogLines = (admin: (path: string) => Promise<{ logs: { message: string }[] }>, botId: string) => {
  const since = new Date().toISOString()
  return async (conversationId: string) =>
    (await admin(`/bots/${botId}/logs?timeStart=${encodeURIComponent(since)}&conversationId=${conversationId}`)).logs.map((l) => l.message)
}

export interface PathSetup {
  /** The Chat API URL of the bot's chat integration, where the user talks. */
  userApiUrl: string
  /** The Confab where the agent works (its /v1/agent/graphql). */
  agentBaseUrl: string
  agent: { id: string; key: string; name: string }
  botId: string
  /** The bot's log lines of a conversation (GET /v1/admin/bots/{id}/logs). */
  botLogs: (conversationId: string) => Promise<string[]>
}

const waitLong = { timeout: 30_000, interval: 50 }

type Json = Record<string, unknown>
/** Where the agent works, and as whom. */
type AgentSide = Pick<PathSetup, 'agentBaseUrl' | 'agent'>

/** The agent's GraphQL API: a query or mutation's data (an error fails the test, with its body). */
export const agentGraphql =
  (setup: AgentSide) =>
  async (query: string, variables: Json = {}): Promise<Json> => {
    const res = await fetch(`${setup.agentBaseUrl}/v1/agent/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.agent.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    })
    const body = (await res.json()) as { data?: Json; errors?: unknown[] }
    expect({ status: res.status, errors: body.errors }).toEqual({ status: 200, errors: undefined })
    return body.data as Json
  }

/** A subscription of the agent's GraphQL API over Server-Sent Events: each result's data, in order. */
export async function agentSubscription(setup: AgentSide, query: string, variables: Json = {}) {
  const controller = new AbortController()
  const res = await fetch(`${setup.agentBaseUrl}/v1/agent/graphql`, {
    method: 'POST',
    signal: controller.signal,
    headers: { authorization: `Bearer ${setup.agent.key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query, variables }),
  })
  expect(res.status).toBe(200)
  const reader = new SseReader(res.body as ReadableStream<Uint8Array>)
  return {
    async next(): Promise<Json> {
      const block = await reader.message((b) => b.event !== 'next')
      const result = JSON.parse(block?.data ?? 'null') as { data?: Json; errors?: unknown[] } | null
      expect(result?.errors).toBeUndefined()
      return result?.data as Json
    },
    close: () => controller.abort(),
  }
}

const queueUpdates = 'subscription { queueUpdates { type botId conversationId handledBy agentId agentName title } }'
const conversationFields = 'botId id ownerId handledBy agentId title'
const messageFields = 'id userId payload { __typename ... on TextPayload { text } }'

const text = (value: string) => ({ type: 'text' as const, text: value })

/** The texts of the bot's messages a user's listener heard. */
const textsOf = (signals: ReturnType<typeof recordSignals>, from: (userId: string) => boolean) =>
  signals.received.flatMap((s) => (s.type === 'message_created' && from(s.data.userId) ? [(s.data.payload as { text: string }).text] : []))

export async function walkTheHandoffPath(setup: PathSetup, conversationId: string): Promise<void> {
  const { botId, agent } = setup
  const graphql = agentGraphql(setup)
  const agentUserId = `agent:${agent.id}`

  // The user talks to the bot.
  const user = await ChatClient.connect({ apiUrl: setup.userApiUrl })
  await user.createConversation({ id: conversationId })
  const listener: SignalListener = await user.listenConversation({ id: conversationId })
  const signals = recordSignals(listener)
  const botTexts = () => textsOf(signals, (id) => id === botId)
  await user.createMessage({ conversationId, payload: text('hello') })
  await vi.waitFor(() => expect(botTexts()).toEqual(['bot: hello']), waitLong)

  // The agent's queue is empty; its feeds are open before the user asks for a person.
  expect(await graphql('{ me { id name role } queue { id } }')).toEqual({ me: { id: agent.id, name: agent.name, role: 'agent' }, queue: [] })
  const queueFeed = await agentSubscription(setup, queueUpdates)

  // "human": the bot says so and calls hitl:startHitl; the conversation waits in the agent's queue.
  await user.createMessage({ conversationId, payload: text('human') })
  await vi.waitFor(() => expect(botTexts()).toEqual(['bot: hello', 'Let me find you a person.']), waitLong)
  expect(await queueFeed.next()).toEqual({
    queueUpdates: { type: 'handoff_changed', botId, conversationId, handledBy: 'waiting', agentId: null, agentName: null, title: 'Asked for a person' },
  })
  expect(await graphql(`{ queue { ${conversationFields} } }`)).toEqual({
    queue: [{ botId, id: conversationId, ownerId: user.user.id, handledBy: 'waiting', agentId: null, title: 'Asked for a person' }],
  })

  // The agent reads the history, claims the conversation and listens to it.
  const { history } = (await graphql(`query ($botId: String!, $id: String!) { history(botId: $botId, id: $id) { ${messageFields} } }`, {
    botId,
    id: conversationId,
  })) as { history: Json[] }
  expect(history.map((m) => (m.payload as { text: string }).text)).toEqual(['Let me find you a person.', 'human', 'bot: hello', 'hello'])
  const claimed = await graphql(
    `mutation ($botId: String!, $id: String!) { claim(input: { botId: $botId, id: $id }) { conversation { ${conversationFields} } } }`,
    {
      botId,
      id: conversationId,
    },
  )
  expect(claimed).toEqual({
    claim: { conversation: { botId, id: conversationId, ownerId: user.user.id, handledBy: 'agent', agentId: agent.id, title: 'Asked for a person' } },
  })
  expect(await queueFeed.next()).toEqual({
    queueUpdates: { type: 'handoff_changed', botId, conversationId, handledBy: 'agent', agentId: agent.id, agentName: agent.name, title: 'Asked for a person' },
  })
  // The bot, told hitl:hitlAssigned, says who joined (before the agent's feed of the conversation opens: it hears what comes after).
  const joined = `${agent.name} joined: you are talking to a person.`
  await vi.waitFor(() => expect(botTexts()).toEqual(['bot: hello', 'Let me find you a person.', joined]), waitLong)
  const conversationFeed = await agentSubscription(
    setup,
    `subscription ($botId: String!, $id: String!) { conversationMessages(botId: $botId, id: $id) { ${messageFields} } }`,
    { botId, id: conversationId },
  )

  // The user sees a person join, by name, and the agent's reply.
  await vi.waitFor(
    () => expect(signals.received).toContainEqual({ type: 'participant_added', data: expect.objectContaining({ participantId: agentUserId }) }),
    waitLong,
  )
  const { participants } = await user.listParticipants({ conversationId })
  expect(participants).toContainEqual(expect.objectContaining({ id: agentUserId, name: agent.name }))
  const reply = await graphql(
    `mutation ($botId: String!, $id: String!, $payload: JSONObject!) { reply(input: { botId: $botId, id: $id, payload: $payload }) { message { ${messageFields} } } }`,
    { botId, id: conversationId, payload: text(`${agent.name} here, how can I help?`) },
  )
  expect(reply).toMatchObject({
    reply: { message: { userId: agentUserId, payload: { __typename: 'TextPayload', text: `${agent.name} here, how can I help?` } } },
  })
  await vi.waitFor(() => expect(textsOf(signals, (id) => id === agentUserId)).toEqual([`${agent.name} here, how can I help?`]), waitLong)
  expect(await conversationFeed.next()).toMatchObject({ conversationMessages: { userId: agentUserId } })

  // The user's next message reaches the agent, and is recorded as not delivered to the bot.
  const { message: late } = await user.createMessage({ conversationId, payload: text('my order is late') })
  expect(await conversationFeed.next()).toEqual({
    conversationMessages: { id: late.id, userId: user.user.id, payload: { __typename: 'TextPayload', text: 'my order is late' } },
  })
  await vi.waitFor(
    async () =>
      expect(await setup.botLogs(conversationId)).toContain(
        `skipped message ${late.id}: the conversation is handled by a person (agent), not delivered to the bot`,
      ),
    waitLong,
  )

  // The agent gives it back: the user sees the agent leave, the bot is told hitl:hitlStopped and says so.
  const released = await graphql(`mutation ($botId: String!, $id: String!) { release(input: { botId: $botId, id: $id }) { conversation { handledBy } } }`, {
    botId,
    id: conversationId,
  })
  expect(released).toEqual({ release: { conversation: { handledBy: 'bot' } } })
  expect(await queueFeed.next()).toEqual({
    queueUpdates: { type: 'handoff_changed', botId, conversationId, handledBy: 'bot', agentId: null, agentName: null, title: null },
  })
  await vi.waitFor(
    () => expect(signals.received).toContainEqual({ type: 'participant_removed', data: expect.objectContaining({ participantId: agentUserId }) }),
    waitLong,
  )
  const left = `${agent.name} left: the bot is back.`
  await vi.waitFor(() => expect(botTexts()).toEqual(['bot: hello', 'Let me find you a person.', joined, left]), waitLong)

  // The bot answers again, and never answered what the user wrote to the agent.
  await user.createMessage({ conversationId, payload: text('thanks') })
  await vi.waitFor(() => expect(botTexts()).toEqual(['bot: hello', 'Let me find you a person.', joined, left, 'bot: thanks']), waitLong)
  expect(await graphql('{ queue { id } myConversations { id } }')).toEqual({ queue: [], myConversations: [] })

  queueFeed.close()
  conversationFeed.close()
  await listener.disconnect()
}
