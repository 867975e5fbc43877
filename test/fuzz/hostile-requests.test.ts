import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BASE, createTestApp, type TestApp } from '../helpers/app.ts'
import { globalIdLookup, graphqlGet, graphqlOtherMethods, graphqlPost } from './graphql.ts'
import { describeRequest, describeResponse, hostile, type HostileRequest } from './http.ts'
import { oversize } from './limits.ts'
import { absentNodeViolations, violations } from './oracle.ts'
import { restRequest } from './rest.ts'
import { serveOverTheWire } from './wire.ts'
import { seedWorld, type World } from './world.ts'

// Issue 7: whatever a client sends, the server answers with a result or a described refusal: never
// a 5xx, an empty error or a leaked internal. Seeded and reproducible: FUZZ_SEED replays a run,
// FUZZ_RUNS scales the number of requests (1 is the CI budget: a few thousand), and FUZZ_SURVEY=1
// sends every request of the run and prints each kind of failure once instead of stopping at the first.
const seed = Number(process.env.FUZZ_SEED ?? 20_250_707)
const scale = Number(process.env.FUZZ_RUNS ?? 1)
const survey = process.env.FUZZ_SURVEY === '1'
const thisFile = 'test/fuzz/hostile-requests.test.ts'

let t: TestApp
let world: World
let wire: Awaited<ReturnType<typeof serveOverTheWire>>
beforeAll(async () => {
  // Thousands of requests from one address in seconds, most with bad credentials: any real limit
  // would answer them 429 (failed authentications: 30 a minute) and the fuzzer would explore nothing
  // else. What the limits do is test/http/rate-limits.test.ts's; here they are off, as RATE_LIMITS=off.
  t = createTestApp({ rateLimits: 'off' })
  world = await seedWorld(t)
  wire = await serveOverTheWire(t)
  // The replica up first, so that the reads of the run take the main thread's dispatch to it.
  await wire.warm(hostile({ method: 'GET', target: `/${world.webhookId}/users/me`, headers: { 'x-user-key': world.userKey } }))
}, 120_000)
afterAll(async () => {
  await wire?.close()
  await t.close()
})

/**
 * Sends one request through the real HTTP server (node's strict client reads the answer) and lists
 * what is wrong with its answer (the oracle's findings, and the expected status).
 */
async function exchange(request: HostileRequest, expectedStatus?: number) {
  const received = await wire.send(request)
  // Only a REST DELETE can remove what the fuzzer works with (its user, its conversation): put it back.
  if (request.method.toUpperCase() === 'DELETE' && received.status < 300) await world.restore()
  const found = violations(request, received)
  if (request.absentNodes) found.push(...absentNodeViolations(received))
  if (expectedStatus !== undefined && received.status !== expectedStatus) found.push(`expected ${expectedStatus}, got ${received.status}`)
  return { received, found }
}

/** Every kind of failure in `runs` requests, with the shortest example of each. */
async function surveyOf(name: string, requests: fc.Arbitrary<HostileRequest>, runs: number, expectedStatus?: number) {
  const kinds = new Map<string, string>()
  const statuses: Record<number, number> = {}
  for (const request of fc.sample(requests, { seed, numRuns: runs })) {
    // An answer the client could not read at all is a kind of failure too.
    const { received, found } = await exchange(request, expectedStatus).catch((error: Error) => ({
      received: { status: 0, headers: new Headers(), text: '' },
      found: [`no answer: ${error.message}`],
    }))
    statuses[received.status] = (statuses[received.status] ?? 0) + 1
    for (const finding of found) {
      const kind = `${request.surface} → ${received.status}: ${finding.split(':')[0]}`
      const example = `${describeRequest(request)}\n=> ${describeResponse(received)}`
      if ((kinds.get(kind)?.length ?? Infinity) > example.length) kinds.set(kind, example)
    }
  }
  const examples = [...kinds].map(([kind, example]) => `## ${kind}\n${example}`).join('\n\n')
  console.log(`# ${name}: ${kinds.size} kinds of failure in ${runs} requests, statuses ${JSON.stringify(statuses)}\n${examples}`)
}

/** One family of hostile requests: every answer must hold up (fast-check shrinks and prints a failure). */
async function fuzz(name: string, requests: fc.Arbitrary<HostileRequest>, numRuns: number, expectedStatus?: number) {
  const runs = Math.ceil(numRuns * scale)
  if (survey) return surveyOf(name, requests, runs, expectedStatus)
  const property = fc.asyncProperty(requests, async (request) => {
    const { received, found } = await exchange(request, expectedStatus)
    if (found.length > 0) throw new Error(`${found.join('\n')}\nreceived: ${describeResponse(received)}`)
  })
  try {
    await fc.assert(property, { seed, numRuns: runs })
  } catch (error) {
    if (error instanceof Error) {
      error.message += `\nReproduce: FUZZ_SEED=${seed} npx vitest run --config test/vitest.config.ts ${thisFile} -t "${name}"`
    }
    throw error
  }
}

const timeout = 120_000

describe('hostile requests (fuzz)', () => {
  it('every REST route, with any method, path, query, credentials and body', () => fuzz('every REST route', restRequest(world), 1_200), timeout)

  it('GraphQL over GET, with broken or mistyped parameters', () => fuzz('GraphQL over GET', graphqlGet(world), 600), timeout)

  it('GraphQL over POST, in every encoding and content type', () => fuzz('GraphQL over POST', graphqlPost(world), 900), timeout)

  it('GraphQL endpoints under other methods', () => fuzz('GraphQL endpoints under other methods', graphqlOtherMethods(world), 300), timeout)

  it(
    'global ids of another scope read as not found',
    async () => {
      await world.learnMade()
      await fuzz('global ids of another scope', globalIdLookup(world), 300)
    },
    timeout,
  )

  it('bodies over the payload limits are refused with 413', () => fuzz('bodies over the payload limits', oversize(world), 40, 413), timeout)

  it('still serves ordinary requests after the run', async () => {
    expect((await t.app.fetch(new Request(`${BASE}/healthz`))).status).toBe(200)
    const { key } = world.sentinel
    // A conversation of its own: a fuzzed request may legitimately delete or leave any other, c2 included.
    const conversationId = (await t.chat('POST', '/conversations', { key, body: {} })).body.conversation.id
    const text = 'still here'
    const posted = await t.chat('POST', '/messages', { key, body: { conversationId, payload: { type: 'text', text } } })
    expect(posted.status).toBe(200)
    expect(posted.body.message).toMatchObject({ conversationId, userId: 'bob', payload: { type: 'text', text } })
  })
})
