import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterEach, describe, expect, it } from 'vitest'
import type { ConversationSignal } from '../../src/domain/signals.ts'
import { createSignalHub } from '../../src/signals/hub.ts'
import { connectRedisSignalBus, type RedisSignalBus } from '../../src/signals/redis.ts'
import { TEST_REDIS_URL } from '../helpers/redis.ts'
import { eventually } from '../helpers/wait.ts'

const at = '2026-01-01T00:00:00.000Z'
const added = (participantId: string, conversationId = 'c1'): ConversationSignal => ({
  type: 'participant_added',
  conversationId,
  participantId,
  participant: {
    integrationId: 'i1',
    id: participantId,
    name: null,
    pictureUrl: null,
    profile: null,
    isBot: false,
    idChosen: false,
    createdAt: at,
    updatedAt: at,
  },
})

const buses: RedisSignalBus[] = []
afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.close()))
})

/** Two instances' hubs on one Redis channel of this test's own. */
async function twoInstances() {
  const channel = `confab:test:${randomUUID()}`
  const [a, b] = await Promise.all([connectRedisSignalBus(TEST_REDIS_URL, { channel }), connectRedisSignalBus(TEST_REDIS_URL, { channel })])
  buses.push(a, b)
  return { channel, a: createSignalHub({ bus: a }), b: createSignalHub({ bus: b }) }
}

const clients: Redis[] = []
afterEach(() => {
  for (const client of clients.splice(0)) client.disconnect()
})

/** A plain Redis client subscribed to `channel`: what it hears there, as sent. */
async function overhear(channel: string): Promise<{ heard: string[] }> {
  const client = new Redis(TEST_REDIS_URL)
  clients.push(client)
  const heard: string[] = []
  client.on('message', (_channel: string, text: string) => heard.push(text))
  await client.subscribe(channel)
  return { heard }
}

describe('signals across instances (Redis)', () => {
  it('a listener on one instance hears, in order, what another publishes after it subscribed; its own instance hears it once', async () => {
    const { a, b } = await twoInstances()
    const onB = b.conversation('i1', 'c1')
    const onA = a.conversation('i1', 'c1')
    const firstB = onB.next()
    const firstA = onA.next()
    for (const id of ['u1', 'u2', 'u3']) a.publish('i1', added(id))
    a.publish('i1', added('elsewhere', 'c2'))
    a.publish('i2', added('other integration'))
    const heardB = [(await firstB).value, (await onB.next()).value, (await onB.next()).value]
    const heardA = [(await firstA).value, (await onA.next()).value, (await onA.next()).value]
    expect(heardB).toEqual([added('u1'), added('u2'), added('u3')])
    expect(heardA).toEqual(heardB)
    // Nothing else arrives: not the other conversation's, not the other integration's, not an echo.
    b.publish('i1', added('u4'))
    expect((await onB.next()).value).toEqual(added('u4'))
    expect((await onA.next()).value).toEqual(added('u4'))
    await onA.return?.()
    await onB.return?.()
    expect(a.activeSubscriptions()).toBe(0)
    expect(b.activeSubscriptions()).toBe(0)
  })

  it('ends the listeners of a deleted integration on every instance', async () => {
    const { a, b } = await twoInstances()
    const listener = b.listen('i1', 'c1', 'alice')
    const read = listener.next()
    a.closeIntegration('i1')
    expect(await read).toEqual({ done: true, value: undefined })
    expect(b.activeSubscriptions()).toBe(0)
  })

  it('sends what an instance publishes in one tick as one message, which the other instance hears in order', async () => {
    const { channel, a, b } = await twoInstances()
    const { heard } = await overhear(channel)
    const onB = b.conversation('i1', 'c1')
    const first = onB.next()
    for (const id of ['u1', 'u2', 'u3']) a.publish('i1', added(id))
    expect([(await first).value, (await onB.next()).value, (await onB.next()).value]).toEqual([added('u1'), added('u2'), added('u3')])
    await eventually(() => expect(heard).toHaveLength(1))
    const message = heard[0] as string
    const [origin, batch] = [message.slice(0, message.indexOf(' ')), JSON.parse(message.slice(message.indexOf(' ') + 1))]
    expect(origin).toMatch(/^[0-9a-f-]{36}$/)
    expect(batch).toEqual(['u1', 'u2', 'u3'].map((id) => ({ integrationId: 'i1', signal: added(id) })))
    await onB.return?.()
  })

  it('ignores a message on its channel that is not a batch of signals, and goes on hearing the next', async () => {
    const { channel, a, b } = await twoInstances()
    const publisher = new Redis(TEST_REDIS_URL)
    clients.push(publisher)
    const onB = b.conversation('i1', 'c1')
    const first = onB.next()
    for (const text of ['not json', 'origin {"an": "object"}', 'origin [1', '{"integrationId":"i1"}']) await publisher.publish(channel, text)
    a.publish('i1', added('u1'))
    expect((await first).value).toEqual(added('u1'))
    await onB.return?.()
  })

  it('fails loudly when Redis does not answer', async () => {
    await expect(connectRedisSignalBus('redis://127.0.0.1:1')).rejects.toThrow(/Redis does not answer/)
  })
})
