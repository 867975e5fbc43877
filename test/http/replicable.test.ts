import { availableParallelism } from 'node:os'
import { type DocumentNode, type GraphQLSchema, parse } from 'graphql'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.ts'
import { onlyQueries, type ReplicaReads, replicaReads, servedOnReplica } from '../../src/graphql/replica-reads.ts'
import { adminSchema, chatSchema } from '../../src/graphql/schema.ts'
import { restTransport } from '../../src/http/rest.ts'
import { adminRoutes } from '../../src/rest/admin/routes.ts'
import { chatRoutes } from '../../src/rest/chat/routes.ts'
import type { AnyRoute } from '../../src/rest/route.ts'
import { botApiRoutes } from '../../src/rest/bot-api/routes.ts'
import { useTestApp, WEBHOOK_ID } from '../helpers/app.ts'

// Which requests the main thread may hand to a read replica (server/read-replicas.test.ts serves
// them): the reads the table names (graphql/replica-reads.ts), and nothing that writes, holds a
// stream, or is a bot's runtime call.

/** A route's path with its `{param}` segments filled in. */
const concrete = (path: string) => path.replace(/\{\w+\}/g, 'x1')

describe('which requests a replica may serve (App.replicable)', () => {
  const t = useTestApp({ handlers: {} })
  const replicable = (method: string, path: string) => t.app.replicable(method, path)

  const chatReads: readonly string[] = replicaReads.chat.operations
  const adminReads: readonly string[] = replicaReads.admin.operations

  it.each(chatRoutes.map((route) => [route.method, route.path, route.operation] as const))('chat %s %s (%s)', (method, path, operation) => {
    expect(replicable(method, `/${WEBHOOK_ID}${concrete(path)}`)).toBe(chatReads.includes(operation))
  })

  it.each(adminRoutes.map((route) => [route.method, route.path, route.operation] as const))('admin %s %s (%s)', (method, path, operation) => {
    expect(replicable(method, `/v1/admin${concrete(path)}`)).toBe(adminReads.includes(operation))
  })

  it('the table names every REST read of the chat and administration APIs, and no write or stream', () => {
    const reads = (routes: AnyRoute[]) => routes.filter((route) => route.method === 'GET' && route.kind === 'call').map((route) => route.operation)
    expect([...chatReads].sort()).toEqual(reads(chatRoutes).sort())
    expect([...adminReads].sort()).toEqual(reads(adminRoutes).sort())
  })

  it.each(botApiRoutes.map((route) => [route.method, route.path] as const))('never a bot runtime call: %s %s', (method, path) => {
    // A bot's calls count against its delivery's timeout on the main thread.
    expect(replicable(method, `/v1/chat${concrete(path)}`)).toBe(false)
  })

  it('a REST transport refuses to start with a table naming an operation that is no read', () => {
    const transport = (operations: string[]) => () =>
      restTransport({
        schema: chatSchema,
        yoga: t.app as never,
        routes: chatRoutes,
        bodyLimit: 1024,
        streams: t.app.streams,
        renderings: t.app.renderings,
        log: pino({ level: 'silent' }),
        reads: { operations, rootFields: [] },
      })
    expect(transport(['getConversation'])).not.toThrow()
    for (const name of ['createMessage', 'listenConversation', 'noSuchOperation']) {
      expect(transport([name])).toThrow(`a read replica may serve ${name}, which is no REST read`)
    }
  })

  it('a GraphQL POST when its body holds queries only; never its GET, nor graphql-sse', () => {
    expect(replicable('POST', `/${WEBHOOK_ID}/graphql`)).toBe('if-query')
    expect(replicable('POST', '/v1/admin/graphql')).toBe('if-query')
    expect(replicable('GET', `/${WEBHOOK_ID}/graphql`)).toBe(false)
    for (const method of ['GET', 'POST', 'PUT', 'DELETE']) expect(replicable(method, `/${WEBHOOK_ID}/graphql/stream`)).toBe(false)
  })

  it.each([
    ['GET', '/healthz'],
    ['GET', '/readyz'],
    ['GET', `/${WEBHOOK_ID}/`],
    ['GET', `/${WEBHOOK_ID}/webchat.js`],
    ['GET', '/v1/agent/console'],
    ['GET', '/v1/agent/console.js'],
    ['GET', `/${WEBHOOK_ID}/files/f1/sig/name.png`],
    ['PUT', `/${WEBHOOK_ID}/files/f1/upload`],
    ['GET', `/${WEBHOOK_ID}/no-such-route`],
    ['HEAD', `/${WEBHOOK_ID}/users/me`],
  ])('never %s %s', (method, path) => {
    expect(replicable(method, path)).toBe(false)
  })
})

describe('a GraphQL operation a replica runs (servedOnReplica)', () => {
  const served = (query: string, operationName?: string) => servedOnReplica(replicaReads.chat, { document: parse(query), operationName })

  it.each([
    ['a query of root fields the table names', '{ me { userId } conversations { edges { cursor } } }'],
    ['a query of __typename only', '{ __typename }'],
    ['the named query of a document', 'mutation A { deleteUser { userId } } query B { me { userId } }', 'B'],
    ['a query through fragments', 'query { ...Q ... on Query { me { userId } } } fragment Q on Query { conversations { edges { cursor } } }'],
  ])('%s', (_name, query, operationName?: string) => {
    expect(served(query, operationName)).toBe(true)
  })

  it.each<[string, AnyRoute[], GraphQLSchema, ReplicaReads]>([
    ['chat', chatRoutes, chatSchema, replicaReads.chat],
    ['admin', adminRoutes, adminSchema, replicaReads.admin],
  ])("the %s table: its root fields are the schema's queries, and each REST read it names selects only them", (_api, routes, schema, reads) => {
    expect([...reads.rootFields].sort()).toEqual(Object.keys(schema.getQueryType()!.getFields()).sort())
    const named = routes.filter((route) => reads.operations.includes(route.operation))
    expect(named.filter((route) => !servedOnReplica(reads, { document: route.document as DocumentNode })).map((route) => route.operation)).toEqual([])
  })

  it.each([
    ['a mutation', 'mutation { deleteUser { userId } }'],
    ['a subscription', 'subscription { conversationSignals(conversationId: "c") { __typename } }'],
    ['a root field the table does not name', '{ me { userId } notARead }'],
    ['one hidden in a fragment', 'query { ...Q } fragment Q on Query { notARead }'],
  ])('never %s', (_name, query) => {
    expect(served(query)).toBe(false)
  })
})

describe('a GraphQL body of queries only (onlyQueries)', () => {
  const body = (value: unknown) => new TextEncoder().encode(JSON.stringify(value))

  /** One test a case, "holds for …" or "fails for …" as `verdict` says. */
  const each = (verdict: boolean, cases: [name: string, query: string][]) =>
    it.each(cases)(`${verdict ? 'holds' : 'fails'} for %s`, (_name, query) => {
      expect(onlyQueries(body({ query }))).toBe(verdict)
    })

  each(true, [
    ['an anonymous query', '{ me { userId } }'],
    ['a named query', 'query Q($c: String!) { conversation(id: $c) { id } }'],
    ['a query with a fragment', 'query { me { ...F } } fragment F on User { userId }'],
  ])

  each(false, [
    ['a mutation', 'mutation { createUser(input: {}) { user { userId } } }'],
    ['a subscription', 'subscription { conversationSignals(id: "c") { __typename } }'],
    ['a query beside a mutation', 'query A { me { userId } } mutation B { createUser(input: {}) { user { userId } } }'],
  ])

  it('fails when a \\u escape could spell a keyword', () => {
    expect(onlyQueries(new TextEncoder().encode('{"query":"\\u006dutation { createUser(input: {}) { user { userId } } }"}'))).toBe(false)
  })
})

describe('READ_REPLICAS (loadConfig)', () => {
  it('is one per core up to 4 by default, none on one core', () => {
    const cores = availableParallelism()
    expect(loadConfig({}).readReplicas).toBe(cores > 1 ? Math.min(cores, 4) : 0)
  })

  it('takes a count from 0 to 64', () => {
    expect(loadConfig({ READ_REPLICAS: '0' }).readReplicas).toBe(0)
    expect(loadConfig({ READ_REPLICAS: '3' }).readReplicas).toBe(3)
    expect(loadConfig({ READ_REPLICAS: '' }).readReplicas).toBe(loadConfig({}).readReplicas)
  })

  it.each(['-1', '1.5', 'two', '65'])('refuses %s', (raw) => {
    expect(() => loadConfig({ READ_REPLICAS: raw })).toThrow(/READ_REPLICAS must be an integer from 0 to 64/)
  })
})
