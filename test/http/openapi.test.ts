import { validate } from '@readme/openapi-parser'
import { describe, expect, it } from 'vitest'
import { restApis } from '../../src/openapi/apis.ts'
import { BASE, useTestApp } from '../helpers/app.ts'
import { document, nonConformity } from '../helpers/openapi.ts'

// GET /openapi.json: the OpenAPI 3.1 document of the REST APIs, made from the route tables; GET /docs/api: it as a page.

const operations = () =>
  Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods as Record<string, { operationId: string; responses: Record<string, unknown> }>).map(([method, op]) => ({ path, method, ...op })),
  )

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document for a real parser (@readme/openapi-parser)', async () => {
    const result = await validate(structuredClone(document) as never)
    expect(result).toMatchObject({ valid: true, warnings: [] })
    expect(document.openapi).toMatch(/^3\.1\./)
  })

  it('is checked for real: the parser refuses a response without its description, and a parameter without its place', async () => {
    const broken = { ...structuredClone(document), paths: { '/x': { get: { responses: { 200: {} }, parameters: [{ name: 'p' }] } } } }
    await expect(validate(broken as never)).resolves.toMatchObject({ valid: false })
  })

  it('has one operation for every route of the chat, web chat, administration and bot APIs, with unique operation ids', () => {
    const expected = Object.values(restApis).flatMap((api) =>
      (api.routes as { method: string; path: string }[]).map((route) => `${route.method.toLowerCase()} ${api.prefix}${route.path}`),
    )
    expect(
      operations()
        .map(({ method, path }) => `${method} ${path}`)
        .sort(),
    ).toEqual(expected.sort())
    const ids = operations().map((op) => op.operationId)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toEqual(expect.arrayContaining(['createMessage', 'initialize', 'createBot', 'botApiCreateMessage', 'botApiGetState']))
  })

  it('documents every refusal of every operation with the error body, its type bound to its status', () => {
    for (const op of operations()) {
      expect(Object.keys(op.responses).sort(), op.operationId).toEqual([
        '200',
        '400',
        '401',
        '403',
        '404',
        '405',
        '408',
        '409',
        '413',
        '415',
        '429',
        '500',
        '503',
        '507',
      ])
    }
    expect(document.components.schemas.Error).toMatchObject({ required: ['id', 'code', 'type', 'message'], additionalProperties: false })
    expect(document.components.responses.RateLimited?.headers).toHaveProperty('Retry-After')
    expect(document.components.responses.Unavailable?.headers).toHaveProperty('Retry-After')
    expect(document.components.responses.InsufficientStorage?.headers).toHaveProperty('Retry-After')
    // A request that did not arrive in time (issue 49 row 16): InvalidPayload with status 408.
    expect(JSON.stringify(operations()[0]?.responses['408'])).toContain('{"type":{"const":"InvalidPayload"},"code":{"const":408}}')
  })

  it('publishes the message payload kinds the server checks, and the body limits', () => {
    const payload = document.components.schemas.MessagePayload as { oneOf: { properties: { type: { const: string } } }[] }
    expect(payload.oneOf.map((kind) => kind.properties.type.const).sort()).toEqual([
      'audio',
      'bloc',
      'card',
      'carousel',
      'choice',
      'dropdown',
      'file',
      'image',
      'location',
      'markdown',
      'text',
      'video',
    ])
    const create = document.paths['/{webhookId}/messages']?.post as { requestBody: { description: string } }
    expect(create.requestBody.description).toBe('At most 1 MB (else 413 PayloadTooLarge).')
    const createBot = document.paths['/v1/admin/bots']?.post as { requestBody: { description: string } }
    expect(createBot.requestBody.description).toBe('At most 50 MB (else 413 PayloadTooLarge).')
  })

  it('publishes the bounds the domain checks: page sizes and the ids a client chooses', () => {
    const listBots = document.paths['/v1/admin/bots']?.get as { parameters: { name: string; schema: unknown }[] }
    expect(listBots.parameters.find((p) => p.name === 'pageSize')?.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 })
    const createUser = document.paths['/{webhookId}/users']?.post as { requestBody: { content: Record<string, { schema: any }> } }
    const id = createUser.requestBody.content['application/json']?.schema.properties.id
    expect(JSON.stringify(id)).toContain('"pattern":"^[A-Za-z0-9._:-]{1,64}$"')
  })

  it("publishes the bot API's inputs (the schemas its operations read them with) and its resources' fields", () => {
    const create = document.paths['/v1/chat/messages']?.post as { requestBody: { content: Record<string, { schema: any }> } }
    expect(create.requestBody.content['application/json']?.schema).toMatchObject({
      required: ['payload', 'userId', 'conversationId', 'type'],
      additionalProperties: false,
    })
    const list = document.paths['/v1/chat/messages']?.get as { parameters: { name: string; required: boolean }[] }
    expect(list.parameters.map(({ name, required }) => [name, required])).toEqual([
      ['conversationId', true],
      ['nextToken', false],
    ])
    for (const name of ['BotApiConversation', 'BotApiUser', 'BotApiMessage', 'BotApiEvent', 'BotApiState']) {
      expect(document.components.schemas[name], name).toMatchObject({ type: 'object', required: expect.arrayContaining(['id']) })
    }
  })
})

describe('GET /openapi.json and GET /docs/api', () => {
  const t = useTestApp()

  it('serves the document, its server the public URL the request reached', async () => {
    const res = await t.app.fetch(new Request(`${BASE}/openapi.json`))
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(await res.json()).toEqual({ ...document, info: { ...document.info, version: expect.any(String) }, servers: [{ url: BASE }] })
  })

  it('serves a page of every operation that needs nothing from elsewhere (no script, no outside address)', async () => {
    const res = await t.app.fetch(new Request(`${BASE}/docs/api`))
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const page = await res.text()
    for (const op of operations()) expect(page).toContain(`id="${op.operationId}"`)
    expect(page).not.toMatch(/<script|<link|src=|@import|url\(/i)
    expect([...page.matchAll(/href="([^"]+)"/g)].map((m) => m[1]).filter((href) => !href?.startsWith('#'))).toEqual(['../openapi.json'])
  })

  it('answers another method with 405 MethodNotFound in the error body', async () => {
    const res = await t.app.fetch(new Request(`${BASE}/openapi.json`, { method: 'POST' }))
    expect({ status: res.status, allow: res.headers.get('allow'), type: (await res.json()).type }).toEqual({
      status: 405,
      allow: 'GET',
      type: 'MethodNotFound',
    })
  })
})

describe('the conformance check every REST response of the suite goes through', () => {
  const request = (method: string, path: string) => new Request(`${BASE}${path}`, { method })
  const reply = (status: number, body: unknown) => Response.json(body, { status })
  const error = (code: number, type: string) => ({ id: 'err_1', code, type, message: 'm' })
  const conversation = { id: 'c1', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' }

  it('passes a body the document describes', async () => {
    expect(await nonConformity(request('GET', '/w/conversations/c1'), reply(200, { conversation }))).toBeUndefined()
    expect(await nonConformity(request('GET', '/w/conversations/c1'), reply(404, error(404, 'ResourceNotFound')))).toBeUndefined()
  })

  it.each([
    ['a missing field', request('GET', '/w/conversations/c1'), reply(200, { conversation: { id: 'c1' } }), /must have required property 'createdAt'/],
    [
      'a field the document does not name',
      request('GET', '/w/conversations/c1'),
      reply(200, { conversation: { ...conversation, x: 1 } }),
      /must NOT have additional properties/,
    ],
    ['an error type that is not its status', request('POST', '/w/messages'), reply(400, error(400, 'Forbidden')), /must be equal to constant/],
    ['a status the operation does not document', request('GET', '/w/hello'), reply(418, {}), /status 418 is not documented/],
    ['an admin body of the wrong shape', request('GET', '/v1/admin/bots'), reply(200, { bots: {} }), /must be array/],
  ])('reports %s', async (_what, req, res, why) => {
    expect(await nonConformity(req, res)).toMatch(why)
  })
})
