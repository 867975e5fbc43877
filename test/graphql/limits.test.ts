import { getNamedType, type GraphQLObjectType, isObjectType } from 'graphql'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { carryingFields } from '../../src/graphql/cost.ts'
import { chatSchema } from '../../src/graphql/schema.ts'
import { WebChatConversationDocument, WebChatParticipantsDocument, WebChatSendTextDocument } from '../../src/webchat/__generated__/graphql.ts'
import { type JsonResponse, useC1, useTestApp } from '../helpers/app.ts'
import { USER_FIELDS } from '../helpers/graphql.ts'
import { type Listening, startListening } from '../helpers/listening.ts'

// Execution limits (graphql-armor: depth 12, 20 aliases, 2000 tokens; cost.ts: cost 100,000): an operation
// over a limit is refused before it runs, and the operations the API's own clients send pass.

describe('execution limits', () => {
  let statements: string[] = []
  // The outbox sweeps (every 2 s on PostgreSQL) are pushed out of the test: only the operation's SQL is counted.
  const t = useTestApp({ onQuery: (sql) => statements.push(sql), handlers: {}, botSweepMs: 3_600_000 })
  const users = useC1(t, { profiles: { alice: { name: 'Alice' } } })
  beforeEach(async () => {
    await t.message(users.alice.key, 'c1', { type: 'text', text: 'hello' })
  })

  const conversationIds = async () => (await t.query<{ id: string }>('select id from conversations order by id')).map((row) => row.id)

  /** Sends one operation as alice and returns the response with the SQL statements it ran. */
  async function run(query: string, variables: Record<string, unknown> = {}) {
    statements = []
    const response = await t.graphql(query, variables, { key: users.alice.key })
    return { response, statements: [...statements] }
  }

  /** A refusal before execution: one error naming the limit, the request id, no data, no SQL run. */
  function expectRefused({ response, statements: ran }: { response: JsonResponse; statements: string[] }, message: string | RegExp, extensions = {}) {
    const requestId = response.headers.get('x-request-id')
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      errors: [
        {
          message: typeof message === 'string' ? message : expect.stringMatching(message),
          extensions: { ...extensions, type: 'InvalidPayload', status: 400, requestId },
        },
      ],
    })
    expect(ran).toEqual([])
  }

  describe('depth (12)', () => {
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
      expect(await conversationIds()).toEqual(['c1'])
    })

    it('refuses a query 13 deep and answers the same path 12 deep', async () => {
      const path = (leaf: string) => /* GraphQL */ `
        query {
          conversation(id: "c1") { messages { edges { node {
            conversation { messages { edges { node {
              conversation { messages { ${leaf} } }
            } } } }
          } } } }
        }
      `
      expectRefused(await run(path('edges { node { messageId } }')), 'Syntax Error: Query depth limit of 12 exceeded, found 13.')
      const { response } = await run(path('pageInfo { hasNextPage }'))
      expect(response.status).toBe(200)
      const leaf = { conversation: { messages: { pageInfo: { hasNextPage: false } } } }
      expect(response.body).toEqual({
        data: { conversation: { messages: { edges: [{ node: { conversation: { messages: { edges: [{ node: leaf }] } } } }] } } },
      })
    })
  })

  describe('aliases (20)', () => {
    const aliased = (count: number) =>
      `mutation { ${Array.from({ length: count }, (_, i) => `c${i}: createConversation(input: { id: "alias-${i}" }) { conversation { conversationId } }`).join('\n')} }`

    it('refuses 21 aliased mutations without running any', async () => {
      expectRefused(await run(aliased(21)), 'Syntax Error: Aliases limit of 20 exceeded, found 21.')
      expect(await conversationIds()).toEqual(['c1'])
    })

    it('runs 20', async () => {
      const { response } = await run(aliased(20))
      expect(response.status).toBe(200)
      expect(response.body.errors).toBeUndefined()
      expect(Object.keys(response.body.data)).toHaveLength(20)
      expect(await conversationIds()).toHaveLength(21)
    })
  })

  it('refuses an operation of more than 2000 tokens without running it', async () => {
    const result = await run(`mutation { createConversation(input: { id: "tokens" }) { conversation { conversationId ${'__typename '.repeat(2000)} } } }`)
    expectRefused(result, 'Syntax Error: Token limit of 2000 exceeded.', { code: 'GRAPHQL_PARSE_FAILED' })
    expect(await conversationIds()).toEqual(['c1'])
  })

  it('refuses a wide mutation within the depth limit over the cost limit (100,000) without running it', async () => {
    const message = `id messageId conversationId userId createdAt rawPayload metadata author { ${USER_FIELDS} }`
    const conversation = (inner: string) =>
      `conversationId owner { ${USER_FIELDS} } participants(first: 100) { edges { cursor node { ${USER_FIELDS} } } } ${inner}`
    const result = await run(/* GraphQL */ `
      mutation {
        createConversation(input: { id: "wide" }) {
          conversation {
            ${conversation(`messages(first: 100) { edges { cursor node { ${message} conversation { ${conversation(`messages(first: 100) { edges { cursor node { ${message} } } }`)} } } } }`)}
          }
        }
      }
    `)
    expectRefused(result, /^Query cost limit of 100000 exceeded, found \d+ \(a page multiplies what it selects; /)
    expect(Number(/found (\d+) /.exec(result.response.body.errors[0].message)?.[1])).toBeGreaterThan(100_000)
    expect(await conversationIds()).toEqual(['c1'])
  })

  describe('the operations the API itself sends pass', () => {
    it("the web chat's conversation query", async () => {
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
                    author: { isBot: false, name: 'Alice', pictureUrl: null },
                    payload: { __typename: 'TextPayload', text: 'hello' },
                  },
                },
              ],
            },
          },
        },
      })
    })

    it("the web chat's send-text mutation", async () => {
      const { response } = await run(WebChatSendTextDocument.toString(), { conversationId: 'c1', text: 'hi' })
      expect(response.status).toBe(200)
      expect(response.body.errors).toBeUndefined()
      expect(response.body.data.createMessage.message.payload).toEqual({ __typename: 'TextPayload', text: 'hi' })
    })

    it("the web chat's send-text mutation with a choice's value, and its participants query", async () => {
      const sent = await run(WebChatSendTextDocument.toString(), { conversationId: 'c1', text: 'Blue', extra: { value: 'blue' } })
      expect(sent.response.body.errors).toBeUndefined()
      const participants = await run(WebChatParticipantsDocument.toString(), { id: 'c1' })
      expect(participants.response.body).toEqual({
        data: {
          conversation: {
            participants: {
              edges: [{ joinedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), node: { userId: 'alice', isBot: false, name: 'Alice', pictureUrl: null } }],
            },
          },
        },
      })
    })

    it('the deepest path the REST layer reads: conversations → messages → author', async () => {
      const { response } = await run(/* GraphQL */ `
        query {
          conversations(first: 20) {
            edges { cursor node {
              conversationId
              messages(first: 20) {
                edges { cursor node { messageId createdAt rawPayload metadata author { ${USER_FIELDS} } } }
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
  })
})

describe('the cost of an operation is priced by what it may return (cost.ts)', () => {
  const state: { listening?: Listening; key?: string } = {}
  beforeAll(async () => {
    state.listening = await startListening()
    state.key = (await state.listening.t.user('alice')).key
    await state.listening.t.conversation(state.key, 'c1')
  })
  afterAll(() => state.listening?.close())

  const send = async (query: string, variables: Record<string, unknown> = {}) => {
    const response = await fetch(`${(state.listening as Listening).apiUrl}/graphql`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', 'x-user-key': state.key as string },
      body: JSON.stringify({ query, variables }),
    })
    return (await response.json()) as { data?: unknown; errors?: { message: string; extensions: Record<string, unknown> }[] }
  }
  const pages = (leaf: string, size = '100') => `conversations(first: ${size}) { edges { node { messages(first: ${size}) { edges { node { ${leaf} } } } } } }`

  it('weighs a field that may carry a message 17 (1 + one per 64 KiB of 1 MiB): two pages of ids pass, of payloads not', async () => {
    expect(await send(`{ ${pages('messageId')} }`)).toEqual({ data: { conversations: { edges: [{ node: { messages: { edges: [] } } }] } } })
    const refused = await send(`{ ${pages('rawPayload')} }`)
    // 1 + 100 × (3 + 100 × (2 + 17))
    expect(refused.errors?.[0]?.message).toMatch(/^Query cost limit of 100000 exceeded, found 190301 /)
    expect(refused.errors?.[0]?.extensions).toMatchObject({ type: 'InvalidPayload', status: 400 })
  })

  it('counts a page size given as a variable as 100, and one with a default as its default', async () => {
    const refused = await send(`query ($n: Int) { ${pages('rawPayload', '$n')} }`, { n: 2 })
    expect(refused.errors?.[0]?.message).toMatch(/a page size given as a variable without a default counts as 100\)\.$/)
    const priced = await send(`query ($n: Int = 10) { ${pages('rawPayload', '$n')} }`, { n: 2 })
    expect(priced.errors).toBeUndefined()
  })

  it('refuses nodes(ids:) of more than a page (100) of ids', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => Buffer.from(`Message:m${i}`).toString('base64'))
    const answer = await send('query ($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids })
    expect(answer.errors?.[0]).toMatchObject({ message: 'nodes takes at most 100 ids, got 101', extensions: { type: 'InvalidPayload', status: 400 } })
  })
})

describe('the fields priced as carrying written bytes', () => {
  const stringFields = (carried: boolean) =>
    Object.values(chatSchema.getTypeMap())
      .filter((type) => isObjectType(type) && !type.name.startsWith('__') && !['Query', 'Mutation', 'Subscription'].includes(type.name))
      .flatMap((type) => Object.values((type as GraphQLObjectType).getFields()).map((field) => [type.name, field] as const))
      .filter(([, field]) => ['String', 'JSONObject'].includes(getNamedType(field.type).name) && carryingFields(chatSchema).has(field) === carried)
      .map(([type, field]) => `${type}.${field.name}`)

  it('are every text of a payload kind, metadata, event payloads, and what a user says of itself', () => {
    expect(stringFields(true)).toEqual([
      'AudioPayload.audioUrl',
      'CardAction.label',
      'CardAction.value',
      'CardPayload.imageUrl',
      'CardPayload.subtitle',
      'CardPayload.title',
      'ChoiceOption.label',
      'ChoiceOption.value',
      'ChoicePayload.text',
      'DropdownPayload.text',
      'Event.payload',
      'FilePayload.fileUrl',
      'FilePayload.title',
      'ImagePayload.imageUrl',
      'LocationPayload.address',
      'LocationPayload.title',
      'MarkdownPayload.markdown',
      'Message.metadata',
      'Message.rawPayload',
      'MessageFeedback.comment',
      'MessageStatusChangedSignal.failureReason',
      'MessageStreamDeltaSignal.delta',
      'TextPayload.text',
      'User.name',
      'User.pictureUrl',
      'User.profile',
      'VideoPayload.videoUrl',
    ])
  })

  it('leave only bounded strings: ids (64 characters; a message stream’s 256), kinds, cursors, keys, statuses, a resync’s reason, the URLs of files (keys of 255) and a message stream’s createdAt (64)', () => {
    for (const coordinate of stringFields(false)) {
      expect(coordinate).toMatch(
        /\.(\w*[iI]d|type|cursor|endCursor|startCursor|key|userKey|value|newStatus|oldStatus|reason|contentType|url|uploadUrl|createdAt)$/,
      )
    }
  })
})
