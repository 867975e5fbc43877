import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
let statements: string[]
let counting = false
beforeEach(() => {
  statements = []
  t = createTestApp({ handlers: {}, onQuery: (sql) => counting && statements.push(sql) })
})
afterEach(() => t.close())

const VIEW = /* GraphQL */ `
  query ($first: Int!) {
    conversations(first: $first) {
      edges {
        node {
          conversationId
          owner { userId }
          participants(first: 10) { edges { node { userId name } } }
          messages(first: 10) {
            edges { node { messageId author { userId name } payload { ... on TextPayload { text } } } }
          }
        }
      }
    }
  }
`

/** `count` conversations owned by alice, each with bob and carol in it and 12 messages from all three. */
async function seed(count: number) {
  const people = await Promise.all(['alice', 'bob', 'carol'].map((id) => t.user(id, { name: id.toUpperCase() })))
  for (let c = 0; c < count; c++) {
    const id = await t.conversation(people[0]!.key, `c${c}`, ['bob', 'carol'])
    for (let m = 0; m < 12; m++) {
      const author = people[m % 3]!
      await t.chat('POST', '/messages', {
        key: author.key,
        body: { conversationId: id, payload: { type: 'text', text: `${id}-${m}` } },
      })
    }
  }
  // The echo bot answers from the delivery outbox in the background: its statements are not the view's.
  await t.app.bots.idle()
  return people[0]!
}

async function countStatements(first: number, key: string) {
  statements = []
  counting = true
  const res = await t.graphql(VIEW, { first }, { key })
  counting = false
  expect(res.body.errors).toBeUndefined()
  return { res, count: statements.length }
}

describe('batched loading (no N+1)', () => {
  it('reads 50 conversations with their participants and last 10 messages and authors in a fixed number of statements', async () => {
    const alice = await seed(50)
    const five = await countStatements(5, alice.key)
    const fifty = await countStatements(50, alice.key)
    expect(fifty.res.body.data.conversations.edges).toHaveLength(50)
    const first = fifty.res.body.data.conversations.edges[49].node
    expect(first.participants.edges.map((e: { node: { userId: string } }) => e.node.userId)).toEqual(['alice', 'bob', 'carol'])
    expect(first.messages.edges).toHaveLength(10)
    expect(first.messages.edges[0].node).toEqual({
      messageId: expect.any(String),
      author: { userId: 'carol', name: 'CAROL' },
      payload: { text: 'c0-11' },
    })
    expect(fifty.count).toBe(five.count)
    expect(fifty.count).toBeLessThanOrEqual(8)
    console.info(`statements for 5 conversations: ${five.count}; for 50: ${fifty.count}`)
  }, 60_000)
})
