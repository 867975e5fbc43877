import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { WebChatConversationDocument, WebChatSendTextDocument } from '../../src/webchat/__generated__/graphql.ts'
import { BASE, createTestApp, type JsonResponse, type TestApp, WEBHOOK_ID } from '../helpers/app.ts'

// Execution limits (graphql-armor: depth 12, 20 aliases, 2000 tokens, cost 100,000), page sizes,
// error masking, and the request id every error carries.

let t: TestApp
let statements: string[]
let alice: Awaited<ReturnType<TestApp['user']>>

beforeEach(async () => {
  statements = []
  t = createTestApp({ onQuery: (sql) => statements.push(sql), handlers: {} })
  alice = await t.user('alice', { name: 'Alice' })
  await t.conversation(alice.key, 'c1')
  const posted = await t.chat('POST', '/messages', {
    key: alice.key,
    body: { conversationId: 'c1', payload: { type: 'text', text: 'hello' } },
  })
  expect(posted.status).toBe(200)
})
afterEach(() => t.close())

const conversationIds = () =>
  (t.db.$client.prepare('select id from conversations order by id').all() as { id: string }[]).map((row) => row.id)

/** Sends one operation as alice and returns the response with the SQL statements it ran. */
async function run(query: string, variables: Record<string, unknown> = {}, key: string | undefined = alice.key) {
  statements = []
  const response = await t.graphql(query, variables, key === undefined ? {} : { key })
  return { response, statements: [...statements] }
}

/** A refusal before execution: one error naming the limit, the request id, no data, no SQL run. */
function expectRefused(
  { response, statements: ran }: { response: JsonResponse; statements: string[] },
  message: string | RegExp,
  extensions: Record<string, unknown> = {},
) {
  const requestId = response.headers.get('x-request-id')
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
  expect(response.status).toBe(200)
  expect(response.body).toEqual({
    errors: [
      {
        message: typeof message === 'string' ? message : expect.stringMatching(message),
        extensions: { ...extensions, requestId },
      },
    ],
  })
  expect(ran).toEqual([])
}

const USER = 'id userId name pictureUrl profile isBot createdAt updatedAt'

describe('query depth limit (12)', () => {
  it('refuses a mutation nested 14 deep without running it', async () => {
    const result = await run(/* GraphQL */ `
      mutation {
        createConversation(input: { id: "deep" }) {
          conversation { messages { edges { node {
            conversation { messages { edges { node {
              conversation { messages { edges { node { messageId } } } }
            } } } }
          } } } }
        }
      }
    `)
    expectRefused(result, 'Syntax Error: Query depth limit of 12 exceeded, found 14.')
    expect(conversationIds()).toEqual(['c1'])
  })

  it('refuses a query 13 deep and answers the same path 12 deep', async () => {
    const refused = await run(/* GraphQL */ `
      query {
        conversation(id: "c1") { messages { edges { node {
          conversation { messages { edges { node {
            conversation { messages { edges { node { messageId } } } }
          } } } }
        } } } }
      }
    `)
    expectRefused(refused, 'Syntax Error: Query depth limit of 12 exceeded, found 13.')

    const answered = await run(/* GraphQL */ `
      query {
        conversation(id: "c1") { messages { edges { node {
          conversation { messages { edges { node {
            conversation { messages { pageInfo { hasNextPage } } }
          } } } }
        } } } }
      }
    `)
    expect(answered.response.status).toBe(200)
    expect(answered.response.body).toEqual({
      data: {
        conversation: {
          messages: {
            edges: [{ node: { conversation: { messages: { edges: [{ node: { conversation: { messages: { pageInfo: { hasNextPage: false } } } } }] } } } }],
          },
        },
      },
    })
  })
})

describe('aliases limit (20)', () => {
  const aliased = (count: number) =>
    `mutation { ${Array.from(
      { length: count },
      (_, i) => `c${i}: createConversation(input: { id: "alias-${i}" }) { conversation { conversationId } }`,
    ).join('\n')} }`

  it('refuses 21 aliased mutations without running any', async () => {
    expectRefused(await run(aliased(21)), 'Syntax Error: Aliases limit of 20 exceeded, found 21.')
    expect(conversationIds()).toEqual(['c1'])
  })

  it('runs 20', async () => {
    const { response } = await run(aliased(20))
    expect(response.status).toBe(200)
    expect(response.body.errors).toBeUndefined()
    expect(Object.keys(response.body.data)).toHaveLength(20)
    expect(conversationIds()).toHaveLength(21)
  })
})

describe('token limit (2000)', () => {
  it('refuses an operation of more than 2000 tokens without running it', async () => {
    const result = await run(
      `mutation { createConversation(input: { id: "tokens" }) { conversation { conversationId ${'__typename '.repeat(2000)} } } }`,
    )
    expectRefused(result, 'Syntax Error: Token limit of 2000 exceeded.', { code: 'GRAPHQL_PARSE_FAILED' })
    expect(conversationIds()).toEqual(['c1'])
  })
})

describe('cost limit (100,000)', () => {
  it('refuses a wide mutation within the depth limit without running it', async () => {
    const message = `id messageId conversationId userId createdAt rawPayload metadata author { ${USER} }`
    const result = await run(/* GraphQL */ `
      mutation {
        createConversation(input: { id: "wide" }) {
          conversation {
            conversationId
            owner { ${USER} }
            participants(first: 100) { edges { cursor node { ${USER} } } }
            messages(first: 100) {
              edges {
                cursor
                node {
                  ${message}
                  conversation {
                    conversationId
                    owner { ${USER} }
                    participants(first: 100) { edges { cursor node { ${USER} } } }
                    messages(first: 100) { edges { cursor node { ${message} } } }
                  }
                }
              }
            }
          }
        }
      }
    `)
    expectRefused(result, /^Syntax Error: Query Cost limit of 100000 exceeded, found \d+(\.\d+)?\.$/)
    const found = Number(/found ([\d.]+)\.$/.exec(result.response.body.errors[0].message)?.[1])
    expect(found).toBeGreaterThan(100_000)
    expect(conversationIds()).toEqual(['c1'])
  })
})

describe('legitimate operations pass the limits', () => {
  it("answers the web chat's conversation query", async () => {
    const { response } = await run(WebChatConversationDocument.toString(), { id: 'c1' })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      data: {
        me: { userId: 'alice' },
        conversation: {
          messages: {
            edges: [
              {
                node: {
                  messageId: expect.any(String),
                  userId: 'alice',
                  createdAt: expect.any(String),
                  author: { isBot: false, name: 'Alice' },
                  payload: { __typename: 'TextPayload', text: 'hello' },
                },
              },
            ],
          },
        },
      },
    })
  })

  it('answers the deepest path the REST layer reads: conversations → messages → author', async () => {
    const { response } = await run(/* GraphQL */ `
      query {
        conversations(first: 20) {
          edges { cursor node {
            conversationId
            messages(first: 20) {
              edges { cursor node { messageId createdAt rawPayload metadata author { ${USER} } } }
              pageInfo { hasNextPage endCursor }
            }
          } }
          pageInfo { hasNextPage endCursor }
        }
      }
    `)
    expect(response.status).toBe(200)
    expect(response.body.errors).toBeUndefined()
    expect(response.body.data.conversations.edges[0].node.messages.edges[0].node.author.userId).toBe('alice')
  })

  it("answers the web chat's send-text mutation", async () => {
    const { response } = await run(WebChatSendTextDocument.toString(), { conversationId: 'c1', text: 'hi' })
    expect(response.status).toBe(200)
    expect(response.body.errors).toBeUndefined()
    expect(response.body.data.createMessage.message.payload).toEqual({ __typename: 'TextPayload', text: 'hi' })
  })
})

describe('connection page sizes', () => {
  const cases: [string, string][] = [
    ['conversations(first: 101)', 'first (page size) must be from 1 to 100, got 101'],
    ['conversations(last: 101)', 'last (page size) must be from 1 to 100, got 101'],
  ]
  it.each(cases)('refuses %s as InvalidPayload', async (field, message) => {
    const { response } = await run(`query { ${field} { edges { node { conversationId } } } }`)
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      data: null,
      errors: [
        {
          message,
          locations: [{ line: 1, column: 9 }],
          path: ['conversations'],
          extensions: { type: 'InvalidPayload', status: 400, requestId: response.headers.get('x-request-id') },
        },
      ],
    })
  })

  it.each([
    ['messages(first: 101)', 'first (page size) must be from 1 to 100, got 101'],
    ['messages(last: 101)', 'last (page size) must be from 1 to 100, got 101'],
    ['participants(first: 101)', 'first (page size) must be from 1 to 100, got 101'],
    ['participants(last: 101)', 'last (page size) must be from 1 to 100, got 101'],
  ])('refuses conversation.%s as InvalidPayload', async (field, message) => {
    const { response } = await run(`query { conversation(id: "c1") { ${field} { pageInfo { hasNextPage } } } }`)
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      data: null,
      errors: [
        expect.objectContaining({
          message,
          path: ['conversation', field.slice(0, field.indexOf('('))],
          extensions: { type: 'InvalidPayload', status: 400, requestId: response.headers.get('x-request-id') },
        }),
      ],
    })
  })

  it('answers first: 100 and last: 100', async () => {
    for (const args of ['first: 100', 'last: 100']) {
      const { response } = await run(`query { conversations(${args}) { edges { node { conversationId } } } }`)
      expect(response.body).toEqual({ data: { conversations: { edges: [{ node: { conversationId: 'c1' } }] } } })
    }
  })
})

describe('error masking', () => {
  const leaks = /payload_gone|no such column|SqliteError|SQLITE|select |\bat .+\.(ts|js):\d+/i

  it('answers a resolver that fails unexpectedly (the database lost a column) with a generic Internal error', async () => {
    t.db.$client.exec('ALTER TABLE messages RENAME COLUMN payload TO payload_gone')
    statements = []
    const response = await t.send(
      'POST',
      `${BASE}/${WEBHOOK_ID}/graphql`,
      {
        key: alice.key,
        body: { query: 'query { conversation(id: "c1") { messages { edges { node { messageId rawPayload } } } } }' },
      },
    )
    const text = await response.text()
    // A failure of the server's own is a 5xx over HTTP, as REST answers it.
    expect(response.status).toBe(500)
    expect(JSON.parse(text)).toEqual({
      data: null,
      errors: [
        {
          message: 'Unexpected error.',
          path: ['conversation', 'messages'],
          extensions: { type: 'Internal', status: 500, requestId: response.headers.get('x-request-id') },
        },
      ],
    })
    expect(text).not.toMatch(leaks)
  })

  it('answers a request whose context cannot be made (the database is closed) with a generic Internal error and 500', async () => {
    t.db.$client.close()
    const response = await t.send('POST', `${BASE}/${WEBHOOK_ID}/graphql`, {
      key: alice.key,
      body: { query: 'query { me { userId } }' },
    })
    const text = await response.text()
    expect(JSON.parse(text)).toEqual({
      errors: [
        {
          message: 'Unexpected error.',
          extensions: { type: 'Internal', status: 500, requestId: response.headers.get('x-request-id') },
        },
      ],
    })
    expect(text).not.toMatch(/database connection is not open|TypeError|\bat .+\.(ts|js):\d+/)
    // The whole request failed on the server's side: that is a 5xx, as REST answers it.
    expect(response.status).toBe(500)
  })

  it('answers REST with the contract error body and no SQL when the database fails', async () => {
    t.db.$client.exec('ALTER TABLE messages RENAME COLUMN payload TO payload_gone')
    const response = await t.send('GET', `${BASE}/${WEBHOOK_ID}/conversations/c1/messages`, { key: alice.key })
    const text = await response.text()
    expect(response.status).toBe(500)
    expect(JSON.parse(text)).toEqual({
      id: response.headers.get('x-request-id'),
      code: 500,
      type: 'Internal',
      message: expect.any(String),
    })
    expect(text).not.toMatch(leaks)
  })
})

describe('request id on every GraphQL error', () => {
  const expectRequestIds = (response: JsonResponse) => {
    const requestId = response.headers.get('x-request-id')
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(response.body.errors.length).toBeGreaterThan(0)
    for (const error of response.body.errors) expect(error.extensions.requestId).toBe(requestId)
  }

  it('on a validation error', async () => {
    const response = await t.graphql('query { nope }', {}, { key: alice.key })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      errors: [
        {
          message: 'Cannot query field "nope" on type "Query". Did you mean "node" or "nodes"?',
          locations: [{ line: 1, column: 9 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED', requestId: response.headers.get('x-request-id') },
        },
      ],
    })
    expectRequestIds(response)
  })

  it('on a syntax error', async () => {
    const response = await t.graphql('query {', {}, { key: alice.key })
    expect(response.body.errors).toEqual([
      expect.objectContaining({ extensions: { code: 'GRAPHQL_PARSE_FAILED', requestId: response.headers.get('x-request-id') } }),
    ])
    expectRequestIds(response)
  })

  it('on a field error', async () => {
    const response = await t.graphql('query { conversation(id: "nope") { conversationId } }', {}, { key: alice.key })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      data: null,
      errors: [
        expect.objectContaining({
          path: ['conversation'],
          extensions: { type: 'ResourceNotFound', status: 404, requestId: response.headers.get('x-request-id') },
        }),
      ],
    })
    expectRequestIds(response)
  })

  it('on a field error for a missing key', async () => {
    const response = await t.graphql('query { me { userId } }')
    expect(response.body).toEqual({
      data: null,
      errors: [
        expect.objectContaining({
          path: ['me'],
          extensions: { type: 'Unauthorized', status: 401, requestId: response.headers.get('x-request-id') },
        }),
      ],
    })
  })

  it('on a context error: an invalid key is 401', async () => {
    const response = await t.graphql('query { me { userId } }', {}, { key: 'not-a-jwt' })
    expect(response.status).toBe(401)
    expect(response.body).toEqual({
      errors: [
        {
          message: 'the user key is not valid for this chat integration',
          extensions: { type: 'Unauthorized', status: 401, requestId: response.headers.get('x-request-id') },
        },
      ],
    })
  })

  it('on a context error: an unknown webhook id is 404', async () => {
    const response = await t.send('POST', `${BASE}/no-such-webhook/graphql`, {
      key: alice.key,
      body: { query: 'query { me { userId } }' },
    })
    const body = await response.json()
    expect(response.status).toBe(404)
    expect(body).toEqual({
      errors: [
        expect.objectContaining({
          extensions: { type: 'ResourceNotFound', status: 404, requestId: response.headers.get('x-request-id') },
        }),
      ],
    })
  })

  it('on a variables error', async () => {
    const response = await t.graphql('query ($id: String!) { conversation(id: $id) { conversationId } }', {}, { key: alice.key })
    expect(response.body.errors).toEqual([
      expect.objectContaining({ message: 'Variable "$id" of required type "String!" was not provided.' }),
    ])
    expectRequestIds(response)
  })

  it('on admin GraphQL errors: validation, and a bad token (401)', async () => {
    const invalid = await t.adminGraphql('query { nope }')
    expect(invalid.body.errors).toHaveLength(1)
    expectRequestIds(invalid)
    const unauthorized = await t.adminGraphql('query { bots { edges { node { id } } } }', {}, {
      authorization: 'Bearer wrong',
      'x-workspace-id': 'wkspace_test',
    })
    expect(unauthorized.status).toBe(401)
    expect(unauthorized.body.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ type: 'Unauthorized', status: 401 }) }),
    ])
    expectRequestIds(unauthorized)
  })

  it('gives each request its own id', async () => {
    const first = await t.graphql('query { nope }')
    const second = await t.graphql('query { nope }')
    expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'))
  })
})

describe('request id on every REST error', () => {
  const cases: [string, () => Promise<JsonResponse>, number, string][] = [
    ['a missing key', () => t.chat('GET', '/conversations/c1'), 401, 'Unauthorized'],
    ['an invalid key', () => t.chat('GET', '/conversations/c1', { key: 'not-a-jwt' }), 401, 'Unauthorized'],
    ['a non-participant', async () => t.chat('GET', '/conversations/c1', { key: (await t.user('bob')).key }), 403, 'Forbidden'],
    ['a missing conversation', () => t.chat('GET', '/conversations/nope', { key: alice.key }), 404, 'ResourceNotFound'],
    ['an unknown path', () => t.chat('GET', '/nowhere', { key: alice.key }), 404, 'ResourceNotFound'],
    ['a wrong method', () => t.chat('PATCH', '/messages', { key: alice.key }), 405, 'MethodNotFound'],
    ['malformed JSON', () => t.chat('POST', '/conversations', { key: alice.key, rawBody: '{', headers: { 'content-type': 'application/json' } }), 400, 'InvalidPayload'],
    ['an invalid payload', () => t.chat('POST', '/messages', { key: alice.key, body: { conversationId: 'c1', payload: { type: 'text' } } }), 400, 'InvalidPayload'],
    ['an unknown webhook id', () => t.send('GET', `${BASE}/no-such-webhook/conversations/c1`, { key: alice.key }).then(toJson), 404, 'ResourceNotFound'],
    ['an admin request without a token', () => t.admin('GET', '/bots', { headers: { authorization: '' } }), 401, 'Unauthorized'],
    ['an unknown top-level path', () => t.send('GET', `${BASE}/`).then(toJson), 404, 'ResourceNotFound'],
  ]

  it.each(cases)('on %s', async (_name, request, code, type) => {
    const response = await request()
    const requestId = response.headers.get('x-request-id')
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(response.status).toBe(code)
    expect(response.body).toEqual({ id: requestId, code, type, message: expect.any(String) })
  })
})

async function toJson(response: Response): Promise<JsonResponse> {
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
}
