import { describe, expect, it } from 'vitest'
import { type JsonResponse, type TestApp, useC1, useTestApp } from '../helpers/app.ts'

// Every connection takes a page size (first or last) from 1 to 100; outside that, the field is
// refused with InvalidPayload. (Each list's order and cursors are its operation's own tests.)

const connections: [string, (t: TestApp, key: string, args: string) => Promise<JsonResponse>, string[]][] = [
  ['conversations', (t, key, args) => t.graphql(`query { conversations(${args}) { edges { node { conversationId } } } }`, {}, { key }), ['conversations']],
  [
    'conversation.messages',
    (t, key, args) => t.graphql(`query { conversation(id: "c1") { messages(${args}) { pageInfo { hasNextPage } } } }`, {}, { key }),
    ['conversation', 'messages'],
  ],
  [
    'conversation.participants',
    (t, key, args) => t.graphql(`query { conversation(id: "c1") { participants(${args}) { pageInfo { hasNextPage } } } }`, {}, { key }),
    ['conversation', 'participants'],
  ],
  ['admin bots', (t, _key, args) => t.adminGraphql(`query { bots(${args}) { pageInfo { hasNextPage } } }`), ['bots']],
]

describe('connection page sizes', () => {
  const t = useTestApp({ handlers: {} })
  const users = useC1(t)

  describe.each(connections)('%s', (_name, query, path) => {
    it.each([
      ['first', 0],
      ['first', 101],
      ['first', -1],
      ['last', 0],
      ['last', 101],
    ])('refuses %s: %i with InvalidPayload', async (arg, size) => {
      const res = await query(t, users.alice.key, `${arg}: ${size}`)
      expect(res.status).toBe(200)
      expect(res.body).toEqual({
        data: null,
        errors: [
          {
            message: `${arg} (page size) must be from 1 to 100, got ${size}`,
            locations: [expect.any(Object)],
            path,
            extensions: { type: 'InvalidPayload', status: 400, requestId: res.headers.get('x-request-id') },
          },
        ],
      })
    })

    it.each([['first: 100'], ['last: 100']])('answers %s', async (args) => {
      const res = await query(t, users.alice.key, args)
      expect(res.status).toBe(200)
      expect(res.body.errors).toBeUndefined()
    })
  })

  it('answers conversations(first: 100) and (last: 100) with every conversation', async () => {
    for (const args of ['first: 100', 'last: 100']) {
      expect((await connections[0]?.[1](t, users.alice.key, args))?.body).toEqual({ data: { conversations: { edges: [{ node: { conversationId: 'c1' } }] } } })
    }
  })
})
