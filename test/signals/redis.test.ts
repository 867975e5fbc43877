import { randomUUID } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import type { ConversationSignal } from '../../src/domain/signals.ts'
import { createSignalHub } from '../../src/signals/hub.ts'
import { connectRedisSignalBus, type RedisSignalBus } from '../../src/signals/redis.ts'
import { TEST_REDIS_URL } from '../helpers/redis.ts'

const at = '2026-01-01T00:00:00.000Z'
const added = (participantId: string, conversationId = 'c1'): ConversationSignal => ({
  type: 'participant_added',
  conversationId,
  participantId,
  participant: { integrationId: 'i1', id: participantId, name: null, pictureUrl: null, profile: null, isBot: false, idChosen: false, createdAt: at, updatedAt: at },
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
  return { a: createSignalHub({ bus: a }), b: createSignalHub({ bus: b }) }
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

  it('fails loudly when Redis does not answer', async () => {
    await expect(connectRedisSignalBus('redis://127.0.0.1:1')).rejects.toThrow(/Redis does not answer/)
  })
})
