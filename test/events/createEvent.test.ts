import { describe, expect, it } from 'vitest'
import { CLIENT_ID, iso, type JsonResponse, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { expectRequestError } from '../helpers/graphql.ts'
import { useOfficialClient } from '../helpers/listening.ts'
import { expectRefusal, type Transport, TRANSPORTS } from '../helpers/transports.ts'

const CREATE_EVENT = /* GraphQL */ `
  mutation ($input: CreateEventInput!) {
    createEvent(input: $input) {
      event { id eventId conversationId userId createdAt payload user { userId name } conversation { conversationId owner { userId } } }
    }
  }
`

type Event = { id: string; createdAt: string; payload: unknown; conversationId: string; userId: string }

describe('createEvent', () => {
  const t = useTestApp({ handlers: {} })
  const createEvent = {
    REST: (key: string | undefined, body: { conversationId: unknown; payload: unknown }) => t.chat('POST', '/events', { key, body }),
    GraphQL: (key: string | undefined, input: { conversationId: unknown; payload: unknown }) => t.graphql(CREATE_EVENT, { input }, { key }),
  }
  /** The event a transport answered with, in the REST shape. */
  const created: Record<Transport, (res: JsonResponse) => Event> = {
    REST: (res) => res.body.event,
    GraphQL: (res) => {
      const { eventId, createdAt, payload, conversationId, userId } = res.body.data.createEvent.event
      return { id: eventId, createdAt, payload, conversationId, userId }
    },
  }
  const events = () => t.count('select count(*) as n from events')
  const getEvent = async (key: string, id: string) => (await t.chat('GET', `/events/${id}`, { key })).body.event
  const aliceAndBobInC1 = () => t.c1({ members: ['bob'], profiles: { alice: { name: 'Alice' }, bob: { name: 'Bob' } } })

  describe.each(TRANSPORTS)('%s', (transport) => {
    it('creates the event by the caller, answers every field of it, a new id each time, and getEvent reads it back', async () => {
      const { alice, bob } = await aliceAndBobInC1()
      const first = created[transport](await createEvent[transport](alice.key, { conversationId: 'c1', payload: { kind: 'typing', on: true } }))
      const res = await createEvent[transport](bob.key, { conversationId: 'c1', payload: { n: 2 } })
      expect(res.status).toBe(200)
      const second = created[transport](res)
      expect(second).toStrictEqual({ id: expect.stringMatching(CLIENT_ID), createdAt: iso, payload: { n: 2 }, conversationId: 'c1', userId: 'bob' })
      expect(second.id).not.toBe(first.id)
      expect(await events()).toBe(2)
      expect(await getEvent(alice.key, first.id)).toEqual({ ...first, payload: { kind: 'typing', on: true }, userId: 'alice' })
    })

    it.each([
      [
        'a free-form payload',
        {
          type: 'not-a-message-kind',
          nested: { deep: { deeper: [1, 2.5, 'three', null, { four: false }] } },
          empty: {},
          list: [],
          text: 'ünïcødé 🎉 "quoted"\n',
        },
      ],
      ['an empty payload object', {}],
    ])('keeps %s exactly as written', async (_what, payload) => {
      const { alice } = await aliceAndBobInC1()
      const event = created[transport](await createEvent[transport](alice.key, { conversationId: 'c1', payload }))
      expect(event.payload).toEqual(payload)
      expect((await getEvent(alice.key, event.id)).payload).toEqual(payload)
    })

    it.each([
      ['a string', 'ping', 'payload: expected an object, got the string "ping"'],
      ['a number', 42, 'payload: expected an object, got the number 42'],
      ['an array', [{ a: 1 }], 'payload: expected an object, got a list'],
      ['null', null, 'payload: expected an object, got null'],
    ])('refuses a payload that is %s, writing nothing', async (_what, payload, message) => {
      const { alice } = await aliceAndBobInC1()
      const res = await createEvent[transport](alice.key, { conversationId: 'c1', payload })
      if (transport === 'REST') expectRefusal(res, 'REST', 400, 'InvalidPayload', null, message)
      else expectRequestError(res.body)
      expect(await events()).toBe(0)
    })
  })

  it.each([
    ['without conversationId', { payload: { a: 1 } }, 'conversationId is required: expected a string'],
    ['without payload', { conversationId: 'c1' }, 'payload is required: expected an object'],
    ['with a conversationId that is a number', { conversationId: 1, payload: { a: 1 } }, 'conversationId: expected a string, got the number 1'],
  ])('REST refuses a body %s with 400 InvalidPayload, saying so, writing nothing', async (_what, body, message) => {
    const { alice } = await aliceAndBobInC1()
    expectRefusal(await t.chat('POST', '/events', { key: alice.key, body }), 'REST', 400, 'InvalidPayload', null, message)
    expect(await events()).toBe(0)
  })

  it('GraphQL createEvent resolves the author and the conversation of the event', async () => {
    const { bob } = await aliceAndBobInC1()
    const res = await createEvent.GraphQL(bob.key, { conversationId: 'c1', payload: { kind: 'typing' } })
    expect(res.body).toEqual({
      data: {
        createEvent: {
          event: {
            id: expect.any(String),
            eventId: expect.any(String),
            conversationId: 'c1',
            userId: 'bob',
            createdAt: iso,
            payload: { kind: 'typing' },
            user: { userId: 'bob', name: 'Bob' },
            conversation: { conversationId: 'c1', owner: { userId: 'alice' } },
          },
        },
      },
    })
  })

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('creates the custom event and answers it', async () => {
      const alice = await client.connect('alice')
      await alice.createConversation({ id: 'c1' })
      expect(await alice.createEvent({ conversationId: 'c1', payload: { type: 'typing', on: true, n: [1, 2] } })).toEqual({
        event: {
          id: expect.stringMatching(CLIENT_ID),
          createdAt: iso,
          payload: { type: 'typing', on: true, n: [1, 2] },
          conversationId: 'c1',
          userId: 'alice',
        },
      })
    })
  })

  describeAccess(t, 'createEvent', createEvent, ({ conversationId }) => [{ conversationId, payload: { kind: 'intrusion' } }])
})
