import { Database } from '../../src/db/sqlite/driver.ts'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'

// The hot paths run prepared statements only: once each statement has been made, serving them
// again builds and prepares no SQL, on the writing connection or the reading one.

let t: TestApp
let key: string
beforeEach(async () => {
  t = createTestApp()
  key = (await t.user('alice')).key
  await t.conversation(key, 'c1')
})
afterEach(async () => {
  vi.restoreAllMocks()
  await t.close()
})

const ok = <T extends { status: number; body: any }>(res: T) => {
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body
}

const PAGE = /* GraphQL */ `
  query ($c: String!, $after: String) {
    conversation(id: $c) {
      messages(first: 20, after: $after) {
        edges { node { messageId createdAt author { userId } rawPayload } }
        pageInfo { endCursor hasNextPage }
      }
    }
  }
`

/** Every hot request once, the echo bot's answers included. */
async function serveHotPaths() {
  for (let i = 0; i < 22; i++) {
    ok(await t.chat('POST', '/messages', { key, body: { conversationId: 'c1', payload: { type: 'text', text: `m${i}` } } }))
  }
  const created = ok(
    await t.graphql(
      'mutation ($c: String!) { createMessage(input: { conversationId: $c, payload: { text: { text: "hi" } } }) { message { messageId } } }',
      { c: 'c1' },
      { key },
    ),
  )
  expect(created.errors).toBeUndefined()
  await t.app.bots.idle()
  const first = ok(await t.chat('GET', '/conversations/c1/messages', { key }))
  expect(first.meta.nextToken).toEqual(expect.any(String))
  ok(await t.chat('GET', `/conversations/c1/messages?nextToken=${encodeURIComponent(first.meta.nextToken)}`, { key }))
  const page = ok(await t.graphql(PAGE, { c: 'c1' }, { key }))
  expect(page.data.conversation.messages.edges).toHaveLength(20)
  ok(await t.graphql(PAGE, { c: 'c1', after: page.data.conversation.messages.pageInfo.endCursor }, { key }))
}

describe('prepared statements', () => {
  it('serves createMessage (with the bot answering) and first and next pages, over REST and GraphQL, without preparing SQL again', async () => {
    await serveHotPaths()
    const prepare = vi.spyOn(Database.prototype, 'prepare')
    await serveHotPaths()
    expect(prepare.mock.calls.map(([sql]) => sql)).toEqual([])
  }, 60_000)
})

describe('the LIMIT of a prepared statement', () => {
  it('is never a bare parameter, which SQLite plans with and so prepares the statement again on every run', async () => {
    const prepare = vi.spyOn(Database.prototype, 'prepare')
    // SQLite's planner, so SQLite whichever engine the suite runs on.
    const fresh = createTestApp({ databaseUrl: ':memory:' })
    try {
      const alice = (await fresh.user('alice')).key
      await fresh.conversation(alice, 'c1')
      const saved = { t, key }
      ;[t, key] = [fresh, alice]
      await serveHotPaths().finally(() => ([t, key] = [saved.t, saved.key]))
      ok(await fresh.chat('GET', '/conversations', { key: alice }))
      ok(await fresh.chat('GET', '/conversations/c1/participants', { key: alice }))
    } finally {
      await fresh.close()
    }
    const statements = prepare.mock.calls.map(([sql]) => sql)
    expect(statements.filter((sql) => /\blimit\s+cast\(/i.test(sql)).length).toBeGreaterThan(0)
    expect(statements.filter((sql) => /\blimit\s+\?/i.test(sql))).toEqual([])
  }, 60_000)
})
