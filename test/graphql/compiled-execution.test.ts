import { print } from 'graphql'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadCompiler } from '../../src/graphql/compiled-execution.ts'
import { messageRoutes } from '../../src/rest/chat/messages.ts'
import type { Route } from '../../src/rest/route.ts'
import { type JsonResponse, useC1, useTestApp } from '../helpers/app.ts'

// Queries and mutations are compiled (graphql-jit) from a document's second run on; its first run
// is interpreted by yoga's executor. Each request below is sent three times: the compiled runs must
// answer exactly as the interpreted one did (status, data, errors with their locations and paths).
// A REST route's document is compiled from its first run: its answers are compared with the same
// operation sent as GraphQL, whose first run is interpreted.

/** The response without what differs by request: the request id (and the REST error body's id). */
const answer = (res: JsonResponse) => ({
  status: res.status,
  body: JSON.parse(JSON.stringify(res.body), (key, value) =>
    key === 'requestId' || (key === 'id' && typeof value === 'string' && value.startsWith('err_')) ? undefined : value,
  ),
})

async function sameEachRun(request: () => Promise<JsonResponse>) {
  const first = answer(await request())
  for (let run = 2; run <= 3; run++) expect(answer(await request())).toEqual(first)
  return first
}

describe('compiled execution — the same answer as interpreted', () => {
  // graphql-jit is loaded on first use; here it is there before the first request.
  beforeAll(() => loadCompiler())
  const t = useTestApp({ handlers: {} })
  const users = useC1(t, { members: ['bob'] })

  const page = `query ($first: Int, $after: String) {
    conversation(id: "c1") {
      owner { userId }
      participants(first: 5) { edges { node { userId isBot } } }
      messages(first: $first, after: $after) {
        edges { cursor node { messageId createdAt author { userId name } payload { __typename ... on TextPayload { text } ... on ImagePayload { imageUrl } } rawPayload metadata } }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }
  }`

  it('pages messages of several payload kinds, with their authors, cursors and page info', async () => {
    const { key } = users.alice
    await t.message(key, 'c1', { type: 'text', text: 'one' })
    await t.message(users.bob.key, 'c1', { type: 'image', imageUrl: 'https://example.com/a.png' }, { shown: true })
    await t.message(key, 'c1', { type: 'text', text: 'three' })
    const first = await sameEachRun(() => t.graphql(page, { first: 2 }, { key }))
    expect(first.status).toBe(200)
    expect(first.body.data.conversation.messages.edges).toHaveLength(2)
    const after = first.body.data.conversation.messages.pageInfo.endCursor as string
    const next = await sameEachRun(() => t.graphql(page, { first: 2, after }, { key }))
    expect(next.body.data.conversation.messages.edges.map((e: { node: { payload: { text?: string } } }) => e.node.payload.text)).toEqual(['one'])
  })

  it('refuses a field (page size, unknown conversation) with its path and location', async () => {
    const { key } = users.alice
    const refused = await sameEachRun(() => t.graphql(page, { first: 0 }, { key }))
    expect(refused.body.errors[0]).toMatchObject({
      path: ['conversation', 'messages'],
      locations: [expect.any(Object)],
      extensions: { type: 'InvalidPayload' },
    })
    const missing = await sameEachRun(() => t.graphql('query { conversation(id: "nope") { conversationId } }', {}, { key }))
    expect(missing.body).toMatchObject({
      data: null,
      errors: [{ path: ['conversation'], locations: [{ line: 1, column: 9 }], extensions: { type: 'ResourceNotFound' } }],
    })
  })

  it('refuses variables as the interpreter does: a missing one, and a @oneOf payload naming two kinds (400)', async () => {
    const { key } = users.alice
    const missing = await sameEachRun(() => t.graphql('query ($id: String!) { conversation(id: $id) { conversationId } }', {}, { key }))
    expect(missing.status).toBe(400)
    const create = 'mutation ($payload: MessagePayloadInput!) { createMessage(input: { conversationId: "c1", payload: $payload }) { message { messageId } } }'
    const twoKinds = await sameEachRun(() => t.graphql(create, { payload: { text: { text: 'a' }, markdown: { markdown: 'b' } } }, { key }))
    expect(twoKinds.status).toBe(400)
    expect(twoKinds.body.errors[0].message).toContain('MessagePayloadInput')
  })

  it('leaves out an input field whose variable was not given (updateUser keeps the picture)', async () => {
    const { key } = users.alice
    const update = 'mutation ($name: String, $pictureUrl: String) { updateUser(input: { name: $name, pictureUrl: $pictureUrl }) { user { name pictureUrl } } }'
    await t.graphql(update, { name: 'Alice', pictureUrl: 'https://example.com/alice.png' }, { key })
    const renamed = await sameEachRun(() => t.graphql(update, { name: 'Al' }, { key }))
    expect(renamed.body.data.updateUser.user).toEqual({ name: 'Al', pictureUrl: 'https://example.com/alice.png' })
    // Given as undefined, a variable is not given either.
    const again = await sameEachRun(() => t.graphql(update, { name: 'Al', pictureUrl: undefined }, { key }))
    expect(again.body.data.updateUser.user.pictureUrl).toBe('https://example.com/alice.png')
    // Each set of fields left out runs as its own compiled variant.
    const repictured = await sameEachRun(() => t.graphql(update, { pictureUrl: 'https://example.com/al.png' }, { key }))
    expect(repictured.body.data.updateUser.user).toEqual({ name: 'Al', pictureUrl: 'https://example.com/al.png' })
    // A variable with a default value is given its default (each run from another picture).
    const withDefault = update.replace('$pictureUrl: String', '$pictureUrl: String = "https://example.com/default.png"')
    const defaulted = await sameEachRun(async () => {
      await t.graphql(update, { pictureUrl: 'https://example.com/other.png' }, { key })
      return t.graphql(withDefault, { name: 'Al' }, { key })
    })
    expect(defaulted.body.data.updateUser.user).toEqual({ name: 'Al', pictureUrl: 'https://example.com/default.png' })
  })

  it('answers a REST route, compiled from its first run, as its operation answers through GraphQL', async () => {
    const { key } = users.alice
    await t.message(key, 'c1', { type: 'text', text: 'hello' })
    const listMessages = messageRoutes.find((r) => r.operation === 'listMessages') as Route
    const viaGraphQL = await sameEachRun(() => t.graphql(print(listMessages.document), { conversationId: 'c1' }, { key }))
    const listed = await sameEachRun(() => t.chat('GET', '/conversations/c1/messages', { key }))
    expect(listed.status).toBe(200)
    expect(listed.body).toEqual(listMessages.response(viaGraphQL.body.data))
    expect(listed.body.messages.map((m: { payload: unknown }) => m.payload)).toEqual([{ type: 'text', text: 'hello' }])
    const refused = await sameEachRun(() => t.chat('GET', '/conversations/nope/messages', { key }))
    expect(refused.status).toBe(404)
  })
})
