import { expect } from 'vitest'
import { payloadToInput } from '../../src/graphql/types/payload-input.ts'
import { BASE, type TestApp, WEBHOOK_ID } from './app.ts'

/** A field error as the chat and admin schemas report it: the field's path, the type and status, no data. */
export const fieldError = (type: string, status: number, path: (string | number)[]) => ({
  errors: [expect.objectContaining({ path, extensions: { type, status, requestId: expect.any(String) } })],
  data: null,
})

/** A request refused as a whole before execution (its key, its webhook id): one error, no path, no data. */
export const requestError = (type: string, status: number) => ({
  errors: [{ message: expect.any(String), extensions: { type, status, requestId: expect.any(String) } }],
})

/** A request error, refused before execution: errors without a path, and no data at all. */
export function expectRequestError(body: { data?: unknown; errors?: { path?: unknown }[] }) {
  expect(body.data).toBeUndefined()
  expect(body.errors?.length).toBeGreaterThan(0)
  expect(body.errors?.every((error) => error.path === undefined)).toBe(true)
}

export const USER_FIELDS = 'userId name pictureUrl profile isBot createdAt updatedAt'

export const MESSAGE_FIELDS = 'messageId userId conversationId createdAt rawPayload metadata'

export const CREATE_MESSAGE = /* GraphQL */ `
  mutation ($input: CreateMessageInput!) { createMessage(input: $input) { message { ${MESSAGE_FIELDS} } } }
`

/** createMessage over GraphQL with a Chat API `{type, …}` payload, sent as the @oneOf input it maps onto. */
export const graphqlMessage = (
  t: TestApp,
  key: string | undefined,
  input: { conversationId: string; payload: unknown; metadata?: unknown },
  document = CREATE_MESSAGE,
) => t.graphql(document, { input: { ...input, payload: payloadToInput(input.payload) } }, { key })

/** The ids of the nodes of a connection's edges. */
export const nodeIds = <K extends string>(connection: { edges: { node: Record<K, string> }[] }, field: K) => connection.edges.map((edge) => edge.node[field])

/** The owner of a conversation, as a participant reads it (the REST bodies do not show it). */
export const ownerOf = async (t: TestApp, key: string, conversationId: string): Promise<string> => {
  const res = await t.graphql('query ($id: String!) { conversation(id: $id) { owner { userId } } }', { id: conversationId }, { key })
  expect(res.body.errors).toBeUndefined()
  return res.body.data.conversation.owner.userId
}

/** A GraphQL operation over graphql-yoga's own SSE (POST with Accept: text/event-stream), in-process. */
export const subscribeOverSse = (t: TestApp, key: string | undefined, query: string, variables: Record<string, unknown> = {}) =>
  t.app.fetch(
    new Request(`${BASE}/${WEBHOOK_ID}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...(key === undefined ? {} : { 'x-user-key': key }) },
      body: JSON.stringify({ query, variables }),
    }),
  )
