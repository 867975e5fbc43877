import { GCProfiler, getHeapStatistics } from 'node:v8'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Database } from '../../src/db/sqlite/driver.ts'
import { createTestApp, type JsonResponse, type TestApp } from '../helpers/app.ts'

// A smoke test of the hot paths' cost, in counters that do not depend on how busy the machine is:
// SQL statements prepared and run per request, and V8 heap bytes allocated per request, each after a
// warm-up and against a budget well above today's (docs/internals/performance.md has the figures).
// It fails on a large regression (a statement cache lost, a query per row, a copy of every page),
// not on a small one: speed itself is measured apart, on a quiet machine (npm run bench).

let t: TestApp
let key: string

const ok = async (response: Promise<JsonResponse>) => {
  const { status, body } = await response
  expect(status, JSON.stringify(body)).toBe(200)
  expect(body.errors).toBeUndefined()
}

const PAGE =
  'query ($c: String!) { conversation(id: $c) { messages(first: 20) { edges { node { messageId createdAt rawPayload author { userId } } } pageInfo { endCursor } } } }'
const CREATE = 'mutation ($c: String!) { createMessage(input: { conversationId: $c, payload: { text: { text: "hi" } } }) { message { messageId } } }'

/**
 * Each hot request, with its budget: statements run, and heap kilobytes allocated (the echo bot's
 * reply included in a createMessage). About twice today's heap on Node 20 and 24; statements a few above.
 */
const hotPaths: [string, { statements: number; heapKB: number }, () => Promise<void>][] = [
  [
    'REST createMessage',
    { statements: 30, heapKB: 320 },
    async () => {
      await ok(t.chat('POST', '/messages', { key, body: { conversationId: 'c1', payload: { type: 'text', text: 'hi' } } }))
      await t.app.bots.idle()
    },
  ],
  [
    'GraphQL createMessage',
    { statements: 30, heapKB: 400 },
    async () => {
      await ok(t.graphql(CREATE, { c: 'c1' }, { key }))
      await t.app.bots.idle()
    },
  ],
  ['REST listMessages', { statements: 3, heapKB: 300 }, () => ok(t.chat('GET', '/conversations/c1/messages', { key }))],
  ['GraphQL page of messages', { statements: 3, heapKB: 420 }, () => ok(t.graphql(PAGE, { c: 'c1' }, { key }))],
  ['REST getConversation', { statements: 2, heapKB: 120 }, () => ok(t.chat('GET', '/conversations/c1', { key }))],
  [
    'GraphQL conversation',
    { statements: 2, heapKB: 256 },
    () => ok(t.graphql('query ($c: String!) { conversation(id: $c) { conversationId createdAt } }', { c: 'c1' }, { key })),
  ],
]

/** The statements better-sqlite3 runs, whichever way they are run. */
const statementMethods = ['run', 'get', 'all', 'iterate'] as const

beforeAll(async () => {
  // SQLite, whichever engine the suite runs on: its statements are the ones counted.
  t = createTestApp({ databaseUrl: ':memory:', rateLimits: 'off' })
  key = (await t.user('alice')).key
  await t.conversation(key, 'c1')
  for (let i = 0; i < 30; i++) for (const [, , request] of hotPaths) await request()
}, 60_000)

afterAll(() => t.close())

describe('statements per request', () => {
  it.each(hotPaths)('%s prepares none and runs at most its budget', async (_name, budget, request) => {
    const statement = Object.getPrototypeOf(new Database(':memory:').prepare('select 1'))
    const runs = statementMethods.map((method) => vi.spyOn(statement, method))
    const prepare = vi.spyOn(Database.prototype, 'prepare')
    const exec = vi.spyOn(Database.prototype, 'exec')
    try {
      const requests = 10
      for (let i = 0; i < requests; i++) await request()
      expect(prepare.mock.calls.map(([sql]) => sql)).toEqual([])
      const run = (runs.reduce((sum, spy) => sum + spy.mock.calls.length, 0) + exec.mock.calls.length) / requests
      expect(run, `${run} statements a request`).toBeLessThanOrEqual(budget.statements)
      expect(run).toBeGreaterThan(0)
    } finally {
      vi.restoreAllMocks()
    }
  })
})

/**
 * V8 heap bytes allocated while `work` runs: what the heap grew by, plus what each collection freed
 * meanwhile (GCProfiler reports the heap before and after each one).
 */
async function heapAllocatedBy(work: () => Promise<void>): Promise<number> {
  const profiler = new GCProfiler()
  profiler.start()
  const start = getHeapStatistics().used_heap_size
  await work()
  const end = getHeapStatistics().used_heap_size
  const { statistics } = profiler.stop()
  const freed = statistics.reduce((sum, gc) => sum + gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize, 0)
  return end - start + freed
}

describe('heap allocated per request', () => {
  // The median of five runs: a run may see a full collection still sweeping, whose freed bytes it misses.
  it.each(hotPaths)(
    '%s allocates at most its budget (the median of five runs of 50 requests)',
    async (_name, budget, request) => {
      const requests = 50
      const runs: number[] = []
      for (let run = 0; run < 5; run++) {
        runs.push(
          await heapAllocatedBy(async () => {
            for (let i = 0; i < requests; i++) await request()
          }),
        )
      }
      const median = runs.sort((a, b) => a - b)[2]!
      const perRequestKB = Math.round(median / requests / 1024)
      expect(perRequestKB, `${perRequestKB} KB a request`).toBeLessThanOrEqual(budget.heapKB)
      expect(perRequestKB).toBeGreaterThan(0)
    },
    60_000,
  )
})
