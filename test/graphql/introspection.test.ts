import { getIntrospectionQuery } from 'graphql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, WEBHOOK_ID, WORKSPACE_ID } from '../helpers/app.ts'
import { type Listening, startListening } from '../helpers/listening.ts'

// Introspection meets the depth and cost limits too: it is priced by the answer the schema would
// make (at most 20,000 fields; the chat schema's whole is about 5,800) and may be 15 deep (the
// standard query's depth). The administration endpoint answers nothing without its token, its schema
// included; the chat endpoint's schema needs no key (and counts on the anonymous rate limit).

/** The introspection query GraphiQL sends, with every option it may ask for. */
const graphiqlIntrospection = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
  oneOf: true,
})

/**
 * Eight copies of the schema's types with their fields, arguments and type references: within the
 * nesting graphql-js itself allows (three levels of fields), but 23,464 fields of answer (425 KB).
 */
const costly = `{ ${Array.from({ length: 8 }, (_, i) => `s${i}: __schema { ...S }`).join(' ')} }
fragment S on __Schema { types { name description fields(includeDeprecated: true) { name description
  args { name description type { name kind ofType { name kind ofType { name kind } } } }
  type { name kind ofType { name kind ofType { name kind ofType { name } } } } } } }`

const useServer = () => {
  const state: { listening?: Listening } = {}
  beforeAll(async () => {
    state.listening = await startListening()
  })
  afterAll(() => state.listening?.close())
  return {
    async post(path: string, query: string, headers: Record<string, string> = {}) {
      const response = await fetch(`${(state.listening as Listening).baseUrl}${path}`, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query }),
      })
      const text = await response.text()
      return { status: response.status, bytes: Buffer.byteLength(text), body: JSON.parse(text) }
    },
    health: () => fetch(`${(state.listening as Listening).baseUrl}/healthz`).then((response) => response.status),
  }
}

describe('introspection meets the cost and depth limits, without a key', () => {
  const server = useServer()

  it("answers GraphiQL's introspection query", async () => {
    const answer = await server.post(`/${WEBHOOK_ID}/graphql`, graphiqlIntrospection)
    expect(answer.status).toBe(200)
    expect(answer.body.errors).toBeUndefined()
    expect(answer.body.data.__schema.types.map((type: { name: string }) => type.name)).toContain('Message')
  })

  it('refuses one whose answer would pass 20,000 fields, before it runs', async () => {
    const answer = await server.post(`/${WEBHOOK_ID}/graphql`, costly)
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({
      errors: [
        {
          message: 'Introspection limit of 20000 fields exceeded: the schema would answer more.',
          extensions: { type: 'InvalidPayload', status: 400, requestId: expect.any(String) },
        },
      ],
    })
  })

  it('refuses twenty copies of the whole schema as aliases', async () => {
    const copies = Array.from({ length: 20 }, (_, i) => `s${i}: __schema { ...S }`).join(' ')
    const answer = await server.post(
      `/${WEBHOOK_ID}/graphql`,
      `{ ${copies} } fragment S on __Schema { types { name fields { name description type { name } } } }`,
    )
    expect(answer.body.errors?.[0]?.message).toBe('Introspection limit of 20000 fields exceeded: the schema would answer more.')
  })

  it('refuses one deeper than 15', async () => {
    const nested = (depth: number): string => (depth === 0 ? 'name' : `name ofType { ${nested(depth - 1)} }`)
    const answer = await server.post(`/${WEBHOOK_ID}/graphql`, `{ __schema { queryType { fields { type { ${nested(11)} } } } } }`)
    expect(answer.body.errors?.[0]?.message).toBe('Introspection depth limit of 15 exceeded, found 16.')
    const within = await server.post(`/${WEBHOOK_ID}/graphql`, `{ __schema { queryType { fields { type { ${nested(10)} } } } } }`)
    expect(within.body.errors).toBeUndefined()
  })
})

describe('concurrent costly introspections stay bounded', () => {
  const server = useServer()

  it('four at once are refused or answered within 20,000 fields each, and /healthz answers beside them', async () => {
    const asked = [costly, costly, graphiqlIntrospection, graphiqlIntrospection].map((query) => server.post(`/${WEBHOOK_ID}/graphql`, query))
    const [health, ...answers] = await Promise.all([server.health(), ...asked])
    expect(health).toBe(200)
    expect(answers.map((answer) => answer.body.errors?.[0]?.extensions.type ?? 'answered')).toEqual([
      'InvalidPayload',
      'InvalidPayload',
      'answered',
      'answered',
    ])
    // The whole chat schema, with every description: about 110 KB.
    for (const answer of answers) expect(answer.bytes).toBeLessThan(400 * 1024)
  })
})

describe('the administration endpoint answers no introspection without its token', () => {
  const server = useServer()

  it.each([
    ['no token', {}],
    ['a wrong token', { authorization: 'Bearer bp_pat_wrong', 'x-workspace-id': WORKSPACE_ID }],
  ])('%s: 401, the schema included', async (_name, headers) => {
    for (const query of ['{ __schema { queryType { name } } }', '{ __type(name: "Bot") { name } }', '{ __typename }']) {
      const answer = await server.post('/v1/admin/graphql', query, headers)
      expect(answer.status, query).toBe(401)
      expect(answer.body.errors[0].extensions).toMatchObject({ type: 'Unauthorized', status: 401 })
    }
  })

  it('answers it with the admin token and workspace id', async () => {
    const answer = await server.post('/v1/admin/graphql', graphiqlIntrospection, { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID })
    expect(answer.status).toBe(200)
    expect(answer.body.data.__schema.types.map((type: { name: string }) => type.name)).toContain('Bot')
  })
})
