import { z } from 'zod'
import { errorStatus, type ErrorType } from '../domain/errors.ts'
import { MB } from '../http/body.ts'
import { pathParams, requestSchema } from '../rest/request-schema.ts'
import type { AnyRoute } from '../rest/route.ts'
import { type RestApi, restApis } from './apis.ts'

/*
 * The OpenAPI 3.1 document of Confab's REST APIs, made from the route tables (rest/**) and the schemas
 * that check their requests (rest/request-schema.ts) and declare their responses: nothing in it is
 * written twice. The test suite checks every REST response it receives against it.
 */

type JsonSchema = Record<string, unknown>
type Components = Record<string, JsonSchema>

/** The error types a REST API answers with (GraphQL's content negotiation alone answers 406). */
const restErrors = Object.entries(errorStatus).filter(([type]) => type !== 'NotAcceptable') as [ErrorType, number][]

const errorWords: Record<ErrorType, string> = {
  InvalidPayload:
    'The request is not valid: the message names each field at fault (`payload.text`), what was expected and, for a value from a set, the values allowed.',
  Unauthorized: 'The credentials are missing or do not verify.',
  Forbidden: 'The credentials do not allow this.',
  ResourceNotFound: 'No such resource (or route).',
  MethodNotFound: 'The path does not take this method; `Allow` lists those it takes.',
  NotAcceptable: '',
  AlreadyExists: 'A resource with this id exists.',
  PayloadTooLarge: "The body is over the API's limit.",
  LimitExceeded: 'The answer would be over RESPONSE_MAX_BYTES: ask for fewer items.',
  UnsupportedMediaType: 'The body is not JSON sent as `Content-Type: application/json`.',
  RateLimited: 'Over a rate limit or cap; `Retry-After` says when to try again.',
  Internal: 'An unexpected failure, logged under the same id (no stack trace is ever returned).',
  Unavailable:
    'The request cannot be served now: the instance is stopping, or the database cannot be reached (restarting, failing over); `Retry-After` says when to try again. A write so answered may have been applied: retry it with the ids you chose.',
  InsufficientStorage: 'The database has no space left (SQLite: the disk is full); `Retry-After` says when to try again.',
}

const errorBody: JsonSchema = {
  type: 'object',
  description: 'The error body of every 4xx/5xx answer (the types of `@botpress/chat`).',
  properties: {
    id: { type: 'string', pattern: '^err_', description: 'err_ and the request id (the x-request-id header); the server log names it too' },
    code: { type: 'integer', description: 'The HTTP status' },
    type: { type: 'string', enum: restErrors.map(([type]) => type) },
    message: { type: 'string', description: 'What was wrong, in words' },
  },
  required: ['id', 'code', 'type', 'message'],
  additionalProperties: false,
}

const errorHeaders: Partial<Record<ErrorType, Record<string, unknown>>> = {
  MethodNotFound: { Allow: { schema: { type: 'string' }, description: 'The methods the path takes' } },
  RateLimited: { 'Retry-After': { schema: { type: 'string' }, description: 'Seconds until the limit lets this request through' } },
  Unavailable: { 'Retry-After': { schema: { type: 'string' }, description: 'Seconds after which to try again' } },
  InsufficientStorage: { 'Retry-After': { schema: { type: 'string' }, description: 'Seconds after which to try again' } },
}

const errorResponses = Object.fromEntries(
  restErrors.map(([type, status]) => [
    type,
    {
      description: errorWords[type],
      ...(errorHeaders[type] && { headers: errorHeaders[type] }),
      content: {
        'application/json': {
          schema: { allOf: [{ $ref: '#/components/schemas/Error' }, { properties: { type: { const: type }, code: { const: status } } }] },
        },
      },
    },
  ]),
)

/** Each error status with its type's response, or, where two types share a status (413), either one. */
const errorResponsesByStatus = Object.fromEntries(
  [...new Set(restErrors.map(([, status]) => status))].map((status) => {
    const types = restErrors.filter(([, code]) => code === status).map(([type]) => type)
    if (types.length === 1) return [status, { $ref: `#/components/responses/${types[0]}` }]
    return [
      status,
      {
        description: types.map((type) => `${type}: ${errorWords[type]}`).join(' '),
        content: { 'application/json': { schema: { oneOf: types.map((type) => errorResponses[type]?.content['application/json'].schema) } } },
      },
    ]
  }),
)

/**
 * A request whose headers or body did not arrive within the server's timeouts: 408 with type
 * InvalidPayload (the one status whose type is not its own), the connection closed (docs/reference/limits.md).
 */
const requestTimeout = {
  description: 'InvalidPayload: the request did not arrive in time (HTTP_HEADERS_TIMEOUT_SECONDS, HTTP_REQUEST_TIMEOUT_SECONDS); the connection is closed',
  content: {
    'application/json': {
      schema: { allOf: [{ $ref: '#/components/schemas/Error' }, { properties: { type: { const: 'InvalidPayload' }, code: { const: 408 } } }] },
    },
  },
}

/** A zod schema as JSON Schema, its named parts (`.meta({ id })`) moved into the components. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output', components: Components): JsonSchema {
  const {
    $schema: _,
    $defs,
    ...body
  } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema & {
    $defs?: Components
  }
  const text = JSON.stringify(body).replaceAll('"#/$defs/', '"#/components/schemas/')
  for (const [name, part] of Object.entries($defs ?? {})) {
    const named = JSON.stringify(part).replaceAll('"#/$defs/', '"#/components/schemas/')
    // Two schemas under one name would leave one API documented by the other's.
    if (components[name] !== undefined && JSON.stringify(components[name]) !== named) throw new Error(`two OpenAPI schemas are named ${name}`)
    components[name] = JSON.parse(named)
  }
  return JSON.parse(text)
}

/**
 * What a request of the route carries, as the document states it: the checked request schema, or for
 * an operation that checks its whole input itself (route.input), that input less its path parameters,
 * as the query of a GET or DELETE and the body of the others.
 */
function requestOf(api: RestApi, route: AnyRoute): { parameters: Record<string, z.ZodType>; body: z.ZodObject | undefined } {
  const request = requestSchema(api.schema, route)
  if (!route.input) return request
  const inPath = new Set(pathParams(route.path))
  const rest = Object.fromEntries(Object.entries(route.input.shape).filter(([name]) => !inPath.has(name))) as Record<string, z.ZodType>
  if (request.body === undefined) return { parameters: rest, body: undefined }
  const omitted = Object.fromEntries([...inPath].filter((name) => name in route.input!.shape).map((name) => [name, true] as const))
  return { parameters: {}, body: route.input.omit(omitted as never) }
}

function operationOf(api: RestApi, route: AnyRoute, components: Components) {
  const request = requestOf(api, route)
  const parameters = [
    ...pathParams(`${api.prefix}${route.path}`).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...Object.entries(request.parameters).map(([name, schema]) => ({
      name,
      in: 'query',
      required: !schema.safeParse(undefined).success,
      // As the caller sends it (an input's defaults and transforms are the server's business).
      schema: jsonSchema(schema, 'input', components),
    })),
  ]
  const limit = `At most ${api.bodyLimit / MB} MB (else 413 PayloadTooLarge).`
  const ok =
    route.kind === 'call'
      ? { description: 'Done', content: { 'application/json': { schema: jsonSchema(route.returns, 'output', components) } } }
      : {
          description: `Server-Sent Events: each message's \`data:\` is one JSON signal (${'`x-signal`'} gives its schema); comment lines keep an idle stream open.`,
          content: { 'text/event-stream': { schema: { type: 'string' }, 'x-signal': jsonSchema(route.emits, 'output', components) } },
        }
  return {
    operationId: api.operationIdOf(route),
    summary: route.summary,
    tags: [api.tagOf(route)],
    security: api.security(route),
    ...(parameters.length > 0 && { parameters }),
    ...(request.body && {
      requestBody: {
        required: true,
        description: limit,
        content: { 'application/json': { schema: jsonSchema(request.body, 'input', components) } },
      },
    }),
    responses: { 200: ok, ...errorResponsesByStatus, 408: requestTimeout },
  }
}

const securitySchemes = {
  userKey: { type: 'apiKey', in: 'header', name: 'x-user-key', description: "A user key (a JWT signed with the chat integration's encryption key)" },
  adminToken: { type: 'http', scheme: 'bearer', description: 'An administration access token' },
  workspaceId: { type: 'apiKey', in: 'header', name: 'x-workspace-id', description: 'The workspace the admin token is for' },
  botApiKey: { type: 'http', scheme: 'bearer', description: 'A bot API key (createBotApiKey)' },
  botId: { type: 'apiKey', in: 'header', name: 'x-bot-id', description: 'The bot the key is for' },
  agentKey: { type: 'http', scheme: 'bearer', description: 'An agent key (createAgent)' },
}

const tags = [
  { name: 'chat', description: restApis.chat.description },
  { name: 'webchat', description: 'The operations `@botpress/webchat` adds to the Chat API.' },
  { name: 'admin', description: restApis.admin.description },
  { name: 'bot', description: restApis.botApi.description },
  { name: 'agent', description: restApis.agent.description },
]

const description = `Confab's REST APIs. Every body is JSON; every refusal is the error body (\`Error\`) with the
status of its type. Body limits: chat and bot API ${restApis.chat.bodyLimit / MB} MB, administration ${restApis.admin.bodyLimit / MB} MB.
Rate limits and caps answer 429 RateLimited with Retry-After (docs/reference/limits.md).
The same operations are served over GraphQL at /{webhookId}/graphql and /v1/admin/graphql.`

/** The document, without `servers` (the server adds its public URL, see http/openapi.ts). */
export function openApiDocument(version: string) {
  const components: Components = { Error: errorBody }
  const paths: Record<string, Record<string, unknown>> = {}
  for (const api of Object.values(restApis) as RestApi[]) {
    for (const route of api.routes) {
      const path = `${api.prefix}${route.path}`
      paths[path] ??= {}
      paths[path][route.method.toLowerCase()] = operationOf(api, route, components)
    }
  }
  return {
    openapi: '3.1.1',
    info: { title: 'Confab REST APIs', version, description, license: { name: 'MIT', identifier: 'MIT' } },
    tags,
    paths,
    components: { schemas: components, responses: errorResponses, securitySchemes },
  }
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>
