import { describe, expect, it } from 'vitest'
import { tables } from '../helpers/tables.ts'

const { bots } = tables
import { OTHER, useTestApp, WORKSPACE_ID } from '../helpers/app.ts'

// Relay's node(id) and nodes(ids): every object by its global id, for whoever may see it, and null
// for anything else.

const t = useTestApp({ handlers: {} })

const NODE_FIELDS = /* GraphQL */ `
  fragment NodeFields on Node {
    __typename
    id
    ... on User { userId name }
    ... on Conversation { conversationId owner { userId } }
    ... on Message { messageId conversationId userId rawPayload }
    ... on Event { eventId conversationId userId payload }
  }
`

const NODE = /* GraphQL */ `
  ${NODE_FIELDS}
  query ($id: ID!) { node(id: $id) { ...NodeFields } }
`

const NODES = /* GraphQL */ `
  ${NODE_FIELDS}
  query ($ids: [ID!]!) { nodes(ids: $ids) { ...NodeFields } }
`

/**
 * alice owns c1 with bob; carol owns c2 alone. Each conversation holds one message and one event.
 * Returns the global ids of everything, read from the objects themselves.
 */
async function world() {
  const alice = await t.user('alice', { name: 'Alice' })
  const bob = await t.user('bob', { name: 'Bob' })
  const carol = await t.user('carol', { name: 'Carol' })
  await t.conversation(alice.key, 'c1', ['bob'])
  await t.conversation(carol.key, 'c2')

  const content = async (key: string, conversationId: string) => {
    const res = await t.graphql(
      `mutation ($m: CreateMessageInput!, $e: CreateEventInput!) {
        createMessage(input: $m) { message { id messageId conversation { id } } }
        createEvent(input: $e) { event { id eventId } }
      }`,
      {
        m: { conversationId, payload: { text: { text: `in ${conversationId}` } } },
        e: { conversationId, payload: { in: conversationId } },
      },
      { key },
    )
    expect(res.body.errors).toBeUndefined()
    const { createMessage, createEvent } = res.body.data
    return { message: createMessage.message, event: createEvent.event, conversationNodeId: createMessage.message.conversation.id }
  }
  const c1 = await content(alice.key, 'c1')
  const c2 = await content(carol.key, 'c2')
  const meOf = async (key: string) => (await t.graphql('{ me { id } }', {}, { key })).body.data.me.id as string
  return {
    alice: { ...alice, nodeId: await meOf(alice.key) },
    bob: { ...bob, nodeId: await meOf(bob.key) },
    carol: { ...carol, nodeId: await meOf(carol.key) },
    c1,
    c2,
  }
}

type World = Awaited<ReturnType<typeof world>>

/** What node(id) answers for the things of the world. */
const nodeOf = (w: World) => {
  const message = (c: World['c1'], conversationId: string, userId: string) => ({
    __typename: 'Message',
    id: c.message.id,
    messageId: c.message.messageId,
    conversationId,
    userId,
    rawPayload: { type: 'text', text: `in ${conversationId}` },
  })
  return {
    alice: { __typename: 'User', id: w.alice.nodeId, userId: 'alice', name: 'Alice' },
    bob: { __typename: 'User', id: w.bob.nodeId, userId: 'bob', name: 'Bob' },
    c1: { __typename: 'Conversation', id: w.c1.conversationNodeId, conversationId: 'c1', owner: { userId: 'alice' } },
    c1Message: message(w.c1, 'c1', 'alice'),
    c2Message: message(w.c2, 'c2', 'carol'),
    c1Event: { __typename: 'Event', id: w.c1.event.id, eventId: w.c1.event.eventId, conversationId: 'c1', userId: 'alice', payload: { in: 'c1' } },
  }
}

describe('node', () => {
  it.each([
    ['the caller as a User', 'alice', 'alice'],
    ['a user who shares a conversation with the caller', 'bob', 'alice'],
    ['a Conversation', 'c1', 'bob'],
    ['a Message', 'c1Message', 'bob'],
    ['an Event', 'c1Event', 'alice'],
  ] as const)('fetches %s', async (_what, thing, caller) => {
    const w = await world()
    const node = nodeOf(w)[thing]
    const res = await t.graphql(NODE, { id: node.id }, { key: w[caller].key })
    expect(res.body).toEqual({ data: { node } })
  })

  it('tells a user and a conversation with the same id apart', async () => {
    const same = await t.user('same', { name: 'Same' })
    const res = await t.graphql('mutation { createConversation(input: { id: "same" }) { conversation { id } } }', {}, { key: same.key })
    const conversationNodeId: string = res.body.data.createConversation.conversation.id
    const userNodeId: string = (await t.graphql('{ me { id } }', {}, { key: same.key })).body.data.me.id
    expect(conversationNodeId).not.toBe(userNodeId)
    const asConversation = await t.graphql(NODE, { id: conversationNodeId }, { key: same.key })
    const asUser = await t.graphql(NODE, { id: userNodeId }, { key: same.key })
    expect(asConversation.body.data.node).toEqual({
      __typename: 'Conversation',
      id: conversationNodeId,
      conversationId: 'same',
      owner: { userId: 'same' },
    })
    expect(asUser.body.data.node).toEqual({ __typename: 'User', id: userNodeId, userId: 'same', name: 'Same' })
  })

  it.each([
    ['conversation', (w: Awaited<ReturnType<typeof world>>) => w.c2.conversationNodeId],
    ['message', (w: Awaited<ReturnType<typeof world>>) => w.c2.message.id],
    ['event', (w: Awaited<ReturnType<typeof world>>) => w.c2.event.id],
  ])('answers null for a %s of a conversation the caller does not participate in', async (_name, pick) => {
    const w = await world()
    const res = await t.graphql(NODE, { id: pick(w) }, { key: w.alice.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ data: { node: null } })
  })
})

describe('nodes', () => {
  it('fetches several nodes of every type, in the order asked, with null for what the caller may not see', async () => {
    const w = await world()
    const node = nodeOf(w)
    const ids = [node.c1Event.id, w.c2.conversationNodeId, node.alice.id, node.c1Message.id, node.c2Message.id, node.c1.id, node.bob.id, w.c2.event.id]
    const res = await t.graphql(NODES, { ids }, { key: w.alice.key })
    expect(res.body).toEqual({ data: { nodes: [node.c1Event, null, node.alice, node.c1Message, null, node.c1, node.bob, null] } })
  })

  it('answers the same node twice when its id is given twice', async () => {
    const w = await world()
    const { c2Message } = nodeOf(w)
    const res = await t.graphql(NODES, { ids: [c2Message.id, c2Message.id] }, { key: w.carol.key })
    expect(res.body).toEqual({ data: { nodes: [c2Message, c2Message] } })
  })

  it('answers an empty list for no ids', async () => {
    const w = await world()
    const res = await t.graphql(NODES, { ids: [] }, { key: w.alice.key })
    expect(res.body).toEqual({ data: { nodes: [] } })
  })
})

describe('admin node and nodes', () => {
  const NODE = /* GraphQL */ `
    query ($id: ID!) { node(id: $id) { __typename id ... on Bot { botId name } } }
  `
  const botNodes = async (headers?: Record<string, string>) =>
    (await t.adminGraphql('{ bots { edges { node { id botId } } } }', {}, headers)).body.data.bots.edges.map(
      (edge: { node: { id: string; botId: string } }) => edge.node,
    )

  it('fetch a Bot by its global id, alone and several at once, in the order asked', async () => {
    await t.db.insert(bots).values({
      id: 'bot-2',
      workspaceId: WORKSPACE_ID,
      name: 'Bot 2',
      handler: 'echo',
      tags: {},
      createdAt: '2099-01-01T00:00:00.000Z',
      updatedAt: '2099-01-01T00:00:00.000Z',
      deployedAt: null,
    })
    const [echo, second] = await botNodes()
    expect(second.botId).toBe('bot-2')
    expect((await t.adminGraphql(NODE, { id: second.id })).body).toEqual({
      data: { node: { __typename: 'Bot', id: second.id, botId: 'bot-2', name: 'Bot 2' } },
    })
    const many = await t.adminGraphql('query ($ids: [ID!]!) { nodes(ids: $ids) { id ... on Bot { botId } } }', { ids: [second.id, echo.id] })
    expect(many.body).toEqual({
      data: {
        nodes: [
          { id: second.id, botId: 'bot-2' },
          { id: echo.id, botId: echo.botId },
        ],
      },
    })
  })

  it('answer null for a bot of another workspace', async () => {
    await t.otherTenant()
    const [theirs] = await botNodes({ authorization: `Bearer ${OTHER.adminToken}`, 'x-workspace-id': OTHER.workspaceId })
    expect((await t.adminGraphql(NODE, { id: theirs.id })).body).toEqual({ data: { node: null } })
  })
})
