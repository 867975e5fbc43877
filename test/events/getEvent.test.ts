import { describe, expect, it } from 'vitest'
import { iso, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { useOfficialClient } from '../helpers/listening.ts'
import { expectRefusal, TRANSPORTS } from '../helpers/transports.ts'

const EVENT = /* GraphQL */ `
  query ($id: String!) {
    event(id: $id) { id eventId conversationId userId createdAt payload user { userId name } conversation { conversationId owner { userId } } }
  }
`

describe('getEvent', () => {
  const t = useTestApp({ handlers: {} })
  const getEvent = {
    REST: (key: string | undefined, id: string) => t.chat('GET', `/events/${id}`, { key }),
    GraphQL: (key: string | undefined, id: string) => t.graphql(EVENT, { id }, { key }),
  }
  const aliceAndBobInC1 = () => t.c1({ members: ['bob'], profiles: { alice: { name: 'Alice' } } })

  it('REST GET /events/{id} returns the event exactly as created, to every participant', async () => {
    const { alice, bob } = await aliceAndBobInC1()
    const created = await t.chat('POST', '/events', { key: alice.key, body: { conversationId: 'c1', payload: { type: 'typing', on: true } } })
    for (const key of [alice.key, bob.key]) {
      const res = await getEvent.REST(key, created.body.event.id)
      expect(res.status).toBe(200)
      expect(res.body).toStrictEqual({
        event: { id: created.body.event.id, createdAt: iso, payload: { type: 'typing', on: true }, conversationId: 'c1', userId: 'alice' },
      })
      expect(res.body).toEqual(created.body)
    }
  })

  it('GraphQL event(id) reads the event, its author and its conversation, the same for every participant', async () => {
    const { alice, bob } = await aliceAndBobInC1()
    const payload = { kind: 'typing', nested: { list: [1, 'two', null, { deep: false }], empty: {} }, n: 1.5 }
    const event = await t.event(alice.key, 'c1', payload)
    const expected = {
      data: {
        event: {
          id: expect.any(String),
          eventId: event.id,
          conversationId: 'c1',
          userId: 'alice',
          createdAt: event.createdAt,
          payload,
          user: { userId: 'alice', name: 'Alice' },
          conversation: { conversationId: 'c1', owner: { userId: 'alice' } },
        },
      },
    }
    for (const key of [alice.key, bob.key]) expect((await getEvent.GraphQL(key, event.id)).body).toEqual(expected)
  })

  it.each(TRANSPORTS)('%s answers 404 ResourceNotFound for the id of a message', async (transport) => {
    const { alice } = await aliceAndBobInC1()
    const message = await t.message(alice.key, 'c1')
    expectRefusal(await getEvent[transport](alice.key, message.id), transport, 404, 'ResourceNotFound', ['event'])
  })

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('returns the event as created to every participant', async () => {
      const [alice, bob] = await client.inConversation('c1', 'alice', 'bob')
      const { event } = await alice.createEvent({ conversationId: 'c1', payload: { kind: 'ping' } })
      expect(await alice.getEvent({ id: event.id })).toEqual({ event })
      expect(await bob.getEvent({ id: event.id })).toEqual({ event })
    })
  })

  describeAccess(t, 'event', getEvent, ({ eventId }) => [eventId])
})
