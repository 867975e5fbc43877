import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signUserKey } from '../../src/auth/user-key.ts'
import { ADMIN_TOKEN, ENCRYPTION_KEY, WORKSPACE_ID } from '../helpers/app.ts'
import { type Listening, startListening } from '../helpers/listening.ts'

// Issue 49 L8: JSON answers without `X-Content-Type-Options: nosniff`; GraphQL mutations accepted as
// multipart/form-data or application/x-www-form-urlencoded, bodies any web page can make a browser send
// cross-origin without a CORS preflight.

let s: Listening
let key: string
beforeAll(async () => {
  s = await startListening()
  key = await signUserKey('csrf-user', ENCRYPTION_KEY)
  await fetch(`${s.apiUrl}/users/get-or-create`, { method: 'POST', headers: { 'x-user-key': key, 'content-type': 'application/json' }, body: '{}' })
})
afterAll(() => s.close())

const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID }

describe('X-Content-Type-Options: nosniff', () => {
  it.each([
    ['a REST read', () => fetch(`${s.apiUrl}/users/me`, { headers: { 'x-user-key': key } }), 200],
    ['a REST refusal', () => fetch(`${s.apiUrl}/users/me`), 401],
    ['an unknown route', () => fetch(`${s.baseUrl}/nowhere/at/all`), 404],
    [
      'a GraphQL answer',
      () =>
        fetch(`${s.apiUrl}/graphql`, {
          method: 'POST',
          headers: { 'x-user-key': key, 'content-type': 'application/json' },
          body: '{"query":"{ me { userId } }"}',
        }),
      200,
    ],
    ['an admin answer', () => fetch(`${s.baseUrl}/v1/admin/bots`, { headers: admin }), 200],
    ['the health check', () => fetch(`${s.baseUrl}/healthz`), 200],
  ])('is on %s', async (_what, request, status) => {
    const response = await request()
    expect(response.status).toBe(status)
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    await response.arrayBuffer()
  })
})

describe('GraphQL mutations in a body a browser sends cross-origin without a preflight', () => {
  const mutation = 'mutation { createConversation(input: {}) { conversation { conversationId } } }'
  const conversations = async () => (await (await fetch(`${s.apiUrl}/conversations`, { headers: { 'x-user-key': key } })).json()).conversations.length as number

  const form = new URLSearchParams({ query: mutation }).toString()
  const multipart = () => {
    // The GraphQL multipart request form (the one yoga reads): the operation as JSON in `operations`.
    const body = new FormData()
    body.set('operations', JSON.stringify({ query: mutation }))
    body.set('map', '{}')
    return body
  }
  it.each([
    ['application/x-www-form-urlencoded', () => ({ body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } })],
    ['multipart/form-data', () => ({ body: multipart(), headers: {} })],
    ['text/plain', () => ({ body: JSON.stringify({ query: mutation }), headers: { 'content-type': 'text/plain' } })],
  ])('are refused as %s (415), writing nothing', async (_type, made) => {
    const before = await conversations()
    const { body, headers } = made()
    const response = await fetch(`${s.apiUrl}/graphql`, { method: 'POST', headers: { 'x-user-key': key, ...headers }, body })
    expect(response.status).toBe(415)
    const answer = await response.json()
    expect(answer.errors).toHaveLength(1)
    expect(answer.errors[0]).toMatchObject({ extensions: { type: 'UnsupportedMediaType', status: 415 } })
    expect(answer).not.toHaveProperty('data.createConversation')
    expect(await conversations()).toBe(before)
  })

  it('a query as a form is still answered, and the mutation as JSON is done', async () => {
    const query = await fetch(`${s.apiUrl}/graphql`, {
      method: 'POST',
      headers: { 'x-user-key': key, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: '{ me { userId } }' }).toString(),
    })
    expect(await query.json()).toEqual({ data: { me: { userId: 'csrf-user' } } })
    const before = await conversations()
    const json = await fetch(`${s.apiUrl}/graphql`, {
      method: 'POST',
      headers: { 'x-user-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: mutation }),
    })
    expect(json.status).toBe(200)
    expect(await conversations()).toBe(before + 1)
  })

  it('the admin endpoint refuses a form mutation too', async () => {
    const response = await fetch(`${s.baseUrl}/v1/admin/graphql`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: 'mutation { createBot(input: { name: "csrf" }) { bot { botId } } }' }).toString(),
    })
    expect(response.status).toBe(415)
    const bots = await (await fetch(`${s.baseUrl}/v1/admin/bots`, { headers: admin })).json()
    expect(bots.bots.map((bot: { name: string }) => bot.name)).not.toContain('csrf')
  })
})
