import { Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { useBounded } from '../helpers/bounded.ts'
import { connectedSocket } from '../helpers/sockets.ts'
import { type Heard, subscribersOf } from '../helpers/subscribers.ts'
import { eventually } from '../helpers/wait.ts'

// A signal is rendered once per selection shape, whatever the transport and however many subscribe
// to it (graphql/shared-rendering.ts): graphql-ws, graphql-sse and GraphQL over SSE share one
// rendering of a document and its variables, graphql-ws sends the same bytes to each socket, and the
// REST and web chat streams render once per route. Who hears what is still decided per subscriber.

const SHAPE_A = 'subscription ($id: String!) { conversationSignals(conversationId: $id) { ... on MessageCreatedSignal { message { messageId rawPayload } } } }'
const SHAPE_B =
  'subscription B($id: String!) { conversationSignals(conversationId: $id) { __typename ... on MessageCreatedSignal { isBot message { messageId } } } }'
/** Reads the conversation through the message: a field only a participant may read. */
const THROUGH_CONVERSATION =
  'subscription ($id: String!) { conversationSignals(conversationId: $id) { ... on MessageCreatedSignal { message { messageId conversation { conversationId } } } } }'

/** Counts, per message id, the renderings and the serialisations made of its message_created signal. */
function countWork(renderings: ReturnType<typeof useBounded>['current']['t']['app']['renderings']) {
  const rendered = new Map<string, string[]>()
  const serialised = new Map<string, number>()
  renderings.observer = {
    rendered(event, shape) {
      const signal = event as { type?: string; message?: { id: string } }
      if (signal.type !== 'message_created' || !signal.message) return
      rendered.set(signal.message.id, [...(rendered.get(signal.message.id) ?? []), shape])
    },
    serialised(result) {
      const id = (result.data?.conversationSignals as { message?: { messageId?: string } } | undefined)?.message?.messageId
      if (id) serialised.set(id, (serialised.get(id) ?? 0) + 1)
    },
  }
  return { rendered: (id: string) => rendered.get(id) ?? [], serialised: (id: string) => serialised.get(id) ?? 0 }
}

const messageIdOf = (message: any): string | undefined =>
  message?.data?.conversationSignals?.message?.messageId ?? (message?.type === 'message_created' ? message.data?.id : undefined)

describe('fan-out: a signal rendered once per selection shape', { timeout: 90_000 }, () => {
  const b = useBounded()

  it('renders a message once per shape for every GraphQL transport and once per REST route, and graphql-ws serialises it once per shape', async () => {
    const { t, apiUrl } = b.current
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const work = countWork(t.app.renderings)
    const subscribe = subscribersOf(apiUrl)
    const vars = { id: 'c1' }
    const heard: Heard[] = [
      ...(await Promise.all([1, 2, 3].map(() => subscribe.ws(alice.key, SHAPE_A, vars)))),
      // A variable the document does not declare changes nothing: the same shape.
      await subscribe.ws(alice.key, SHAPE_A, { ...vars, unused: 'x' }),
      ...(await Promise.all([1, 2].map(() => subscribe.ws(alice.key, SHAPE_B, vars)))),
      ...(await Promise.all([1, 2].map(() => subscribe.graphqlSse(alice.key, SHAPE_A, vars)))),
      await subscribe.yogaSse(alice.key, SHAPE_A, vars),
      await subscribe.graphqlSse(alice.key, SHAPE_B, vars),
      ...(await Promise.all([1, 2, 3].map(() => subscribe.listen(alice.key, 'c1')))),
      ...(await Promise.all([1, 2].map(() => subscribe.webchat(alice.key, 'c1')))),
    ]
    await eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(heard.length))

    const posted = await t.message(alice.key, 'c1', { type: 'text', text: 'to everyone' })
    const received = await Promise.all(heard.map((h) => h.next((m) => messageIdOf(m) === posted.id)))
    expect(received.slice(0, 4).map((m) => m.data.conversationSignals)).toEqual(
      Array(4).fill({ message: { messageId: posted.id, rawPayload: { type: 'text', text: 'to everyone' } } }),
    )
    expect(received[4]).toEqual({ data: { conversationSignals: { __typename: 'MessageCreatedSignal', isBot: false, message: { messageId: posted.id } } } })

    // Two GraphQL shapes, the listen route and the web chat's: four renderings for 15 subscribers.
    const shapes = work.rendered(posted.id)
    expect(shapes).toHaveLength(4)
    expect(new Set(shapes).size).toBe(4)
    // graphql-ws' sockets send the bytes of their shape's one serialisation.
    expect(work.serialised(posted.id)).toBe(2)

    const next = await t.message(alice.key, 'c1', { type: 'text', text: 'again' })
    await Promise.all(heard.map((h) => h.next((m) => messageIdOf(m) === next.id)))
    expect(work.rendered(next.id)).toHaveLength(4)
    for (const h of heard) await h.close()
  })

  it('renders for a subscriber that still hears the signal: one removed from the conversation stops hearing, the others go on', async () => {
    const { t, apiUrl } = b.current
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
    const work = countWork(t.app.renderings)
    const subscribe = subscribersOf(apiUrl)
    // bob subscribes first: the shape's first subscriber.
    const bobs = await subscribe.ws(bob.key, THROUGH_CONVERSATION, { id: 'c1' })
    await eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(1))
    const alices = await Promise.all([1, 2].map(() => subscribe.ws(alice.key, THROUGH_CONVERSATION, { id: 'c1' })))
    await eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(3))

    const first = await t.message(alice.key, 'c1')
    for (const h of [bobs, ...alices]) {
      expect(await h.next((m) => messageIdOf(m) === first.id)).toEqual({
        data: { conversationSignals: { message: { messageId: first.id, conversation: { conversationId: 'c1' } } } },
      })
    }

    expect((await t.chat('DELETE', '/conversations/c1/participants/bob', { key: alice.key })).status).toBe(200)
    await eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(2))
    const second = await t.message(alice.key, 'c1')
    for (const h of alices) {
      expect(await h.next((m) => messageIdOf(m) === second.id)).toEqual({
        data: { conversationSignals: { message: { messageId: second.id, conversation: { conversationId: 'c1' } } } },
      })
    }
    expect(bobs.messages.map(messageIdOf)).not.toContain(second.id)
    expect(work.rendered(second.id)).toHaveLength(1)
    for (const h of [bobs, ...alices]) await h.close()
  })
})

describe('fan-out: the messages a WebSocket is sent in one event-loop turn leave in one write', { timeout: 90_000 }, () => {
  const b = useBounded()

  it('sends a signal to ten subscriptions of one graphql-ws socket in one write to the kernel', async () => {
    const { t, apiUrl } = b.current
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const socket = await connectedSocket(`${apiUrl.replace(/^http/, 'ws')}/graphql`, alice.key)
    await socket.acked
    const ids = Array.from({ length: 10 }, (_, i) => `s${i}`)
    for (const id of ids) socket.send({ id, type: 'subscribe', payload: { query: SHAPE_A, variables: { id: 'c1' } } })
    await eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(ids.length))

    // Every write a socket of this process hands the kernel (net.Socket's one path to it), kept when it
    // carries a server frame of the message: the client's frames are masked, and never carry its id.
    const writes: string[][] = []
    const writeGeneric = (Socket.prototype as any)._writeGeneric
    ;(Socket.prototype as any)._writeGeneric = function (this: Socket, writev: boolean, data: any, ...rest: unknown[]) {
      const chunks = (writev ? (data as { chunk: Buffer | string }[]).map((each) => each.chunk) : [data]).map(String)
      writes.push(chunks)
      return writeGeneric.call(this, writev, data, ...rest)
    }
    try {
      const posted = await t.message(alice.key, 'c1', { type: 'text', text: 'to ten' })
      await socket.next((m) => m.id === 's9' && m.payload?.data?.conversationSignals?.message?.messageId === posted.id)
      for (const id of ids) await socket.next((m) => m.id === id && m.payload?.data?.conversationSignals?.message?.messageId === posted.id)
      const carrying = writes.filter((chunks) => chunks.some((chunk) => chunk.includes(`"messageId":"${posted.id}"`) && chunk.includes('"type":"next"')))
      expect(carrying).toHaveLength(1)
      expect(carrying[0]?.join('').match(/"type":"next"/g)).toHaveLength(ids.length)
    } finally {
      ;(Socket.prototype as any)._writeGeneric = writeGeneric
      socket.ws.close()
    }
  })
})
