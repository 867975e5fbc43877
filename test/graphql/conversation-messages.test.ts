import { beforeEach, describe, expect, it } from 'vitest'
import { useC1, useTestApp } from '../helpers/app.ts'

/*
 * `conversation(id) { messages(...) }` reads the page with its conversation, in one statement
 * (src/db/queries/participation-page.ts): the pages it gives are those of the messages connection
 * read alone, whichever way it walks, and nothing of the page reaches a caller the gate refuses.
 */

const page = `
  query page($first: Int, $after: String, $last: Int, $before: String) {
    conversation(id: "c1") {
      messages(first: $first, after: $after, last: $last, before: $before) {
        edges { node { messageId } }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }
  }`

type Page = { ids: string[]; hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string; endCursor: string }

describe('conversation with its messages', () => {
  const t = useTestApp({ handlers: {} })
  const users = useC1(t, { others: ['mallory'] })
  /** The ids of c1's messages, newest first. */
  let newestFirst: string[]

  beforeEach(async () => {
    const posted: string[] = []
    for (let n = 0; n < 7; n++) posted.push((await t.message(users.alice.key, 'c1', { type: 'text', text: `m${n}` })).id)
    newestFirst = posted.reverse()
  })

  const read = async (variables: Record<string, unknown>, key = users.alice.key): Promise<Page> => {
    const res = await t.graphql(page, variables, { key })
    expect(res.status).toBe(200)
    expect(res.body.errors).toBeUndefined()
    const { edges, pageInfo } = res.body.data.conversation.messages
    return { ids: edges.map((edge: { node: { messageId: string } }) => edge.node.messageId), ...pageInfo }
  }

  it('walks forward with first and after, page by page', async () => {
    const first = await read({ first: 3 })
    expect(first).toMatchObject({ ids: newestFirst.slice(0, 3), hasNextPage: true })
    const second = await read({ first: 3, after: first.endCursor })
    expect(second).toMatchObject({ ids: newestFirst.slice(3, 6), hasNextPage: true })
    const last = await read({ first: 3, after: second.endCursor })
    expect(last).toMatchObject({ ids: newestFirst.slice(6), hasNextPage: false })
  })

  it('walks backward with last and before', async () => {
    const oldest = await read({ last: 2 })
    expect(oldest).toMatchObject({ ids: newestFirst.slice(5), hasPreviousPage: true })
    const before = await read({ last: 2, before: oldest.startCursor })
    expect(before).toMatchObject({ ids: newestFirst.slice(3, 5), hasPreviousPage: true })
  })

  it('answers an empty page for a conversation without messages', async () => {
    await t.conversation(users.alice.key, 'c2')
    const res = await t.graphql(
      'query { conversation(id: "c2") { messages(first: 5) { edges { node { messageId } } pageInfo { hasNextPage } } } }',
      {},
      { key: users.alice.key },
    )
    expect(res.body).toEqual({ data: { conversation: { messages: { edges: [], pageInfo: { hasNextPage: false } } } } })
  })

  it('answers two pages of one conversation asked under two aliases', async () => {
    const res = await t.graphql(
      'query { conversation(id: "c1") { a: messages(first: 1) { edges { node { messageId } } } b: messages(first: 2) { edges { node { messageId } } } } }',
      {},
      { key: users.alice.key },
    )
    expect(res.body).toEqual({
      data: {
        conversation: {
          a: { edges: [{ node: { messageId: newestFirst[0] } }] },
          b: { edges: newestFirst.slice(0, 2).map((messageId) => ({ node: { messageId } })) },
        },
      },
    })
  })

  it('refuses a cursor it did not issue with InvalidPayload on the page, after the gate', async () => {
    const res = await t.graphql(page, { first: 2, after: 'not-a-cursor' }, { key: users.alice.key })
    expect(res.body).toEqual({
      data: null,
      errors: [
        {
          message: 'nextToken is not a token this list issued',
          locations: [expect.any(Object)],
          path: ['conversation', 'messages'],
          extensions: { type: 'InvalidPayload', status: 400, requestId: res.headers.get('x-request-id') },
        },
      ],
    })
    // A stranger's bad cursor is refused by the gate first.
    const stranger = await t.graphql(page, { first: 2, after: 'not-a-cursor' }, { key: users.mallory.key })
    expect(stranger.body.errors[0].extensions.type).toBe('ResourceNotFound')
  })

  it('gives a user who does not participate ResourceNotFound (as for no such conversation) and no message', async () => {
    const res = await t.graphql(page, { first: 5 }, { key: users.mallory.key })
    expect(res.body).toEqual({
      data: null,
      errors: [
        {
          message: 'Conversation "c1" does not exist',
          locations: [expect.any(Object)],
          path: ['conversation'],
          extensions: { type: 'ResourceNotFound', status: 404, requestId: res.headers.get('x-request-id') },
        },
      ],
    })
  })
})
