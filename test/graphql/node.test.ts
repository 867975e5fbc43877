import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
beforeEach(() => {
  t = createTestApp()
})
afterEach(() => t.close())

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

describe('node', () => {
  it('fetches the caller as a User', async () => {
    const w = await world()
    const res = await t.graphql(NODE, { id: w.alice.nodeId }, { key: w.alice.key })
    expect(res.body).toEqual({ data: { node: { __typename: 'User', id: w.alice.nodeId, userId: 'alice', name: 'Alice' } } })
  })

  it('fetches a user who shares a conversation with the caller', async () => {
    const w = await world()
    const res = await t.graphql(NODE, { id: w.bob.nodeId }, { key: w.alice.key })
    expect(res.body).toEqual({ data: { node: { __typename: 'User', id: w.bob.nodeId, userId: 'bob', name: 'Bob' } } })
  })

  it('fetches a Conversation', async () => {
    const w = await world()
    const res = await t.graphql(NODE, { id: w.c1.conversationNodeId }, { key: w.bob.key })
    expect(res.body).toEqual({
      data: {
        node: { __typename: 'Conversation', id: w.c1.conversationNodeId, conversationId: 'c1', owner: { userId: 'alice' } },
      },
    })
  })

  it('fetches a Message', async () => {
    const w = await world()
    const res = await t.graphql(NODE, { id: w.c1.message.id }, { key: w.bob.key })
    expect(res.body).toEqual({
      data: {
        node: {
          __typename: 'Message',
          id: w.c1.message.id,
          messageId: w.c1.message.messageId,
          conversationId: 'c1',
          userId: 'alice',
          rawPayload: { type: 'text', text: 'in c1' },
        },
      },
    })
  })

  it('fetches an Event', async () => {
    const w = await world()
    const res = await t.graphql(NODE, { id: w.c1.event.id }, { key: w.alice.key })
    expect(res.body).toEqual({
      data: {
        node: {
          __typename: 'Event',
          id: w.c1.event.id,
          eventId: w.c1.event.eventId,
          conversationId: 'c1',
          userId: 'alice',
          payload: { in: 'c1' },
        },
      },
    })
  })

  it('tells a user and a conversation with the same id apart', async () => {
    const same = await t.user('same', { name: 'Same' })
    const res = await t.graphql(
      'mutation { createConversation(input: { id: "same" }) { conversation { id } } }',
      {},
      { key: same.key },
    )
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
    const ids = [
      w.c1.event.id,
      w.c2.conversationNodeId,
      w.alice.nodeId,
      w.c1.message.id,
      w.c2.message.id,
      w.c1.conversationNodeId,
      w.bob.nodeId,
      w.c2.event.id,
    ]
    const res = await t.graphql(NODES, { ids }, { key: w.alice.key })
    expect(res.body).toEqual({
      data: {
        nodes: [
          {
            __typename: 'Event',
            id: w.c1.event.id,
            eventId: w.c1.event.eventId,
            conversationId: 'c1',
            userId: 'alice',
            payload: { in: 'c1' },
          },
          null,
          { __typename: 'User', id: w.alice.nodeId, userId: 'alice', name: 'Alice' },
          {
            __typename: 'Message',
            id: w.c1.message.id,
            messageId: w.c1.message.messageId,
            conversationId: 'c1',
            userId: 'alice',
            rawPayload: { type: 'text', text: 'in c1' },
          },
          null,
          { __typename: 'Conversation', id: w.c1.conversationNodeId, conversationId: 'c1', owner: { userId: 'alice' } },
          { __typename: 'User', id: w.bob.nodeId, userId: 'bob', name: 'Bob' },
          null,
        ],
      },
    })
  })

  it('answers the same node twice when its id is given twice', async () => {
    const w = await world()
    const res = await t.graphql(NODES, { ids: [w.c2.message.id, w.c2.message.id] }, { key: w.carol.key })
    const node = {
      __typename: 'Message',
      id: w.c2.message.id,
      messageId: w.c2.message.messageId,
      conversationId: 'c2',
      userId: 'carol',
      rawPayload: { type: 'text', text: 'in c2' },
    }
    expect(res.body).toEqual({ data: { nodes: [node, node] } })
  })

  it('answers an empty list for no ids', async () => {
    const w = await world()
    const res = await t.graphql(NODES, { ids: [] }, { key: w.alice.key })
    expect(res.body).toEqual({ data: { nodes: [] } })
  })
})
