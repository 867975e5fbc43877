import { beforeEach, describe, expect, it } from 'vitest'
import { BASE, type JsonResponse, toJson, useC1, useTestApp, WEBHOOK_ID } from '../helpers/app.ts'

// GraphQL errors: each carries the request id (extensions.requestId, as x-request-id), and a
// failure of the server's own is masked as a generic Internal error with HTTP 500.

const leaks = /payload_gone|no such column|SqliteError|SQLITE|select |database connection is not open|TypeError|\bat .+\.(ts|js):\d+/i

describe('GraphQL errors', () => {
  const t = useTestApp({ handlers: {} })
  const users = useC1(t)
  beforeEach(async () => {
    await t.message(users.alice.key, 'c1')
  })
  const post = async (query: string, key = users.alice.key, webhookId = WEBHOOK_ID) =>
    toJson(await t.send('POST', `${BASE}/${webhookId}/graphql`, { key, body: { query } }))

  describe('masking', () => {
    it('answers a resolver that fails unexpectedly (the database lost a column) with a generic Internal error and 500', async () => {
      await t.query('ALTER TABLE messages RENAME COLUMN payload TO payload_gone')
      const res = await post('query { conversation(id: "c1") { messages { edges { node { messageId rawPayload } } } } }')
      // A failure of the server's own is a 5xx over HTTP, as REST answers it.
      expect(res.status).toBe(500)
      expect(res.body).toEqual({
        data: null,
        errors: [
          {
            message: 'Unexpected error.',
            // The page is read with its conversation (one statement), where the column is missing.
            path: ['conversation'],
            extensions: { type: 'Internal', status: 500, requestId: res.headers.get('x-request-id') },
          },
        ],
      })
      expect(JSON.stringify(res.body)).not.toMatch(leaks)
    })

    it('answers a request whose context cannot be made (the database is closed) with a generic Internal error and 500', async () => {
      await t.store.close()
      // Without a user key: the context reads the integration (with one, on PostgreSQL, it may come
      // from memory, and the field's first statement fails instead: the next case).
      const res = await post('query { me { userId } }', '')
      expect(res.status).toBe(500)
      expect(res.body).toEqual({
        errors: [{ message: 'Unexpected error.', extensions: { type: 'Internal', status: 500, requestId: res.headers.get('x-request-id') } }],
      })
      expect(JSON.stringify(res.body)).not.toMatch(leaks)
    })

    it('answers a keyed request on a closed database with the same generic Internal error and 500', async () => {
      await t.store.close()
      const res = await post('query { me { userId } }')
      expect(res.status).toBe(500)
      expect(res.body).toMatchObject({
        errors: [{ message: 'Unexpected error.', extensions: { type: 'Internal', status: 500, requestId: res.headers.get('x-request-id') } }],
      })
      expect((res.body as { errors: unknown[] }).errors).toHaveLength(1)
      expect(JSON.stringify(res.body)).not.toMatch(leaks)
    })
  })

  describe('request ids', () => {
    /** Every error names the request id of the response, a fresh UUID. */
    const expectRequestIds = (res: JsonResponse) => {
      const requestId = res.headers.get('x-request-id')
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
      expect(res.body.errors.length).toBeGreaterThan(0)
      for (const error of res.body.errors) expect(error.extensions.requestId).toBe(requestId)
    }

    it.each([
      [
        'a validation error',
        () => post('query { nope }'),
        200,
        {
          message: 'Cannot query field "nope" on type "Query". Did you mean "node" or "nodes"?',
          locations: [{ line: 1, column: 9 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED', type: 'InvalidPayload', status: 400 },
        },
      ],
      ['a syntax error', () => post('query {'), 200, { extensions: { code: 'GRAPHQL_PARSE_FAILED', type: 'InvalidPayload', status: 400 } }],
      [
        'a variables error',
        () => post('query ($id: String!) { conversation(id: $id) { conversationId } }'),
        400,
        { message: 'Variable "$id" of required type "String!" was not provided.', extensions: { type: 'InvalidPayload', status: 400 } },
      ],
      [
        'a field error',
        () => post('query { conversation(id: "nope") { conversationId } }'),
        200,
        { path: ['conversation'], extensions: { type: 'ResourceNotFound', status: 404 } },
      ],
      ['a field error for a missing key', () => post('query { me { userId } }', ''), 200, { path: ['me'], extensions: { type: 'Unauthorized', status: 401 } }],
      [
        'a context error: an invalid key',
        () => post('query { me { userId } }', 'not-a-jwt'),
        401,
        { message: 'the user key is not valid for this chat integration', extensions: { type: 'Unauthorized', status: 401 } },
      ],
      [
        'a context error: an unknown webhook id',
        () => post('query { me { userId } }', users.alice.key, 'no-such-webhook'),
        404,
        { extensions: { type: 'ResourceNotFound', status: 404 } },
      ],
      [
        'an admin validation error',
        () => t.adminGraphql('query { nope }'),
        200,
        { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', type: 'InvalidPayload', status: 400 } },
      ],
      [
        'an admin request with a bad token',
        () => t.adminGraphql('query { bots { edges { node { id } } } }', {}, { authorization: 'Bearer wrong', 'x-workspace-id': 'wkspace_test' }),
        401,
        { extensions: { type: 'Unauthorized', status: 401 } },
      ],
    ] as const)('names the request on %s', async (_what, request, status, error) => {
      const res = await request()
      expect(res.status).toBe(status)
      expect(res.body.errors).toEqual([
        expect.objectContaining({ ...error, extensions: { ...('extensions' in error ? error.extensions : {}), requestId: expect.any(String) } }),
      ])
      if ('path' in error) expect(res.body.data).toBeNull()
      else expect(res.body.data).toBeUndefined()
      expectRequestIds(res)
    })

    it('gives each request its own id', async () => {
      const [first, second] = [await post('query { nope }'), await post('query { nope }')]
      expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'))
    })
  })
})
