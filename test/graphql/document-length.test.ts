import { describe, expect, it } from 'vitest'
import { type Bounded, useBounded } from '../helpers/bounded.ts'
import { connectedSocket } from '../helpers/sockets.ts'

// Armor's token limit counts neither comments nor whitespace: a document is also capped at 100,000
// characters, so that a huge comment (under the 1 MB body and frame limits) is refused, not run.

const padding = (kind: 'comment' | 'whitespace') => (kind === 'comment' ? `# ${'x'.repeat(200_000)}\n` : ' '.repeat(200_000))
const mutation = (kind: 'comment' | 'whitespace') =>
  `${padding(kind)}mutation { createConversation(input: { id: "padded" }) { conversation { conversationId } } }`
const refusal = /^Syntax Error: Document length limit of 100000 characters exceeded, found 2000\d\d \(comments and whitespace count\)\.$/

const conversationIds = async (b: Bounded) => (await b.t.query<{ id: string }>('select id from conversations order by id')).map((row) => row.id)

describe('a huge document over GraphQL over HTTP', () => {
  const b = useBounded()

  it.each(['comment', 'whitespace'] as const)('with a huge %s is refused before it runs', async (kind) => {
    const { key } = await b.current.t.user('alice')
    const response = await fetch(`${b.current.apiUrl}/graphql`, {
      method: 'POST',
      headers: { 'x-user-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: mutation(kind) }),
    })
    const body = await response.json()
    expect(body).toEqual({
      errors: [
        { message: expect.stringMatching(refusal), extensions: { type: 'InvalidPayload', status: 400, requestId: response.headers.get('x-request-id') } },
      ],
    })
    expect(await conversationIds(b.current)).toEqual([])
  })

  it('of 100,000 characters runs', async () => {
    const { key } = await b.current.t.user('alice')
    const operation = 'mutation { createConversation(input: { id: "padded" }) { conversation { conversationId } } }'
    const query = `# ${'x'.repeat(100_000 - operation.length - 3)}\n${operation}`
    expect(query.length).toBe(100_000)
    const response = await fetch(`${b.current.apiUrl}/graphql`, {
      method: 'POST',
      headers: { 'x-user-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    })
    expect(await response.json()).toEqual({ data: { createConversation: { conversation: { conversationId: 'padded' } } } })
  })
})

describe('a huge document over GraphQL over WebSocket', () => {
  const b = useBounded()

  it('is refused with an error for that operation, and the socket stays usable', async () => {
    const { key } = await b.current.t.user('alice')
    const socket = await connectedSocket(b.current.wsUrl, key)
    await socket.acked
    socket.send({ id: '1', type: 'subscribe', payload: { query: mutation('comment') } })
    const refused = await socket.next((m) => m.id === '1')
    expect(refused).toEqual({
      id: '1',
      type: 'error',
      payload: [{ message: expect.stringMatching(refusal), extensions: { type: 'InvalidPayload', status: 400, requestId: expect.any(String) } }],
    })
    expect(await conversationIds(b.current)).toEqual([])
    socket.send({ id: '2', type: 'subscribe', payload: { query: '{ __typename }' } })
    expect(await socket.next((m) => m.id === '2')).toEqual({ id: '2', type: 'next', payload: { data: { __typename: 'Query' } } })
    socket.ws.close()
  })
})
