import { availableParallelism } from 'node:os'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.ts'
import { onlyQueries } from '../../src/http/read-replicas.ts'
import { adminRoutes } from '../../src/rest/admin/routes.ts'
import { chatRoutes } from '../../src/rest/chat/routes.ts'
import { botApiRoutes } from '../../src/rest/bot-api/routes.ts'
import { useTestApp, WEBHOOK_ID } from '../helpers/app.ts'

// Which requests the main thread may hand to a read replica (server/read-replicas.test.ts serves
// them): the reads, and nothing that writes, holds a stream, or is a bot's runtime call.

/** A route's path with its `{param}` segments filled in. */
const concrete = (path: string) => path.replace(/\{\w+\}/g, 'x1')

describe('which requests a replica may serve (App.replicable)', () => {
  const t = useTestApp({ handlers: {} })
  const replicable = (method: string, path: string) => t.app.replicable(method, path)

  it.each(chatRoutes.map((route) => [route.method, route.path, route.kind] as const))('chat %s %s (%s)', (method, path, kind) => {
    // The operation's GET with a query behind it is a read; a stream's GET holds the stream.
    expect(replicable(method, `/${WEBHOOK_ID}${concrete(path)}`)).toBe(method === 'GET' && kind === 'call')
  })

  it.each(adminRoutes.map((route) => [route.method, route.path] as const))('admin %s %s', (method, path) => {
    expect(replicable(method, `/v1/admin${concrete(path)}`)).toBe(method === 'GET')
  })

  it.each(botApiRoutes.map((route) => [route.method, route.path] as const))('never a bot runtime call: %s %s', (method, path) => {
    // A bot's calls count against its delivery's timeout on the main thread.
    expect(replicable(method, `/v1/chat${concrete(path)}`)).toBe(false)
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
    ['GET', `/${WEBHOOK_ID}/files/f1/sig/name.png`],
    ['PUT', `/${WEBHOOK_ID}/files/f1/upload`],
    ['GET', `/${WEBHOOK_ID}/no-such-route`],
    ['HEAD', `/${WEBHOOK_ID}/users/me`],
  ])('never %s %s', (method, path) => {
    expect(replicable(method, path)).toBe(false)
  })
})

describe('a GraphQL body of queries only (onlyQueries)', () => {
  const body = (value: unknown) => new TextEncoder().encode(JSON.stringify(value))

  it.each([
    ['an anonymous query', '{ me { userId } }'],
    ['a named query', 'query Q($c: String!) { conversation(id: $c) { id } }'],
    ['a query with a fragment', 'query { me { ...F } } fragment F on User { userId }'],
  ])('holds for %s', (_name, query) => {
    expect(onlyQueries(body({ query }))).toBe(true)
  })

  it.each([
    ['a mutation', 'mutation { createUser(input: {}) { user { userId } } }'],
    ['a subscription', 'subscription { conversationSignals(id: "c") { __typename } }'],
    ['a query beside a mutation', 'query A { me { userId } } mutation B { createUser(input: {}) { user { userId } } }'],
  ])('fails for %s', (_name, query) => {
    expect(onlyQueries(body({ query }))).toBe(false)
  })

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
