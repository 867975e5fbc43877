import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
beforeEach(() => {
  t = createTestApp()
})
afterEach(() => t.close())

const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

const EVENT_FIELDS = /* GraphQL */ `
  fragment EventFields on Event {
    id
    eventId
    conversationId
    userId
    createdAt
    payload
    user { userId name }
    conversation { conversationId owner { userId } }
  }
`

const CREATE_EVENT = /* GraphQL */ `
  ${EVENT_FIELDS}
  mutation ($input: CreateEventInput!) { createEvent(input: $input) { event { ...EventFields } } }
`

const EVENT = /* GraphQL */ `
  ${EVENT_FIELDS}
  query ($id: String!) { event(id: $id) { ...EventFields } }
`

const fieldError = (type: string, status: number, path: string[]) => ({
  errors: [expect.objectContaining({ path, extensions: { type, status, requestId: expect.any(String) } })],
  data: null,
})

const payload = { kind: 'typing', nested: { list: [1, 'two', null, { deep: false }], empty: {} }, n: 1.5 }

async function setup() {
  const alice = await t.user('alice', { name: 'Alice' })
  const bob = await t.user('bob', { name: 'Bob' })
  const carol = await t.user('carol')
  await t.conversation(alice.key, 'c1', ['bob'])
  return { alice, bob, carol }
}

describe('createEvent', () => {
  it('creates an event with a free-form payload, by the caller, in the conversation', async () => {
    const { bob } = await setup()
    const res = await t.graphql(CREATE_EVENT, { input: { conversationId: 'c1', payload } }, { key: bob.key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      data: {
        createEvent: {
          event: {
            id: expect.any(String),
            eventId: expect.any(String),
            conversationId: 'c1',
            userId: 'bob',
            createdAt: iso,
            payload,
            user: { userId: 'bob', name: 'Bob' },
            conversation: { conversationId: 'c1', owner: { userId: 'alice' } },
          },
        },
      },
    })
  })

  it('accepts an empty payload object', async () => {
    const { alice } = await setup()
    const res = await t.graphql(CREATE_EVENT, { input: { conversationId: 'c1', payload: {} } }, { key: alice.key })
    expect(res.body.errors).toBeUndefined()
    expect(res.body.data.createEvent.event.payload).toEqual({})
  })

  it('refuses a caller who does not participate as Forbidden', async () => {
    const { carol } = await setup()
    const res = await t.graphql(CREATE_EVENT, { input: { conversationId: 'c1', payload } }, { key: carol.key })
    expect(res.body).toEqual(fieldError('Forbidden', 403, ['createEvent']))
  })

  it('answers ResourceNotFound for an unknown conversation', async () => {
    const { alice } = await setup()
    const res = await t.graphql(CREATE_EVENT, { input: { conversationId: 'nope', payload } }, { key: alice.key })
    expect(res.body).toEqual(fieldError('ResourceNotFound', 404, ['createEvent']))
  })

  it('refuses a request without a user key as Unauthorized', async () => {
    await setup()
    const res = await t.graphql(CREATE_EVENT, { input: { conversationId: 'c1', payload } })
    expect(res.body).toEqual(fieldError('Unauthorized', 401, ['createEvent']))
  })

  it('refuses a payload that is not an object as a request error, before execution', async () => {
    const { alice } = await setup()
    const res = await t.graphql(CREATE_EVENT, { input: { conversationId: 'c1', payload: [1, 2] } }, { key: alice.key })
    expect(res.body.data).toBeUndefined()
    expect(res.body.errors).toHaveLength(1)
    expect(res.body.errors[0].path).toBeUndefined()
  })
})

describe('event', () => {
  it('reads an event back by its id, for every participant', async () => {
    const { alice, bob } = await setup()
    const created = await t.graphql(CREATE_EVENT, { input: { conversationId: 'c1', payload } }, { key: alice.key })
    const event = created.body.data.createEvent.event
    for (const key of [alice.key, bob.key]) {
      const res = await t.graphql(EVENT, { id: event.eventId }, { key })
      expect(res.body).toEqual({ data: { event } })
    }
    expect(event.payload).toEqual(payload)
    expect(event.user).toEqual({ userId: 'alice', name: 'Alice' })
  })

  it('refuses a user who does not participate as Forbidden', async () => {
    const { alice, carol } = await setup()
    const created = await t.graphql(CREATE_EVENT, { input: { conversationId: 'c1', payload } }, { key: alice.key })
    const res = await t.graphql(EVENT, { id: created.body.data.createEvent.event.eventId }, { key: carol.key })
    expect(res.body).toEqual(fieldError('Forbidden', 403, ['event']))
  })

  it('answers ResourceNotFound for an unknown event id', async () => {
    const { alice } = await setup()
    const res = await t.graphql(EVENT, { id: 'nope' }, { key: alice.key })
    expect(res.body).toEqual(fieldError('ResourceNotFound', 404, ['event']))
  })

  it('answers ResourceNotFound for the id of a message', async () => {
    const { alice } = await setup()
    const message = await t.graphql(
      `mutation ($input: CreateMessageInput!) { createMessage(input: $input) { message { messageId } } }`,
      { input: { conversationId: 'c1', payload: { text: { text: 'hi' } } } },
      { key: alice.key },
    )
    const res = await t.graphql(EVENT, { id: message.body.data.createMessage.message.messageId }, { key: alice.key })
    expect(res.body).toEqual(fieldError('ResourceNotFound', 404, ['event']))
  })
})
