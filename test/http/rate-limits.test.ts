import { createClient as createWsClient } from 'graphql-ws'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { ConfigError, loadConfig, rateLimitDefaults } from '../../src/config.ts'
import { adminClient } from '../bots/sdk-bot.ts'
import { ADMIN_TOKEN, OTHER, WEBHOOK_ID, WORKSPACE_ID } from '../helpers/app.ts'
import { setClock } from '../helpers/clock.ts'
import { type Answer, sendFrom } from '../helpers/from-address.ts'
import { encodingsOf } from '../helpers/key-encodings.ts'
import { expectRateLimited, expectRateLimitHeaders, rules, useLimitedServer } from '../helpers/limited.ts'
import { eventually } from '../helpers/wait.ts'

// Issue 29: rate limits on by default, each door counted per what it is opened with (client address,
// user key, bot, admin token), a refusal 429 RateLimited with Retry-After and RateLimit-* headers.
// Each describe runs a real server of its own with small limits injected (as RATE_LIMIT_* would set
// them); a second client is a socket bound to 127.0.0.2, a second credential another user or token.

const SECOND = '127.0.0.2'
const THIRD = '127.0.0.3'

const graphqlAt = (apiUrl: string, query: string, options: { key?: string; from?: string; accept?: string } = {}) =>
  sendFrom(`${apiUrl}/graphql`, {
    method: 'POST',
    from: options.from,
    body: { query },
    headers: { ...(options.key ? { 'x-user-key': options.key } : {}), ...(options.accept ? { accept: options.accept } : {}) },
  })

/** GraphQL's form of the refusal: the same status, one error typed RateLimited, and the same headers. */
function expectGraphQLRateLimited(answer: Answer, points: number) {
  expect(answer.status).toBe(429)
  expect(answer.body.errors).toEqual([
    {
      message: expect.stringMatching(/^rate limited: /),
      extensions: { type: 'RateLimited', status: 429, requestId: expect.any(String) },
    },
  ])
  expect(answer.body.data ?? null).toBeNull()
  expectRateLimitHeaders(answer, points)
}

const ok = (answer: Answer) => {
  if (answer.status !== 200) throw new Error(`expected 200, got ${answer.status} ${JSON.stringify(answer.body)}`)
  return answer
}

describe('createUser: per client address', () => {
  const server = useLimitedServer(rules({ createUser: { points: 2, seconds: 60 } }))

  it('answers 429 with Retry-After once an address made its limit of users, while another address still may', async () => {
    const create = (from?: string) => sendFrom(`${server.apiUrl}/users`, { method: 'POST', body: {}, from })
    ok(await create())
    ok(await create())
    expectRateLimited(await create(), 2)
    expect(ok(await create(SECOND)).body.user.id).toEqual(expect.any(String))
  })

  it("counts GraphQL's createUser and the web chat's /initialize without a key on the same door", async () => {
    ok(await graphqlAt(server.apiUrl, 'mutation { createUser(input: {}) { user { id } key } }', { from: THIRD }))
    const initialize = await sendFrom(`${server.apiUrl}/initialize`, { from: THIRD, headers: { accept: 'text/event-stream' } })
    expect(initialize.status).toBe(200)
    expectGraphQLRateLimited(await graphqlAt(server.apiUrl, 'mutation { createUser(input: {}) { user { id } } }', { from: THIRD }), 2)
    expectRateLimited(await sendFrom(`${server.apiUrl}/initialize`, { from: THIRD }), 2)
  })
})

describe('key-less requests: per client address', () => {
  const server = useLimitedServer(rules({ anonymous: { points: 3, seconds: 60 } }))

  it('limits hello and every other request without a user key, not a user key of the same address', async () => {
    const key = await server.t.keyFor('alice')
    ok(await sendFrom(`${server.apiUrl}/users/get-or-create`, { method: 'POST', body: {}, headers: { 'x-user-key': key } }))
    for (let i = 0; i < 3; i++) ok(await sendFrom(`${server.apiUrl}/hello`))
    expectRateLimited(await sendFrom(`${server.apiUrl}/hello`), 3)
    expectGraphQLRateLimited(await graphqlAt(server.apiUrl, '{ __typename }'), 3)
    expect(ok(await sendFrom(`${server.apiUrl}/users/me`, { headers: { 'x-user-key': key } })).body.user.id).toBe('alice')
    ok(await sendFrom(`${server.apiUrl}/hello`, { from: SECOND }))
  })
})

describe('writes: per user key', () => {
  const server = useLimitedServer(rules({ userWrites: { points: 3, seconds: 60 } }))

  it('refuses a user its writes over the limit, but not its reads, nor another user', async () => {
    const [alice, bob] = [await server.t.keyFor('alice'), await server.t.keyFor('bob')]
    const as = (key: string) => ({ 'x-user-key': key })
    ok(await sendFrom(`${server.apiUrl}/users/get-or-create`, { method: 'POST', body: {}, headers: as(alice) }))
    ok(await sendFrom(`${server.apiUrl}/conversations`, { method: 'POST', body: { id: 'c1' }, headers: as(alice) }))
    ok(await sendFrom(`${server.apiUrl}/conversations/c1/typing`, { method: 'POST', body: {}, headers: as(alice) }))
    expectRateLimited(await sendFrom(`${server.apiUrl}/conversations`, { method: 'POST', body: {}, headers: as(alice) }), 3)
    expectGraphQLRateLimited(await graphqlAt(server.apiUrl, 'mutation { createConversation(input: {}) { conversation { id } } }', { key: alice }), 3)
    expect(ok(await sendFrom(`${server.apiUrl}/conversations/c1`, { headers: as(alice) })).body.conversation.id).toBe('c1')
    ok(await sendFrom(`${server.apiUrl}/users/get-or-create`, { method: 'POST', body: {}, headers: as(bob) }))
    ok(await sendFrom(`${server.apiUrl}/conversations`, { method: 'POST', body: {}, headers: as(bob) }))
  })
})

describe('keyed reads (issue 49 row 3)', () => {
  const server = useLimitedServer(rules({ userReads: { points: 4, seconds: 60 }, userWrites: { points: 5, seconds: 60 } }))

  it('refuses a user its reads over the limit, REST and GraphQL alike, but not its writes, nor another user its reads', async () => {
    const [alice, bob] = [await server.t.keyFor('alice'), await server.t.keyFor('bob')]
    const as = (key: string) => ({ 'x-user-key': key })
    const read = (key: string, path: string) => sendFrom(`${server.apiUrl}${path}`, { headers: as(key) })
    ok(await sendFrom(`${server.apiUrl}/users/get-or-create`, { method: 'POST', body: {}, headers: as(alice) }))
    ok(await sendFrom(`${server.apiUrl}/conversations`, { method: 'POST', body: { id: 'c1' }, headers: as(alice) }))
    expect(ok(await read(alice, '/conversations/c1')).body.conversation.id).toBe('c1')
    expect(ok(await read(alice, '/conversations/c1/messages')).body.messages).toEqual([])
    expect(ok(await read(alice, '/users/me')).body.user.id).toBe('alice')
    expect(ok(await graphqlAt(server.apiUrl, '{ me { __typename } }', { key: alice })).body).toEqual({ data: { me: { __typename: 'User' } } })
    const refused = await read(alice, '/conversations')
    expectRateLimited(refused, 4)
    expect(refused.body.message).toMatch(/^rate limited: the "userReads" limit allows 4 requests per 60 s per user; /)
    expectGraphQLRateLimited(await graphqlAt(server.apiUrl, '{ me { id } }', { key: alice }), 4)
    expectRateLimited(await read(alice, '/conversations/c1/messages'), 4)

    // Its writes count on userWrites alone: two made, three left.
    const posted = ok(
      await sendFrom(`${server.apiUrl}/messages`, {
        method: 'POST',
        body: { conversationId: 'c1', payload: { type: 'text', text: 'still writing' } },
        headers: as(alice),
      }),
    )
    expect(posted.body.message.conversationId).toBe('c1')
    ok(await graphqlAt(server.apiUrl, 'mutation { createConversation(input: {}) { conversation { id } } }', { key: alice }))

    ok(await sendFrom(`${server.apiUrl}/users/get-or-create`, { method: 'POST', body: {}, headers: as(bob) }))
    for (let i = 0; i < 3; i++) expect(ok(await read(bob, '/users/me')).body.user.id).toBe('bob')
    expect(ok(await graphqlAt(server.apiUrl, '{ me { __typename } }', { key: bob })).body).toEqual({ data: { me: { __typename: 'User' } } })
    expectRateLimited(await read(bob, '/users/me'), 4)
  })

  it('allows 1200 reads a minute per user by default, RATE_LIMIT_USER_READS sets it, 0 turns it off', () => {
    expect(loadConfig({}).rateLimits.userReads).toEqual({ points: 1200, seconds: 60 })
    expect(loadConfig({ RATE_LIMIT_USER_READS: '30/10' }).rateLimits.userReads).toEqual({ points: 30, seconds: 10 })
    expect(loadConfig({ RATE_LIMIT_USER_READS: '0' }).rateLimits.userReads).toBeUndefined()
  })
})

describe('a user key counted by the user it verifies as, not by its text (issue 49 row 8)', () => {
  const server = useLimitedServer(rules({ userWrites: { points: 5, seconds: 60 }, streams: { points: 4, seconds: 60 } }))

  it("shares one budget of writes and one of streams over the four encodings of one key; another user's is its own", async () => {
    const key = await server.t.keyFor('alice')
    const encodings = encodingsOf(key)
    expect(new Set(encodings).size).toBe(4)
    const write = (as: string, path = '/conversations') => sendFrom(`${server.apiUrl}${path}`, { method: 'POST', body: {}, headers: { 'x-user-key': as } })
    ok(await write(key, '/users/get-or-create'))
    for (const as of encodings) ok(await write(as))
    for (const as of encodings) expectRateLimited(await write(as), 5)
    const listen = (as: string) => sendFrom(`${server.apiUrl}/initialize`, { headers: { 'x-user-key': as, accept: 'text/event-stream' } })
    for (const as of encodings) expect((await listen(as)).status).toBe(200)
    for (const as of encodings) expectRateLimited(await listen(as), 4)
    ok(await write(await server.t.keyFor('bob'), '/users/get-or-create'))
  })
})

describe('one user flooding a bot to its own limit, with the default limits (issue 49 row 1)', () => {
  const server = useLimitedServer(rateLimitDefaults, { handlers: {} })

  it("leaves every other user's messages to that bot untouched, REST and GraphQL, from other addresses", async () => {
    // The clock stands still inside one window of the limit, however slow the machine: the flood never
    // runs into the next minute (windows are aligned on the clock), which would give it a fresh budget.
    setClock('2026-07-01T10:00:20.000Z')
    const defaults = loadConfig({}).rateLimits
    expect(defaults.botMessages).toBeUndefined()
    const writes = defaults.userWrites?.points as number
    const as = (key: string) => ({ 'x-user-key': key })
    const flooder = await server.t.keyFor('flooder')
    ok(await sendFrom(`${server.apiUrl}/users/get-or-create`, { method: 'POST', body: {}, headers: as(flooder) }))
    ok(await sendFrom(`${server.apiUrl}/conversations`, { method: 'POST', body: { id: 'flood' }, headers: as(flooder) }))
    const flood = () =>
      sendFrom(`${server.apiUrl}/messages`, {
        method: 'POST',
        body: { conversationId: 'flood', payload: { type: 'text', text: 'spam' } },
        headers: as(flooder),
      })
    // Its own writes, ten at a time, until the first refusal: all of its allowance went into the bot.
    let posted = 0
    for (let refused = false; !refused; ) {
      const answers = await Promise.all(Array.from({ length: 10 }, flood))
      posted += answers.filter((answer) => answer.status === 200).length
      refused = answers.some((answer) => answer.status === 429)
    }
    expect(posted).toBe(writes - 2)
    const refusal = await flood()
    expectRateLimited(refusal, writes)
    expect(refusal.body.message).toMatch(/^rate limited: the "userWrites" limit allows 600 requests per 60 s per user; /)
    const graphql = (key: string, conversationId: string, text: string, from: string) =>
      sendFrom(`${server.apiUrl}/graphql`, {
        method: 'POST',
        from,
        headers: as(key),
        body: {
          query: 'mutation ($input: CreateMessageInput!) { createMessage(input: $input) { message { id } } }',
          variables: { input: { conversationId, payload: { text: { text } } } },
        },
      })
    expectGraphQLRateLimited(await graphql(flooder, 'flood', 'more', '127.0.0.1'), writes)

    // Five others, from five other addresses, each into a conversation of its own with the same bot.
    for (let i = 2; i <= 6; i++) {
      const from = `127.0.0.${i}`
      const key = await server.t.keyFor(`visitor-${i}`)
      ok(await sendFrom(`${server.apiUrl}/users/get-or-create`, { method: 'POST', body: {}, headers: as(key), from }))
      ok(await sendFrom(`${server.apiUrl}/conversations`, { method: 'POST', body: { id: `visit-${i}` }, headers: as(key), from }))
      const rest = ok(
        await sendFrom(`${server.apiUrl}/messages`, {
          method: 'POST',
          body: { conversationId: `visit-${i}`, payload: { type: 'text', text: 'hello' } },
          headers: as(key),
          from,
        }),
      )
      expect(rest.body.message.conversationId).toBe(`visit-${i}`)
      const viaGraphql = ok(await graphql(key, `visit-${i}`, 'hello again', from))
      expect(viaGraphql.body).toEqual({ data: { createMessage: { message: { id: expect.any(String) } } } })
    }
  }, 120_000)
})

describe('user messages and events: per bot, when the operator sets RATE_LIMIT_BOT_MESSAGES (a cost guard, off by default)', () => {
  const server = useLimitedServer(rules({ botMessages: { points: 3, seconds: 60 } }), { handlers: {} })

  it("refuses the bot's users once it received its limit, while another bot's users still post", async () => {
    const post = async (apiUrl: string, key: string, path: string, payload: object) =>
      sendFrom(`${apiUrl}${path}`, { method: 'POST', body: { conversationId: 'c1', payload }, headers: { 'x-user-key': key } })
    const keys = [await server.t.keyFor('alice'), await server.t.keyFor('bob')] as const
    for (const key of keys) {
      ok(await sendFrom(`${server.apiUrl}/users/get-or-create`, { method: 'POST', body: {}, headers: { 'x-user-key': key } }))
    }
    ok(await sendFrom(`${server.apiUrl}/conversations`, { method: 'POST', body: { id: 'c1' }, headers: { 'x-user-key': keys[0] } }))
    ok(await sendFrom(`${server.apiUrl}/conversations/c1/participants`, { method: 'POST', body: { userId: 'bob' }, headers: { 'x-user-key': keys[0] } }))
    ok(await post(server.apiUrl, keys[0], '/messages', { type: 'text', text: 'one' }))
    ok(await post(server.apiUrl, keys[1], '/messages', { type: 'text', text: 'two' }))
    ok(await post(server.apiUrl, keys[1], '/events', { kind: 'custom' }))
    expectRateLimited(await post(server.apiUrl, keys[0], '/messages', { type: 'text', text: 'four' }), 3)

    const other = await server.t.otherTenant()
    const otherApi = `${server.baseUrl}/${OTHER.webhookId}`
    const carol = await other.keyFor('carol')
    ok(await sendFrom(`${otherApi}/users/get-or-create`, { method: 'POST', body: {}, headers: { 'x-user-key': carol } }))
    ok(await sendFrom(`${otherApi}/conversations`, { method: 'POST', body: { id: 'c1' }, headers: { 'x-user-key': carol } }))
    ok(await post(otherApi, carol, '/messages', { type: 'text', text: 'elsewhere' }))
  })
})

describe('streams: per user key', () => {
  const server = useLimitedServer(rules({ streams: { points: 1, seconds: 60 } }))

  it('refuses a user a stream over its limit (REST listen, GraphQL subscription), not another user', async () => {
    const [alice, bob] = [await server.t.keyFor('alice'), await server.t.keyFor('bob')]
    for (const [key, id] of [
      [alice, 'ca'],
      [bob, 'cb'],
    ] as const) {
      ok(await sendFrom(`${server.apiUrl}/users/get-or-create`, { method: 'POST', body: {}, headers: { 'x-user-key': key } }))
      ok(await sendFrom(`${server.apiUrl}/conversations`, { method: 'POST', body: { id }, headers: { 'x-user-key': key } }))
    }
    const listen = (key: string, id: string) => sendFrom(`${server.apiUrl}/conversations/${id}/listen`, { headers: { 'x-user-key': key } })
    expect((await listen(alice, 'ca')).status).toBe(200)
    expectRateLimited(await listen(alice, 'ca'), 1)
    const subscription = 'subscription { conversationSignals(conversationId: "ca") { __typename } }'
    expectGraphQLRateLimited(await graphqlAt(server.apiUrl, subscription, { key: alice, accept: 'text/event-stream' }), 1)
    expect((await listen(bob, 'cb')).status).toBe(200)
  })
})

describe('runtime API: per bot', () => {
  const server = useLimitedServer(rules({ botApi: { points: 2, seconds: 60 } }))

  it("refuses a bot's calls over its limit, whichever of its keys makes them", async () => {
    const admin = adminClient(server.baseUrl)
    const keys = [(await admin.createBotApiKey({ botId: server.botId })).value, (await admin.createBotApiKey({ botId: server.botId })).value]
    const list = (key: string) => sendFrom(`${server.baseUrl}/v1/chat/conversations`, { headers: { authorization: `Bearer ${key}`, 'x-bot-id': server.botId } })
    ok(await list(keys[0] as string))
    ok(await list(keys[1] as string))
    expectRateLimited(await list(keys[0] as string), 2)
  })
})

describe('admin API: per admin token', () => {
  const server = useLimitedServer(rules({ admin: { points: 2, seconds: 60 } }))

  it('refuses a token its calls over the limit, not another token', async () => {
    await server.t.otherTenant()
    const bots = (token: string, workspaceId: string) =>
      sendFrom(`${server.baseUrl}/v1/admin/bots`, { headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspaceId } })
    ok(await bots(ADMIN_TOKEN, WORKSPACE_ID))
    ok(await bots(ADMIN_TOKEN, WORKSPACE_ID))
    expectRateLimited(await bots(ADMIN_TOKEN, WORKSPACE_ID), 2)
    ok(await bots(OTHER.adminToken, OTHER.workspaceId))
  })
})

describe('admin API: per token, whichever way its Authorization header spells it (issue 49 row 9)', () => {
  const server = useLimitedServer(rules({ admin: { points: 3, seconds: 60 } }))

  it('counts `bearer T`, `BEARER T` and `Bearer  T` on the one budget of T; a header that is no RFC 6750 credential is 401', async () => {
    const bots = (authorization: string) => sendFrom(`${server.baseUrl}/v1/admin/bots`, { headers: { authorization, 'x-workspace-id': WORKSPACE_ID } })
    ok(await bots(`bearer ${ADMIN_TOKEN}`))
    ok(await bots(`BEARER ${ADMIN_TOKEN}`))
    ok(await bots(`Bearer  ${ADMIN_TOKEN}`))
    expectRateLimited(await bots(`Bearer ${ADMIN_TOKEN}`), 3)
    expectRateLimited(await bots(`bEaReR   ${ADMIN_TOKEN}`), 3)
    for (const malformed of [`Bearer\t${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN} x`, `Bearer ${ADMIN_TOKEN},`, `Basic ${ADMIN_TOKEN}`, `Bearer${ADMIN_TOKEN}`]) {
      expect((await bots(malformed)).body).toMatchObject({ code: 401, type: 'Unauthorized' })
    }
  })
})

describe('failed authentications: per client address', () => {
  const server = useLimitedServer(rules({ failedAuth: { points: 2, seconds: 60 } }))

  it('answers 429 to an address past its limit of bad keys, even with a good key then; another address is unaffected', async () => {
    const good = await server.t.keyFor('alice')
    ok(await sendFrom(`${server.apiUrl}/users/get-or-create`, { method: 'POST', body: {}, headers: { 'x-user-key': good } }))
    const me = (key: string, from?: string) => sendFrom(`${server.apiUrl}/users/me`, { headers: { 'x-user-key': key }, from })
    expect((await me('not-a-key')).status).toBe(401)
    expect((await me('not-a-key')).status).toBe(401)
    expectRateLimited(await me('not-a-key'), 2)
    expectRateLimited(await me(good), 2)
    expect(ok(await me(good, SECOND)).body.user.id).toBe('alice')
  })

  it('never blocks /healthz and /readyz: a load balancer sharing the blocked address still sees the instance up (issue 49 row 16)', async () => {
    const FOURTH = '127.0.0.4'
    const me = () => sendFrom(`${server.apiUrl}/users/me`, { headers: { 'x-user-key': 'not-a-key' }, from: FOURTH })
    expect((await me()).status).toBe(401)
    expect((await me()).status).toBe(401)
    expectRateLimited(await me(), 2)
    expectRateLimited(await sendFrom(`${server.apiUrl}/hello`, { from: FOURTH }), 2)
    expect(await sendFrom(`${server.baseUrl}/healthz`, { from: FOURTH })).toMatchObject({ status: 200 })
    expect(await sendFrom(`${server.baseUrl}/readyz`, { from: FOURTH })).toMatchObject({ status: 200 })
  })

  it('counts bad admin tokens and GraphQL refusals alike', async () => {
    const bots = () =>
      sendFrom(`${server.baseUrl}/v1/admin/bots`, { from: THIRD, headers: { authorization: 'Bearer bp_pat_wrong', 'x-workspace-id': WORKSPACE_ID } })
    expect((await bots()).status).toBe(401)
    expect((await graphqlAt(server.apiUrl, '{ me { id } }', { key: 'not-a-key', from: THIRD })).status).toBe(401)
    expectGraphQLRateLimited(await graphqlAt(server.apiUrl, '{ me { id } }', { key: 'not-a-key', from: THIRD }), 2)
    expectRateLimited(await bots(), 2)
  })
})

describe('file uploads: per client address', () => {
  const server = useLimitedServer(rules({ uploads: { points: 1, seconds: 60 } }))

  it('refuses an address its uploads over the limit, not another address', async () => {
    const key = await server.t.keyFor('alice')
    ok(await sendFrom(`${server.apiUrl}/users/get-or-create`, { method: 'POST', body: {}, headers: { 'x-user-key': key } }))
    const slot = async () =>
      ok(await sendFrom(`${server.apiUrl}/files`, { method: 'POST', body: { key: 'a.txt', size: 2 }, headers: { 'x-user-key': key } })).body.file
        .uploadUrl as string
    const [first, second, third] = [await slot(), await slot(), await slot()]
    const put = (url: string, from?: string) => sendFrom(url, { method: 'PUT', body: Buffer.from('hi'), from, headers: { 'content-type': 'text/plain' } })
    ok(await put(first))
    expectRateLimited(await put(second), 1)
    ok(await put(third, SECOND))
  })
})

describe('client address', () => {
  describe('behind no trusted proxy', () => {
    const server = useLimitedServer(rules({ createUser: { points: 1, seconds: 60 } }))

    it('ignores X-Forwarded-For: a client cannot name another address to escape its limit', async () => {
      const create = (forwardedFor: string) => sendFrom(`${server.apiUrl}/users`, { method: 'POST', body: {}, headers: { 'x-forwarded-for': forwardedFor } })
      ok(await create('203.0.113.1'))
      expectRateLimited(await create('203.0.113.2'), 1)
    })
  })

  describe('behind a trusted proxy (TRUST_PROXY)', () => {
    const server = useLimitedServer(rules({ createUser: { points: 1, seconds: 60 } }), { trustProxy: loadConfig({ TRUST_PROXY: '127.0.0.1' }).trustProxy })

    it('counts the client its X-Forwarded-For names', async () => {
      const create = (headers: Record<string, string>, from?: string) => sendFrom(`${server.apiUrl}/users`, { method: 'POST', body: {}, headers, from })
      ok(await create({ 'x-forwarded-for': '203.0.113.1' }))
      ok(await create({ 'x-forwarded-for': '203.0.113.2' }))
      expectRateLimited(await create({ 'x-forwarded-for': '203.0.113.1' }), 1)
      // A hop the client wrote before the proxy's is not believed: the proxy appended the real one.
      expectRateLimited(await create({ 'x-forwarded-for': '198.51.100.7, 203.0.113.2' }), 1)
      // An untrusted peer's header is its own words: 127.0.0.2 is counted as itself.
      ok(await create({ 'x-forwarded-for': '203.0.113.9' }, SECOND))
      expectRateLimited(await create({ 'x-forwarded-for': '203.0.113.10' }, SECOND), 1)
    })
  })
})

describe('IPv6 clients counted per /64, IPv4-mapped ones as IPv4 (issue 49 row 13)', () => {
  const server = useLimitedServer(rules({ createUser: { points: 2, seconds: 60 }, failedAuth: { points: 1, seconds: 60 } }), {
    trustProxy: loadConfig({ TRUST_PROXY: 'loopback' }).trustProxy,
  })
  const create = (client: string) => sendFrom(`${server.apiUrl}/users`, { method: 'POST', body: {}, headers: { 'x-forwarded-for': client } })

  it('gives every address of one /64 one budget, and the next /64 its own', async () => {
    ok(await create('2001:db8:1:2::1'))
    ok(await create('2001:0db8:0001:0002:ffff:ffff:ffff:fffe'))
    expectRateLimited(await create('2001:db8:1:2:abcd::9'), 2)
    ok(await create('2001:db8:1:3::1'))
  })

  it('counts ::ffff:a.b.c.d as a.b.c.d, and each IPv4 address on its own', async () => {
    ok(await create('203.0.113.7'))
    ok(await create('::ffff:203.0.113.7'))
    expectRateLimited(await create('::ffff:cb00:7107'), 2)
    ok(await create('203.0.113.8'))
  })

  it('blocks the whole /64 after its failed authentications', async () => {
    const me = (client: string, key = 'not-a-key') => sendFrom(`${server.apiUrl}/users/me`, { headers: { 'x-forwarded-for': client, 'x-user-key': key } })
    expect((await me('2001:db8:9:9::1')).status).toBe(401)
    expectRateLimited(await me('2001:db8:9:9::2'), 1)
    expectRateLimited(await sendFrom(`${server.apiUrl}/hello`, { headers: { 'x-forwarded-for': '2001:db8:9:9:1:2:3:4' } }), 1)
    ok(await sendFrom(`${server.apiUrl}/hello`, { headers: { 'x-forwarded-for': '2001:db8:9:a::1' } }))
  })
})

describe('turning limits off', () => {
  it('reads RATE_LIMIT_<NAME> as points/seconds, 0 as off, and RATE_LIMITS=off as every one off', () => {
    const config = loadConfig({ RATE_LIMIT_CREATE_USER: '0', RATE_LIMIT_USER_WRITES: '5/10', RATE_LIMIT_FAILED_AUTH: 'off' })
    expect(config.rateLimits).toMatchObject({ createUser: undefined, userWrites: { points: 5, seconds: 10 }, failedAuth: undefined })
    expect(config.rateLimits.anonymous).toEqual({ points: 300, seconds: 60 })
    expect(config.rateLimitsOff).toBe(false)
    expect(loadConfig({ RATE_LIMITS: 'off' }).rateLimitsOff).toBe(true)
    for (const bad of ['30', '0/60', '30/0', 'x/60', '-1/60']) {
      expect(() => loadConfig({ RATE_LIMIT_CREATE_USER: bad })).toThrow(ConfigError)
    }
  })

  describe('RATE_LIMIT_CREATE_USER=0', () => {
    const server = useLimitedServer({ ...loadConfig({ RATE_LIMIT_CREATE_USER: '0', RATE_LIMIT_FAILED_AUTH: '1/60' }).rateLimits })

    it('lets an address create users past the default limit (30 a minute) while the other limits hold', async () => {
      for (let i = 0; i < 31; i++) ok(await sendFrom(`${server.apiUrl}/users`, { method: 'POST', body: {} }))
      expect((await sendFrom(`${server.apiUrl}/users/me`, { headers: { 'x-user-key': 'bad' } })).status).toBe(401)
      expectRateLimited(await sendFrom(`${server.apiUrl}/users/me`, { headers: { 'x-user-key': 'bad' } }), 1)
    })
  })

  describe('RATE_LIMITS=off', () => {
    const server = useLimitedServer('off')

    it('counts nothing: users made and keys failed past the defaults (30 a minute each)', async () => {
      for (let i = 0; i < 31; i++) ok(await sendFrom(`${server.apiUrl}/users`, { method: 'POST', body: {} }))
      for (let i = 0; i < 31; i++) expect((await sendFrom(`${server.apiUrl}/users/me`, { headers: { 'x-user-key': 'bad' } })).status).toBe(401)
    })
  })
})

describe('GraphQL over WebSocket', () => {
  const server = useLimitedServer(rules({ streams: { points: 1, seconds: 60 }, failedAuth: { points: 1, seconds: 60 } }))
  const clients: { dispose(): void }[] = []
  afterEach(() => {
    for (const client of clients.splice(0)) client.dispose()
  })

  const wsClient = (key: string, onClosed?: (event: { code: number; reason: string }) => void) => {
    const client = createWsClient({
      url: `${server.baseUrl.replace(/^http/, 'ws')}/${WEBHOOK_ID}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-user-key': key },
      lazy: false,
      // A refused connection is what the second test expects: its close event says so, not the console.
      onNonLazyError: () => {},
      retryAttempts: 0,
      on: onClosed ? { closed: (event) => onClosed(event as { code: number; reason: string }) } : {},
    })
    clients.push(client)
    return client
  }

  /** Subscribes and keeps what comes: results, errors, and whether it completed. */
  const subscribe = (client: ReturnType<typeof createWsClient>, conversationId: string) => {
    const seen = { results: [] as any[], errors: [] as unknown[], completed: false }
    client.subscribe(
      { query: 'subscription ($id: String!) { conversationSignals(conversationId: $id) { __typename } }', variables: { id: conversationId } },
      { next: (result) => void seen.results.push(result), error: (error) => void seen.errors.push(error), complete: () => void (seen.completed = true) },
    )
    return seen
  }

  it("counts each subscription against the user's streams: the one over is refused with RateLimited, the socket stays", async () => {
    const key = await server.t.keyFor('alice')
    ok(await sendFrom(`${server.apiUrl}/users/get-or-create`, { method: 'POST', body: {}, headers: { 'x-user-key': key } }))
    ok(await sendFrom(`${server.apiUrl}/conversations`, { method: 'POST', body: { id: 'c1' }, headers: { 'x-user-key': key } }))
    let closed: unknown
    const client = wsClient(key, (event) => (closed = event))
    const first = subscribe(client, 'c1')
    await eventually(() => expect(server.t.app.signals.activeSubscriptions()).toBeGreaterThan(0))
    const second = subscribe(client, 'c1')
    await eventually(() => expect(second.completed || second.errors.length > 0).toBe(true))
    const errors = [...second.results.flatMap((result) => result.errors ?? []), ...second.errors.flat()]
    expect(errors).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/^rate limited: /), extensions: expect.objectContaining({ type: 'RateLimited', status: 429 }) }),
    ])
    expect(first.errors).toEqual([])
    expect(closed).toBeUndefined()
  })

  it('counts a connection refused for its key as a failed authentication of its address', async () => {
    const closes: { code: number; reason: string }[] = []
    wsClient('not-a-key', (event) => void closes.push(event))
    await eventually(() => expect(closes).toHaveLength(1))
    wsClient('not-a-key', (event) => void closes.push(event))
    await eventually(() => expect(closes).toHaveLength(2))
    expect(closes.map(({ code }) => code)).toEqual([4403, 4403])
    expect(closes[0]?.reason).toBe('the user key is not valid for this chat integration')
    expect(closes[1]?.reason).toMatch(/^rate limited: the "failedAuth" limit/)
    expectRateLimited(await sendFrom(`${server.apiUrl}/hello`), 1)
    ok(await sendFrom(`${server.apiUrl}/hello`, { from: SECOND }))
  })
})
