import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, ENCRYPTION_KEY, WORKSPACE_ID } from '../helpers/app.ts'
import { capturedLog } from '../helpers/captured-log.ts'
import { sendFrom } from '../helpers/from-address.ts'
import { rules } from '../helpers/limited.ts'
import { type Listening, startListening } from '../helpers/listening.ts'
import { eventually } from '../helpers/wait.ts'

// Issue 29, "seen and attributable": one structured line per request (method, route pattern,
// status, duration, request id, client address, credential kind), refusals of authentication and
// rate limits at warn with their reason, streams when they open and close; never a key, token,
// secret, raw path or body. Captured from the pino logger the real server logs with.

const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID }

describe('the access log at LOG_LEVEL=info', () => {
  const captured = capturedLog('info')
  let confab: Listening
  let key: string
  beforeAll(async () => {
    confab = await startListening({ log: captured.log, rateLimits: rules({ createUser: { points: 1, seconds: 60 } }) })
    key = await confab.t.keyFor('alice')
  })
  afterAll(() => confab.close())

  const lineOf = (requestId: string | string[] | undefined) => captured.lines().find((line) => line.requestId === requestId && line.stream !== 'closed')

  it('logs each request once with its method, route pattern, status, duration, request id, client address and credential kind', async () => {
    const created = await sendFrom(`${confab.apiUrl}/users/get-or-create`, { method: 'POST', body: {}, headers: { 'x-user-key': key } })
    await sendFrom(`${confab.apiUrl}/conversations`, { method: 'POST', body: { id: 'c1' }, headers: { 'x-user-key': key } })
    const listed = await sendFrom(`${confab.apiUrl}/conversations/c1/messages`, { headers: { 'x-user-key': key }, from: '127.0.0.2' })
    const graphql = await sendFrom(`${confab.apiUrl}/graphql`, { method: 'POST', body: { query: '{ me { id } }' }, headers: { 'x-user-key': key } })
    const bot = await sendFrom(`${confab.baseUrl}/v1/admin/bots/${confab.botId}`, { headers: admin })
    const nowhere = await sendFrom(`${confab.baseUrl}/xxx/no/such/route`)

    await eventually(() => {
      expect(lineOf(created.headers['x-request-id'])).toEqual({
        level: 30,
        time: expect.any(Number),
        pid: expect.any(Number),
        hostname: expect.any(String),
        msg: 'request',
        method: 'POST',
        route: '/:webhookId/users/get-or-create',
        status: 200,
        ms: expect.any(Number),
        requestId: created.headers['x-request-id'],
        client: '127.0.0.1',
        credential: 'user-key',
      })
      expect(lineOf(listed.headers['x-request-id'])).toMatchObject({
        method: 'GET',
        route: '/:webhookId/conversations/:conversationId/messages',
        status: 200,
        client: '127.0.0.2',
        credential: 'user-key',
      })
      expect(lineOf(graphql.headers['x-request-id'])).toMatchObject({ method: 'POST', route: '/:webhookId/graphql', status: 200 })
      expect(lineOf(bot.headers['x-request-id'])).toMatchObject({ route: '/v1/admin/bots/:id', status: 200, credential: 'admin-token' })
      expect(lineOf(nowhere.headers['x-request-id'])).toMatchObject({ method: 'GET', route: '/:webhookId/*', status: 404, credential: 'none' })
    })
    // One line each, never the raw path with its ids.
    expect(captured.lines().filter((line) => line.requestId === created.headers['x-request-id'])).toHaveLength(1)
    expect(captured.raw.join('\n')).not.toContain('/conversations/c1')
  })

  it('logs a refused authentication and a rate-limited request at warn, with the reason', async () => {
    const refused = await sendFrom(`${confab.apiUrl}/users/me`, { headers: { 'x-user-key': 'eyJ.not-a-key.sig' } })
    const badToken = await sendFrom(`${confab.baseUrl}/v1/admin/bots`, { headers: { ...admin, authorization: 'Bearer bp_pat_wrong_token' } })
    await sendFrom(`${confab.apiUrl}/users`, { method: 'POST', body: {}, from: '127.0.0.3' })
    const limited = await sendFrom(`${confab.apiUrl}/users`, { method: 'POST', body: {}, from: '127.0.0.3' })
    expect([refused.status, badToken.status, limited.status]).toEqual([401, 401, 429])
    await eventually(() => {
      expect(lineOf(refused.headers['x-request-id'])).toMatchObject({
        level: 40,
        msg: 'request refused: authentication failed',
        route: '/:webhookId/users/me',
        status: 401,
        credential: 'user-key',
        reason: 'the user key is not valid for this chat integration',
      })
      expect(lineOf(badToken.headers['x-request-id'])).toMatchObject({ level: 40, status: 401, credential: 'admin-token', reason: expect.any(String) })
      expect(lineOf(limited.headers['x-request-id'])).toMatchObject({
        level: 40,
        msg: 'request refused: rate limited',
        route: '/:webhookId/users',
        status: 429,
        client: '127.0.0.3',
        credential: 'none',
        reason: expect.stringContaining('"createUser" limit allows 1 requests per 60 s per client address'),
      })
    })
  })

  it('logs when a stream opens and when it closes', async () => {
    const opened = await sendFrom(`${confab.apiUrl}/conversations/c1/listen`, { headers: { 'x-user-key': key } })
    expect(opened.status).toBe(200)
    const requestId = opened.headers['x-request-id']
    await eventually(() => {
      expect(captured.lines().filter((line) => line.requestId === requestId)).toEqual([
        expect.objectContaining({ level: 30, msg: 'request', route: '/:webhookId/conversations/:id/listen', status: 200, stream: 'open' }),
        expect.objectContaining({ level: 30, msg: 'stream closed', stream: 'closed', openMs: expect.any(Number) }),
      ])
    })
  })

  it('never writes a key, token, secret or body', async () => {
    const secretText = 'my very private message'
    await sendFrom(`${confab.apiUrl}/messages`, {
      method: 'POST',
      body: { conversationId: 'c1', payload: { type: 'text', text: secretText } },
      headers: { 'x-user-key': key },
    })
    await sendFrom(`${confab.apiUrl}/users/key`, { method: 'POST', body: { id: 'alice' }, headers: { 'x-admin-secret': ENCRYPTION_KEY } })
    const all = captured.raw.join('\n')
    for (const secret of [key, ADMIN_TOKEN, ENCRYPTION_KEY, 'eyJ.not-a-key.sig', 'bp_pat_wrong_token', secretText]) expect(all).not.toContain(secret)
    expect(captured.lines().some((line) => line.credential === 'admin-secret')).toBe(true)
  })
})

describe('the access log at LOG_LEVEL=warn', () => {
  const captured = capturedLog('warn')
  let confab: Listening
  beforeAll(async () => {
    confab = await startListening({ log: captured.log })
  })
  afterAll(() => confab.close())

  it('keeps the refusals and drops the ordinary lines', async () => {
    await sendFrom(`${confab.apiUrl}/hello`)
    const refused = await sendFrom(`${confab.apiUrl}/users/me`, { headers: { 'x-user-key': 'bad' } })
    await eventually(() =>
      expect(captured.lines().map((line) => [line.msg, line.requestId])).toEqual([['request refused: authentication failed', refused.headers['x-request-id']]]),
    )
  })
})
