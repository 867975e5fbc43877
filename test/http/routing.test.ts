import { describe, expect, it } from 'vitest'
import { BASE, toJson, useC1, useTestApp, WEBHOOK_ID } from '../helpers/app.ts'
import { expectRefusal } from '../helpers/transports.ts'

// Which requests reach an operation: the webhook id names a chat integration, the path a route,
// the method one the route takes. Anything else is a 404 or 405 in the contract's error body.

describe('routing', () => {
  const t = useTestApp({ handlers: {} })
  const users = useC1(t)
  const send = async (method: string, path: string, body?: unknown) => toJson(await t.send(method, `${BASE}${path}`, { key: users.alice.key, body }))

  it.each([
    ['POST', '/users/get-or-create', { name: 'Someone' }],
    ['POST', '/conversations', { id: 'c2' }],
    ['POST', '/conversations/c1/participants', { userId: 'alice' }],
    ['GET', '/conversations/c1/participants', undefined],
    ['POST', '/messages', { conversationId: 'c1', payload: { type: 'text', text: 'hi' } }],
    ['POST', '/events', { conversationId: 'c1', payload: { a: 1 } }],
    ['GET', '/hello', undefined],
  ])('answers %s %s under a webhook id that names no chat integration with 404 ResourceNotFound, writing nothing', async (method, path, body) => {
    const before = await t.rows()
    expectRefusal(await send(method, `/no-such-webhook${path}`, body), 'REST', 404, 'ResourceNotFound', null)
    expect(await t.rows()).toEqual(before)
  })

  it('answers GraphQL under a webhook id that names no chat integration with HTTP 404 ResourceNotFound', async () => {
    expectRefusal(await send('POST', '/no-such-webhook/graphql', { query: '{ me { userId } }' }), 'GraphQL', 404, 'ResourceNotFound', null)
  })

  it.each([
    ['/nope'],
    ['/user'],
    ['/users/get-or-create/extra'],
    ['/conversations/c1/participants/alice/extra'],
    ['/conversations/c1/nope'],
    ['/messages/m1/nope'],
  ])('answers 404 ResourceNotFound for the unknown path %s', async (path) => {
    expectRefusal(await t.chat('POST', path, { key: users.alice.key, body: {} }), 'REST', 404, 'ResourceNotFound', null)
  })

  it.each([['/no-such-webhook'], ['//users/get-or-create'], ['/v1/admin/no-such-thing'], ['/v1/admin/bots/some-bot/no-such-thing']])(
    'answers 404 ResourceNotFound for the path %s',
    async (path) => {
      const res = path.startsWith('/v1/admin') ? await t.admin('GET', path.slice('/v1/admin'.length)) : await send('GET', path)
      expectRefusal(res, 'REST', 404, 'ResourceNotFound', null)
    },
  )

  it.each([
    ['the conversation id', `/${WEBHOOK_ID}/conversations/%E0%A4%A/participants`],
    ['the webhook id', '/%E0%A4%A/conversations/c1/participants'],
  ])('answers 404 ResourceNotFound, not 500, to a malformed percent-escape in %s', async (_what, path) => {
    expectRefusal(await send('GET', path), 'REST', 404, 'ResourceNotFound', null)
  })

  it.each([
    ['GET', '/users/get-or-create'],
    ['PUT', '/users/get-or-create'],
    ['DELETE', '/conversations/c1/participants'],
    ['PATCH', '/conversations/c1/participants'],
    ['GET', '/messages'],
    ['PUT', '/messages'],
    ['GET', '/events'],
    ['DELETE', '/events'],
  ])('answers 405 MethodNotFound to %s %s, writing nothing', async (method, path) => {
    const before = await t.rows()
    const body = method === 'GET' ? undefined : { conversationId: 'c1', payload: { type: 'text', text: 'x' } }
    expectRefusal(await t.chat(method, path, { key: users.alice.key, body }), 'REST', 405, 'MethodNotFound', null)
    expect(await t.rows()).toEqual(before)
  })

  it('answers 405 MethodNotFound to a method the admin route /bots does not take', async () => {
    expectRefusal(await t.admin('DELETE', '/bots'), 'REST', 405, 'MethodNotFound', null)
  })
})
