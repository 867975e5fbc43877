import { getIntrospectionQuery } from 'graphql'
import { describe, expect, it } from 'vitest'
import { asksOnlyForTheSchema } from '../../src/graphql/graphiql.ts'
import { useTestApp } from '../helpers/app.ts'
import { sendFrom } from '../helpers/from-address.ts'
import { rules, useLimitedServer } from '../helpers/limited.ts'

// GraphiQL fetches the schema before anyone has typed a credential: the administration endpoint
// answers that one question without a token (the schema is public: schema/admin.graphql), and
// nothing else; the chat endpoint needs no key for it anyway.

describe('the administration schema without an admin token', () => {
  const t = useTestApp()

  it("answers GraphiQL's introspection query", async () => {
    const res = await t.adminGraphql(getIntrospectionQuery(), {}, {})
    expect(res.status).toBe(200)
    expect(res.body.errors).toBeUndefined()
    expect(res.body.data.__schema.types.map((type: { name: string }) => type.name)).toContain('Bot')
  })

  it('refuses anything else with 401, an introspection field beside a real one included', async () => {
    for (const query of ['{ bots { edges { node { id } } } }', '{ __typename bots { edges { node { id } } } }', 'mutation { __typename }']) {
      const res = await t.adminGraphql(query, {}, {})
      expect(res.status, query).toBe(401)
    }
  })

  it('refuses a wrong token with 401 even for the schema: only the absence of one is let through', async () => {
    const res = await t.adminGraphql('{ __schema { queryType { name } } }', {}, { authorization: 'Bearer bp_pat_wrong' })
    expect(res.status).toBe(401)
  })
})

describe('asksOnlyForTheSchema', () => {
  it.each([
    ['{ __schema { types { name } } }', true],
    ['query Q { __type(name: "Bot") { name } __typename }', true],
    ['{ bots { edges { node { id } } } }', false],
    ['{ ...F } fragment F on Query { __typename }', false],
    ['subscription { __typename }', false],
    ['not graphql', false],
    [undefined, false],
  ])('%s → %s', (query, expected) => {
    expect(asksOnlyForTheSchema(query)).toBe(expected)
  })
})

describe('the administration schema without a token is counted per client address', () => {
  const server = useLimitedServer(rules({ anonymous: { points: 2, seconds: 60 } }))

  it('answers 429 once an address asked its limit', async () => {
    const ask = () => sendFrom(`${server.baseUrl}/v1/admin/graphql`, { method: 'POST', body: { query: '{ __schema { queryType { name } } }' } })
    expect((await ask()).status).toBe(200)
    expect((await ask()).status).toBe(200)
    expect((await ask()).status).toBe(429)
  })
})
