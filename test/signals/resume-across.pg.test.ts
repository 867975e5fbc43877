import { Client as ChatClient } from '@botpress/chat'
import { afterEach, describe, expect, it } from 'vitest'
import { twoInstances } from '../helpers/instances.ts'
import { PING } from '../helpers/listening.ts'
import { SseReader } from '../helpers/sse.ts'
import { eventually } from '../helpers/wait.ts'

/*
 * Resuming across instances (two apps behind real HTTP servers, one PostgreSQL database, one Redis):
 * the id a listener on B hears for a message posted on A is the committed log's own, and a listener
 * that resumes on B from it gets what A wrote meanwhile, read from the database. Always runs on
 * PostgreSQL and Redis (see test/helpers/instances.ts).
 */
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('resuming across instances (PostgreSQL and Redis)', () => {
  it('B tells A’s message with its log id (its own id); a listener resuming on B from it gets what A wrote meanwhile, then live', async () => {
    const { a, b, servedA, servedB } = await twoInstances(cleanups)
    const alice = await ChatClient.connect({ apiUrl: servedA.apiUrl, userId: 'alice' })
    await alice.createConversation({ id: 'across' })

    const listen = async (lastEventId?: string) => {
      const before = b.app.signals.activeSubscriptions()
      const headers: Record<string, string> = { 'x-user-key': alice.user.key, ...(lastEventId && { 'last-event-id': lastEventId }) }
      const response = await fetch(`${servedB.apiUrl}/conversations/across/listen`, { headers })
      expect(response.status).toBe(200)
      const sse = new SseReader(response.body!)
      cleanups.push(() => sse.cancel())
      await eventually(() => expect(b.app.signals.activeSubscriptions()).toBe(before + 1))
      const next = async () => {
        const block = await sse.message((x) => x.data === PING)
        return { id: block?.id, ...JSON.parse(block?.data as string) }
      }
      return { next, close: () => sse.cancel() }
    }
    const post = async (text: string) => (await alice.createMessage({ conversationId: 'across', payload: { type: 'text', text } })).message

    const first = await listen()
    const heard = await post('heard')
    const told = await first.next()
    expect(told).toMatchObject({ type: 'message_created', data: { id: heard.id } })
    // A new message is its own entry of the log: its id is the one B tells, and the database holds it.
    expect(told.id).toBe(heard.id)
    expect(await a.query<{ id: string }>('select id from messages where id = $1', heard.id)).toEqual([{ id: heard.id }])
    await first.close()

    const missed = [await post('missed 1'), await post('missed 2')]
    const again = await listen(told.id)
    expect([await again.next(), await again.next()].map((s) => s.data.id)).toEqual(missed.map((m) => m.id))
    const live = await post('live')
    expect(await again.next()).toMatchObject({ type: 'message_created', data: { id: live.id } })
  })
})
