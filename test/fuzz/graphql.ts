import fc from 'fast-check'
import {
  accept,
  brokenJsonText,
  credentials,
  exoticMethod,
  formUrlEncoded,
  hostileJson,
  hostileString,
  jsonishText,
  malformedEscape,
  multipart,
  payloadInput,
  shortHostileString,
  webhookSegment,
  withBody,
  wrongJsonTypeText,
} from './arbitraries.ts'
import { hostile } from './http.ts'
import type { World } from './world.ts'

type Scope = 'chat' | 'admin'

// ---- operations ----

const aliasBomb = `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: __typename`).join(' ')} }`
const tooDeep = `{ conversation(id: "c1") { ${'messages { edges { node { conversation { '.repeat(4)}id${' } } } }'.repeat(4)} } }`

/** Operations either scope parses: introspection, the limits (depth, aliases, tokens), syntax and validation errors. */
const anyScope = [
  '{ __typename }',
  '{ __schema { types { name fields { name } } } }',
  'query A { __typename } query B { __typename }',
  'query { ...F } fragment F on Query { ...F }',
  aliasBomb,
  `{ ${'__typename '.repeat(2_500)}}`,
  '{ __typename @skip(if: $undefined) }',
  '{ __typename @include }',
  'query ($x: Int = "s") { __typename }',
  'subscription { __typename }',
  'mutation { __typename }',
  '{ me(id: "\\uD800") { id } }',
  '# only a comment',
  '{',
  '',
]

const documents: Record<Scope, string[]> = {
  chat: [
    '{ me { id userId name } }',
    'query Q($id: String!) { conversation(id: $id) { id conversationId messages { edges { node { id rawPayload payload { __typename } } } } } }',
    'query ($id: String!) { message(id: $id) { id rawPayload } }',
    'query ($id: String!) { event(id: $id) { id payload } }',
    'query ($after: String, $first: Int) { conversations(after: $after, first: $first) { edges { cursor node { id } } pageInfo { endCursor } } }',
    'mutation ($input: CreateMessageInput!) { createMessage(input: $input) { message { id rawPayload } } }',
    'mutation ($input: CreateEventInput!) { createEvent(input: $input) { event { id payload } } }',
    'mutation ($input: CreateUserInput!) { createUser(input: $input) { key user { id } } }',
    'mutation ($input: CreateConversationInput!) { createConversation(input: $input) { conversation { id } } }',
    'mutation ($input: AddParticipantInput!) { addParticipant(input: $input) { participant { id } } }',
    'mutation ($input: DeleteMessageInput!) { deleteMessage(input: $input) { messageId } }',
    'query ($id: ID!) { node(id: $id) { __typename id } }',
    'query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }',
    'subscription ($id: String!) { conversationSignals(conversationId: $id) { __typename } }',
    tooDeep,
    '{ bots { edges { node { id } } } }',
    ...anyScope,
  ],
  admin: [
    '{ bots { edges { node { id botId name tags createdAt } } pageInfo { hasNextPage endCursor } } }',
    'query Q($first: Int, $after: String, $sortField: BotSortField, $sortDirection: SortDirection) { bots(first: $first, after: $after, sortField: $sortField, sortDirection: $sortDirection) { edges { cursor node { botId } } } }',
    'query ($id: ID!) { node(id: $id) { __typename id ... on Bot { botId } } }',
    'query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }',
    '{ me { id } }',
    'mutation ($input: CreateMessageInput!) { createMessage(input: $input) { message { id } } }',
    ...anyScope,
  ],
}

const document = (scope: Scope) => fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...documents[scope]) }, { weight: 1, arbitrary: hostileString })

/** Variables for every document above, each value plausible or hostile; those a document does not declare are ignored. */
const variables = (world: World) => {
  const id = fc.oneof(fc.constantFrom(...world.ids.id!, ...world.globalIds.chat, ...world.globalIds.admin), hostileJson)
  const conversationId = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...world.ids.conversationId!) }, { weight: 1, arbitrary: hostileJson })
  const input = fc.record(
    { conversationId, payload: fc.oneof(payloadInput, hostileJson), metadata: hostileJson, id, userId: id, name: hostileJson },
    { requiredKeys: [] },
  )
  return fc.record(
    {
      id,
      ids: fc.oneof(fc.array(id, { maxLength: 4 }), hostileJson),
      input: fc.oneof({ weight: 3, arbitrary: input }, { weight: 1, arbitrary: hostileJson }),
      after: hostileJson,
      first: fc.oneof(fc.integer(), hostileJson),
      sortField: fc.oneof(fc.constantFrom('createdAt', 'updatedAt', 'name'), hostileJson),
      sortDirection: fc.oneof(fc.constantFrom('asc', 'desc', 'ASC'), hostileJson),
    },
    { requiredKeys: [] },
  )
}

const extensions = fc.oneof(fc.record({ persistedQuery: fc.record({ version: hostileJson, sha256Hash: hostileJson }, { requiredKeys: [] }) }), hostileJson)

/** A value `present` times in `present + absent`, else undefined (the parameter is left out). */
const sometimes = <T>(value: fc.Arbitrary<T>, present: number, absent: number) =>
  fc.oneof({ weight: present, arbitrary: value }, { weight: absent, arbitrary: fc.constant(undefined) })

const given = <T>(params: Record<string, T | undefined>) => Object.entries(params).filter((entry): entry is [string, T] => entry[1] !== undefined)

/** The four GraphQL-over-HTTP parameters as JSON values: right types mostly, any value (or a JSON text) sometimes. */
const operationParams = (scope: Scope, world: World) =>
  fc
    .record({
      query: sometimes(fc.oneof({ weight: 6, arbitrary: document(scope) }, { weight: 1, arbitrary: hostileJson }), 9, 1),
      variables: sometimes(
        fc.oneof({ weight: 4, arbitrary: variables(world) }, { weight: 1, arbitrary: hostileJson }, { weight: 1, arbitrary: jsonishText }),
        4,
        1,
      ),
      extensions: sometimes(fc.oneof(extensions, jsonishText), 1, 2),
      operationName: sometimes(fc.oneof(fc.constantFrom('Q', 'A', 'B'), hostileJson), 1, 3),
    })
    .map((params) => Object.fromEntries(given(params)))

/** A JSON-encoded parameter of a query string or form: valid JSON mostly, else broken or of the wrong type. */
const jsonParamText = (value: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 4, arbitrary: value.map((v) => JSON.stringify(v) ?? '') },
    { weight: 1, arbitrary: brokenJsonText },
    { weight: 1, arbitrary: wrongJsonTypeText },
  )

/** The four parameters as a query string or a form sends them: text, variables and extensions as JSON text. */
const textParams = (scope: Scope, world: World) =>
  fc
    .record({
      query: sometimes(document(scope), 9, 1),
      variables: sometimes(jsonParamText(variables(world)), 4, 1),
      extensions: sometimes(jsonParamText(extensions), 1, 2),
      operationName: sometimes(fc.oneof(fc.constantFrom('Q', 'A', 'B'), hostileString), 1, 3),
    })
    .map(given)

/** The parameters as a query string (with `?`, or empty), sometimes with a duplicate or a broken escape. */
const graphqlQueryString = (scope: Scope, world: World) => {
  const junk = fc.oneof(
    malformedEscape.map((e) => `query=${e}`),
    fc.constantFrom('variables=%7B', 'query=a&query=b', '&&'),
  )
  return fc.tuple(textParams(scope, world), fc.option(junk, { nil: undefined })).map(([pairs, junk]) => {
    const parts = [formUrlEncoded(pairs), ...(junk === undefined ? [] : [junk])].filter((p) => p !== '')
    return parts.length === 0 ? '' : `?${parts.join('&')}`
  })
}

/** A POST body in each encoding a GraphQL server may meet, with its Content-Type. */
const graphqlBody = (scope: Scope, world: World) => {
  const params = operationParams(scope, world)
  const sent = (contentType?: string) => (body: string) => ({ contentType, body })
  const multipartFields = fc.tuple(jsonParamText(params), jsonishText, hostileString).map(([operations, map, file]): [string, string][] => [
    ['operations', operations],
    ['map', map],
    ['0', file],
  ])
  return fc.oneof(
    { weight: 6, arbitrary: params.map((p) => sent('application/json')(JSON.stringify(p))) },
    { weight: 1, arbitrary: fc.array(params, { maxLength: 3 }).map((batch) => sent('application/json')(JSON.stringify(batch))) },
    { weight: 1, arbitrary: wrongJsonTypeText.map(sent('application/json')) },
    { weight: 2, arbitrary: brokenJsonText.map(sent('application/json')) },
    { weight: 2, arbitrary: textParams(scope, world).map((pairs) => sent('application/x-www-form-urlencoded')(formUrlEncoded(pairs))) },
    { weight: 1, arbitrary: multipart(multipartFields) },
    { weight: 1, arbitrary: document(scope).map(sent('application/graphql')) },
    { weight: 1, arbitrary: params.map((p) => sent('text/plain')(JSON.stringify(p))) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(params, fc.constantFrom('application/xml', 'application/json-patch', 'application/graphql-response+json', ''))
        .map(([p, contentType]) => sent(contentType)(JSON.stringify(p))),
    },
    { weight: 1, arbitrary: params.map((p) => sent()(JSON.stringify(p))) },
  )
}

// ---- endpoints and requests ----

interface GraphQLEndpoint {
  scope: Scope
  path: string
}

const endpoints: GraphQLEndpoint[] = [
  { scope: 'chat', path: '/graphql' },
  { scope: 'chat', path: '/graphql/stream' },
  { scope: 'admin', path: '/graphql' },
]

/** Paths next to the endpoints, which must be refused as well as any. */
const nearEndpoints: GraphQLEndpoint[] = [
  { scope: 'chat', path: '/graphql/' },
  { scope: 'chat', path: '/graphql/stream/' },
  { scope: 'chat', path: '/graphql/other' },
  { scope: 'admin', path: '/graphql/' },
]

/** An endpoint, reached under a webhook id (chat) or /v1/admin, with credentials and an Accept header. */
const endpoint = (world: World) =>
  fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...endpoints) }, { weight: 1, arbitrary: fc.constantFrom(...nearEndpoints) }).chain(({ scope, path }) =>
    fc
      .record({
        webhook: webhookSegment(world),
        credentials: credentials(world, scope),
        // graphql-sse serves a stream only to a client that accepts one.
        accept: accept(path.startsWith('/graphql/stream') ? ['text/event-stream'] : ['application/json', 'application/graphql-response+json', '*/*']),
      })
      .map(({ webhook, credentials, accept }) => ({
        scope,
        target: `${scope === 'chat' ? `/${webhook}` : '/v1/admin'}${path}`,
        headers: { ...credentials, ...accept },
      })),
  )

export const graphqlGet = (world: World) =>
  endpoint(world).chain(({ scope, target, headers }) =>
    graphqlQueryString(scope, world).map((query) => hostile({ method: 'GET', target: `${target}${query}`, headers })),
  )

export const graphqlPost = (world: World) =>
  endpoint(world).chain(({ scope, target, headers }) =>
    graphqlBody(scope, world).map((body) => hostile({ method: 'POST', target, ...withBody(headers, body) })),
  )

export const graphqlOtherMethods = (world: World) =>
  endpoint(world).chain(({ scope, target, headers }) =>
    fc
      .record({
        method: exoticMethod,
        body: fc.option(graphqlBody(scope, world), { nil: {} }),
        query: fc.option(graphqlQueryString(scope, world), { nil: '' }),
      })
      .map(({ method, body, query }) => hostile({ method, target: `${target}${query}`, ...withBody(headers, body) })),
  )

// ---- global ids ----

const foreignTypes: Record<Scope, string[]> = {
  chat: ['Bot', 'Workspace', 'Integration', 'Query', 'Mutation', 'PageInfo', 'Node', 'BotSortField', 'Unknown'],
  admin: ['User', 'Conversation', 'Message', 'Event', 'Participant', 'Query', 'PageInfo', 'Node', 'Unknown'],
}
const ownTypes: Record<Scope, string[]> = { chat: ['User', 'Conversation', 'Message', 'Event'], admin: ['Bot'] }
const globalId = (typename: string, id: string) => Buffer.from(`${typename}:${id}`).toString('base64')

/**
 * A well-formed global id that names nothing this scope can read: another scope's real object,
 * a type the scope does not have, or one of its own types with an id that does not exist.
 */
const absentGlobalId = (scope: Scope, world: World) => {
  const existing = new Set(Object.values(world.ids).flat())
  // An id part that starts with ":" leaves the part before it empty: Pothos reads such an id as malformed (400).
  const rawId = fc.oneof(
    fc.constantFrom(...existing, 'ghost'),
    shortHostileString.filter((s) => s !== '' && !s.startsWith(':')),
  )
  const other = scope === 'chat' ? world.globalIds.admin : world.globalIds.chat
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...other) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...foreignTypes[scope]), rawId).map(([type, id]) => globalId(type, id)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...ownTypes[scope]),
          rawId.filter((id) => !existing.has(id)),
        )
        .map(([type, id]) => globalId(type, id)),
    },
  )
}

/** Not a global id at all: random base64, text that is not base64, or base64 of text without a type. */
const garbageGlobalId = fc.oneof(
  fc.base64String({ maxLength: 40 }),
  shortHostileString,
  shortHostileString.map((s) => Buffer.from(s).toString('base64')),
  fc.constantFrom('', ':', 'Og==', 'OmlkCg==', globalId('1Bad', 'x')),
)

interface LookupForm {
  plural: boolean
  inline: boolean
  get: boolean
}

/** node(id:) or nodes(ids:), by variables or inline, over POST or GET, with valid credentials. */
function nodeLookup(world: World, scope: Scope, ids: string[], { plural, inline, get }: LookupForm) {
  const literal = plural ? `[${ids.map((id) => JSON.stringify(id)).join(', ')}]` : JSON.stringify(ids[0])
  const field = plural ? 'nodes(ids: $ids)' : 'node(id: $id)'
  const query = inline
    ? `{ ${field.replace(/\$\w+/, literal)} { __typename id } }`
    : `query (${plural ? '$ids: [ID!]!' : '$id: ID!'}) { ${field} { __typename id } }`
  const variables = inline ? {} : plural ? { ids } : { id: ids[0] }
  const target = scope === 'chat' ? `/${world.webhookId}/graphql` : '/v1/admin/graphql'
  const headers: Record<string, string> =
    scope === 'chat' ? { 'x-user-key': world.userKey } : { authorization: `Bearer ${world.adminToken}`, 'x-workspace-id': world.workspaceId }
  if (get) return { method: 'GET', target: `${target}?${new URLSearchParams({ query, variables: JSON.stringify(variables) })}`, headers }
  return { method: 'POST', target, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) }
}

/** Lookups of ids a scope cannot read (each must read as null) and of garbage ids (any described answer). */
export const globalIdLookup = (world: World) =>
  fc
    .record({
      scope: fc.constantFrom<Scope>('chat', 'admin'),
      form: fc.record({ plural: fc.boolean(), inline: fc.boolean(), get: fc.boolean() }),
      garbage: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
    })
    .chain(({ scope, form, garbage }) =>
      fc
        .array(garbage ? garbageGlobalId : absentGlobalId(scope, world), { minLength: 1, maxLength: form.plural ? 4 : 1 })
        .map((ids) => hostile({ ...nodeLookup(world, scope, ids, form), ...(garbage ? {} : { absentNodes: true as const }) })),
    )
