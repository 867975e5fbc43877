import { describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.ts'
import { eventually } from '../helpers/wait.ts'

// A view of many conversations with their participants, messages and authors costs a fixed number
// of SQL statements however many conversations it shows (DataLoader batching, no N+1).

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

describe('batched loading', () => {
  let statements: string[] | undefined
  // A bot that says nothing, so that one can tell when the runtime has seen every message.
  let handled = 0
  // On PostgreSQL the integration webhooks' sender looks at its outbox every `botSweepMs` (2 s) whether or not
  // anything woke it: a view slowed by a busy machine would count that look too, so it is pushed out of the test.
  const t = useTestApp({ handlers: { echo: () => void (handled += 1) }, onQuery: (sql) => statements?.push(sql), botSweepMs: 3_600_000 })

  /** `count` conversations owned by alice, each with bob and carol in it and 12 messages, m0 to m11, from all three in turn. */
  async function seed(count: number) {
    const people = await Promise.all(['alice', 'bob', 'carol'].map((id) => t.user(id, { name: id.toUpperCase() })))
    for (let c = 0; c < count; c++) {
      const id = await t.conversation(people[0]!.key, `c${c}`, ['bob', 'carol'])
      for (const [p, person] of people.entries()) {
        const mine = [0, 1, 2, 3].map((i) => i * 3 + p)
        const fields = mine.map(
          (m) => `m${m}: createMessage(input: { conversationId: "${id}", payload: { text: { text: "${id}-${m}" } } }) { message { messageId } }`,
        )
        const res = await t.graphql(`mutation { ${fields.join('\n')} }`, {}, { key: person.key })
        expect(res.body.errors).toBeUndefined()
      }
    }
    return people[0]!
  }

  async function countStatements(first: number, key: string) {
    statements = []
    const res = await t.graphql(VIEW, { first }, { key })
    const count = statements.length
    statements = undefined
    expect(res.body.errors).toBeUndefined()
    return { res, count }
  }

  it('reads 50 conversations with their participants and last 10 messages and authors in a fixed number of statements', async () => {
    handled = 0
    const alice = await seed(50)
    // The bot runtime reads the database after every message: once it has seen them all, only the view runs SQL.
    await eventually(() => expect(handled).toBe(50 * 12))
    await t.app.bots.idle()
    // And stopped: on PostgreSQL it also looks at the outbox every 2 s, which a slow view would count.
    await t.app.bots.stop()
    const five = await countStatements(5, alice.key)
    const fifty = await countStatements(50, alice.key)
    expect(fifty.res.body.data.conversations.edges).toHaveLength(50)
    const oldest = fifty.res.body.data.conversations.edges[49].node
    expect(oldest.participants.edges.map((e: { node: { userId: string } }) => e.node.userId)).toEqual(['alice', 'bob', 'carol'])
    expect(oldest.messages.edges).toHaveLength(10)
    expect(oldest.messages.edges[0].node).toEqual({ messageId: expect.any(String), author: { userId: 'carol', name: 'CAROL' }, payload: { text: 'c0-11' } })
    expect(fifty.count).toBe(five.count)
    expect(fifty.count).toBeLessThanOrEqual(8)
  }, 60_000)

  it("reads no user row for a message author's id, and one batch for anything more of the authors", async () => {
    handled = 0
    const alice = await seed(1)
    await eventually(() => expect(handled).toBe(12))
    await t.app.bots.idle()
    await t.app.bots.stop()
    const page = (fields: string) => `{ conversation(id: "c0") { messages(first: 12) { edges { node { author { ${fields} } } } } } }`
    const authors = async (fields: string) => {
      statements = []
      const res = await t.graphql(page(fields), {}, { key: alice.key })
      const usersRead = statements.filter((sql) => /from "users"/i.test(sql)).length
      statements = undefined
      expect(res.body.errors).toBeUndefined()
      return { authors: res.body.data.conversation.messages.edges.map((e: { node: { author: unknown } }) => e.node.author), usersRead }
    }
    const byId = (list: { userId: string }[]) => [...list].sort((a, b) => a.userId.localeCompare(b.userId))
    const ids = await authors('userId')
    expect(ids.usersRead).toBe(0)
    expect(byId(ids.authors)).toEqual(['alice', 'bob', 'carol'].flatMap((userId) => Array(4).fill({ userId })))
    const named = await authors('userId name isBot')
    expect(named.usersRead).toBe(1)
    expect(byId(named.authors)).toEqual(['alice', 'bob', 'carol'].flatMap((userId) => Array(4).fill({ userId, name: userId.toUpperCase(), isBot: false })))
  }, 60_000)
})
