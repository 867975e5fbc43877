import { describe, expect, it } from 'vitest'
import type { ConversationSignal } from '../../src/domain/signals.ts'
import { createSignalHub } from '../../src/signals/hub.ts'
import { SignalQueue } from '../../src/signals/queue.ts'

const added = (participantId: string): ConversationSignal => ({
  type: 'participant_added',
  conversationId: 'c1',
  participantId,
  participant: {
    integrationId: 'i1',
    id: participantId,
    name: null,
    pictureUrl: null,
    profile: null,
    isBot: false,
    idChosen: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  },
})
const removed = (participantId: string): ConversationSignal => ({ type: 'participant_removed', conversationId: 'c1', participantId })

/** Reads an iterator to its end. */
async function drain<T>(iterator: AsyncIterator<T>): Promise<T[]> {
  const values: T[] = []
  for (;;) {
    const next = await iterator.next()
    if (next.done) return values
    values.push(next.value)
  }
}

describe('SignalQueue', () => {
  it('opens on the first read, hands values over in order, and closes once when ended', async () => {
    const calls: string[] = []
    const queue = new SignalQueue<number>(
      () => calls.push('open'),
      () => calls.push('close'),
    )
    expect(calls).toEqual([])
    const first = queue.next()
    expect(calls).toEqual(['open'])
    queue.push(1)
    queue.push(2)
    queue.end()
    queue.end()
    queue.push(3)
    expect(await first).toEqual({ value: 1, done: false })
    expect(await drain(queue)).toEqual([2])
    expect(calls).toEqual(['open', 'close'])
  })

  it('finishes at once on return(), dropping what was not read', async () => {
    const queue = new SignalQueue<number>(
      () => {},
      () => {},
    )
    const first = queue.next()
    queue.push(1)
    queue.push(2)
    await first
    expect(await queue.return()).toEqual({ done: true, value: undefined })
    expect(await queue.next()).toEqual({ done: true, value: undefined })
  })

  it('ends a reader that falls behind by its capacity, after what it has not read yet', async () => {
    let closed = false
    const queue = new SignalQueue<number>(
      () => {},
      () => (closed = true),
      3,
    )
    const first = queue.next()
    for (let i = 1; i <= 10; i++) queue.push(i)
    expect(closed).toBe(true)
    expect(await first).toEqual({ value: 1, done: false })
    expect(await drain(queue)).toEqual([2, 3, 4])
  })

  it('holds nothing when it is never read', async () => {
    let opened = false
    const queue = new SignalQueue<number>(
      () => (opened = true),
      () => {},
    )
    await queue.return()
    expect(opened).toBe(false)
  })
})

describe('signal hub', () => {
  it('hands every listener of a conversation the same signal object', async () => {
    const hub = createSignalHub()
    const listeners = Array.from({ length: 5 }, (_, i) => hub.listen('i1', 'c1', `u${i}`))
    const reads = listeners.map((l) => l.next())
    const signal = added('u9')
    hub.publish('i1', signal)
    for (const read of reads) expect((await read).value).toBe(signal)
    hub.closeListeners()
  })

  it('hands many listeners their signals a slice per event-loop turn, each in order, letting other work run between slices', async () => {
    const hub = createSignalHub()
    const listeners = Array.from({ length: 100 }, (_, i) => hub.listen('i1', 'c1', `u${i}`))
    const firsts = listeners.map((l) => l.next())
    await Promise.resolve()
    let turned = false
    setImmediate(() => (turned = true))
    const signals = ['a', 'b', 'c'].map(added)
    for (const signal of signals) hub.publish('i1', signal)
    // Whether the event loop had turned when each listener heard the first signal: not for the first slice, yes for the last.
    const turnedWhenHeard = firsts.map((read) => read.then(() => turned))
    expect((await Promise.all(firsts)).map((read) => read.value)).toEqual(listeners.map(() => signals[0]))
    expect(await turnedWhenHeard[0]).toBe(false)
    expect(await turnedWhenHeard.at(-1)).toBe(true)
    for (const listener of listeners) {
      expect((await listener.next()).value).toBe(signals[1])
      expect((await listener.next()).value).toBe(signals[2])
    }
    hub.closeListeners()
  })

  it('keeps up with signals that come faster than its slices go out: every listener hears every one, in order', async () => {
    const hub = createSignalHub()
    const listeners = Array.from({ length: 20 }, (_, i) => hub.listen('i1', 'c1', `u${i}`))
    const heard = listeners.map(async (listener) => {
      const ids: string[] = []
      for await (const signal of listener) {
        if (signal.type === 'participant_added') ids.push(signal.participantId)
        if (ids.length === 3_000) break
      }
      return ids
    })
    await Promise.resolve()
    const sent: string[] = []
    // 100 signals per event-loop turn: thirty times what one turn's slice hands to 20 listeners.
    for (let turn = 0; turn < 30; turn++) {
      for (let i = 0; i < 100; i++) {
        const id = `p${turn * 100 + i}`
        sent.push(id)
        hub.publish('i1', added(id))
      }
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
    for (const ids of await Promise.all(heard)) expect(ids).toEqual(sent)
    expect(hub.activeSubscriptions()).toBe(0)
  })

  it('ends a reader of every signal that falls 1,024 behind, and the others hear on', async () => {
    const hub = createSignalHub()
    const stalled = hub.all()
    const reading = hub.all()
    const stalledFirst = stalled.next()
    const heard: string[] = []
    const reader = (async () => {
      for await (const { signal } of reading) if (signal.type === 'participant_added') heard.push(signal.participantId)
    })()
    await Promise.resolve()
    for (let i = 0; i < 1_100; i++) {
      hub.publish('i1', added(`p${i}`))
      if (i % 50 === 0) await new Promise<void>((resolve) => setImmediate(resolve))
    }
    await stalledFirst
    let stalledRead = 1
    while (!(await stalled.next()).done) stalledRead++
    expect(stalledRead).toBe(1_025)
    await expect.poll(() => heard.length).toBe(1_100)
    await reading.return?.()
    await reader
    expect(hub.activeSubscriptions()).toBe(0)
  })

  it("ends a participant's listener after its own participant_removed, and leaves the others listening", async () => {
    const hub = createSignalHub()
    const alice = hub.listen('i1', 'c1', 'alice')
    const bob = hub.listen('i1', 'c1', 'bob')
    const aliceHeard = drain(alice)
    const bobFirst = bob.next()
    hub.publish('i1', removed('alice'))
    hub.publish('i1', added('carol'))
    expect(await aliceHeard).toEqual([removed('alice')])
    expect((await bobFirst).value).toEqual(removed('alice'))
    expect((await bob.next()).value).toEqual(added('carol'))
    expect(hub.activeSubscriptions()).toBe(1)
    await bob.return?.()
    expect(hub.activeSubscriptions()).toBe(0)
  })

  it('ends every listener of a deleted conversation without telling them the deletion', async () => {
    const hub = createSignalHub()
    const heard = [hub.listen('i1', 'c1', 'alice'), hub.listen('i1', 'c1', 'bob')].map(drain)
    // Let both listeners join before publishing.
    await Promise.resolve()
    hub.publish('i1', added('carol'))
    hub.publish('i1', { type: 'conversation_deleted', conversationId: 'c1' })
    expect(await Promise.all(heard)).toEqual([[added('carol')], [added('carol')]])
    expect(hub.activeSubscriptions()).toBe(0)
  })

  it('keeps conversations and integrations apart, and closeListeners ends them all', async () => {
    const hub = createSignalHub()
    const here = hub.listen('i1', 'c1', 'alice')
    const elsewhere = hub.listen('i2', 'c1', 'alice')
    const hereFirst = here.next()
    const elsewhereFirst = elsewhere.next()
    hub.publish('i1', { ...added('carol'), conversationId: 'c2' })
    hub.publish('i1', added('bob'))
    expect((await hereFirst).value).toEqual(added('bob'))
    hub.closeListeners()
    expect(await elsewhereFirst).toEqual({ done: true, value: undefined })
    expect(await here.next()).toEqual({ done: true, value: undefined })
    expect(hub.activeSubscriptions()).toBe(0)
  })
})
