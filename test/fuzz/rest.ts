import fc from 'fast-check'
import { type DocumentNode, Kind } from 'graphql'
import { adminRoutes } from '../../src/rest/admin/routes.ts'
import { chatRoutes } from '../../src/rest/chat/routes.ts'
import { botApiRoutes } from '../../src/rest/bot-api/routes.ts'
import {
  accept,
  bodyChoice,
  credentials,
  exoticMethod,
  hostileJson,
  hostileKey,
  hostileString,
  messagePayload,
  queryString,
  segment,
  strayHeaders,
  webhookSegment,
  withBody,
} from './arbitraries.ts'
import { hostile } from './http.ts'
import type { World } from './world.ts'

/** Where a path is mounted: under a webhook id, under /v1/admin, under /v1/chat (the bot runtime API), or at the root. */
export type Mount = 'chat' | 'admin' | 'runtime' | 'root'

export interface Endpoint {
  mount: Mount
  method: string
  path: string
  /** The body properties the operation takes: its GraphQL variables that the path does not fill. */
  fields: string[]
}

const variableNames = (document: DocumentNode) =>
  document.definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION ? (d.variableDefinitions ?? []) : [])).map((v) => v.variable.name.value)

const fromRoute =
  (mount: Mount) =>
  (route: { method: string; path: string; document: DocumentNode }): Endpoint => ({
    mount,
    method: route.method,
    path: route.path,
    fields: variableNames(route.document).filter((name) => !route.path.includes(`{${name}}`)),
  })

/**
 * A runtime operation takes one `input` made of its path, query and body: its body is fuzzed with
 * the fields @botpress/client sends.
 */
const runtimeFields = ['conversationId', 'userId', 'payload', 'type', 'tags', 'name', 'pictureUrl', 'id', 'expiry', 'schedule']
const fromRuntimeRoute = (route: { method: string; path: string }): Endpoint => ({
  mount: 'runtime',
  method: route.method,
  path: route.path,
  fields: runtimeFields.filter((name) => !route.path.includes(`{${name}}`)),
})

/** Every operation of the REST route tables, and the paths served beside them. */
export const routeEndpoints: Endpoint[] = [...chatRoutes.map(fromRoute('chat')), ...adminRoutes.map(fromRoute('admin')), ...botApiRoutes.map(fromRuntimeRoute)]

const restEndpoints: Endpoint[] = [
  ...routeEndpoints,
  ...(
    [
      ['chat', 'GET', '/hello/'],
      ['chat', 'GET', '/'], // the web chat page
      ['chat', 'GET', '/webchat.js'],
      ['root', 'GET', '/healthz'],
      // paths no route serves
      ['chat', 'GET', '/nope'],
      ['chat', 'POST', '/conversations/{id}/messages/{id}'],
      ['chat', 'GET', '//'],
      ['admin', 'GET', '/bots/{id}'],
      ['admin', 'GET', ''],
      ['root', 'GET', '/'],
      ['root', 'GET', '/readyz'],
      // paths a URL parser reads as the start of an authority, or as an escaped slash
      ['root', 'GET', '//'],
      ['root', 'OPTIONS', '//'],
      ['root', 'PROPFIND', '//'],
      ['root', 'GET', '///x'],
      ['root', 'GET', '//v1/admin/bots'],
      ['root', 'GET', '/%2F'],
      ['root', 'POST', '//{id}/graphql'],
      ['chat', 'GET', '/%2F..%2Fv1%2Fadmin%2Fbots'],
      ['root', 'POST', '/v1/chat/messages'],
      ['runtime', 'GET', '/nope'],
      // the Webchat API's file URLs (raw bytes, not JSON)
      ['chat', 'PUT', '/files/{id}/upload'],
      ['chat', 'GET', '/files/{id}/{id}/{name}'],
    ] as const
  ).map(([mount, method, path]) => ({ mount, method, path, fields: [] })),
]

export const mountPrefix = (mount: Mount, webhook: string) => ({ chat: `/${webhook}`, admin: '/v1/admin', runtime: '/v1/chat', root: '' })[mount]

const bodyField = (world: World, name: string): fc.Arbitrary<unknown> => {
  if (name === 'payload') return messagePayload
  const valid = world.ids[name]
  if (!valid) return fc.oneof(hostileString, hostileJson)
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...valid) }, { weight: 1, arbitrary: hostileJson })
}

/** The body an endpoint takes, property by property, now and then with a property it does not take. */
const bodyObject = (world: World, endpoint: Endpoint) =>
  fc
    .tuple(
      fc.record(Object.fromEntries(endpoint.fields.map((name) => [name, bodyField(world, name)])), { requiredKeys: [] }),
      fc.option(fc.dictionary(hostileKey, hostileJson, { minKeys: 1, maxKeys: 2 }), { nil: undefined, freq: 6 }),
    )
    .map(([known, stray]) => ({ ...stray, ...known }))

export const isBodyless = (method: string) => ['GET', 'HEAD'].includes(method.toUpperCase())

/** A request to a REST endpoint: its method mostly, any other sometimes, with hostile parts everywhere. */
export const restRequest = (world: World) =>
  fc.constantFrom(...restEndpoints).chain((endpoint) =>
    fc
      .record({
        method: fc.oneof(
          { weight: 6, arbitrary: fc.constant(endpoint.method) },
          { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE') },
          { weight: 1, arbitrary: exoticMethod },
        ),
        webhook: webhookSegment(world),
        params: fc.record({
          id: segment(world.ids.id!),
          conversationId: segment(world.ids.conversationId!),
          userId: segment(world.ids.userId!),
          type: segment(world.ids.type!),
          name: segment(world.ids.name!),
        }),
        query: fc.option(queryString(['nextToken', 'pageSize', 'sortField', 'sortDirection']), { nil: '', freq: 3 }),
        headers: fc.record({ stray: strayHeaders, credentials: credentials(world, endpoint.mount), accept: accept(['application/json']) }),
        body: bodyChoice(bodyObject(world, endpoint)),
        bodyOnGet: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      })
      .map(({ method, webhook, params, query, headers, body, bodyOnGet }) => {
        const path = endpoint.path.replace(/\{(\w+)\}/g, (_m, name: keyof typeof params) => params[name])
        return hostile({
          method,
          target: `${mountPrefix(endpoint.mount, webhook)}${path}${query}`,
          ...withBody({ ...headers.stray, ...headers.credentials, ...headers.accept }, isBodyless(method) && !bodyOnGet ? {} : body),
        })
      }),
  )
