import { connect } from 'node:net'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ConfabServer, createServer } from '../../src/index.ts'
import { errorBody } from '../helpers/app.ts'
import { strictRequest } from '../helpers/strict-http.ts'
import { eventually } from '../helpers/wait.ts'

// Issue 29, item 8: what the hostile-request fuzz found through the real server, with a read
// replica (SQLite) as `npm start` runs one, every answer read by node's strict client: `//` paths
// failed the main thread's dispatch to the replicas (500), a GraphQL query asked as multipart/mixed
// came back from a replica with both Content-Length and Transfer-Encoding (no client may read it),
// and node's own refusals had no error body. A replica also hands out the main thread's URLs.

const webhookId = 'wire-webhook'
const adminToken = 'bp_pat_wire_admin_token'
const workspaceId = 'wkspace_wire'
const admin = { authorization: `Bearer ${adminToken}`, 'x-workspace-id': workspaceId }

let confab: ConfabServer
let botId: string
beforeAll(async () => {
  confab = await createServer({
    databaseUrl: ':memory:',
    log: pino({ level: 'silent' }),
    bootstrap: { webhookId, adminToken, workspaceId },
    readReplicas: 1,
    trustProxy: ['loopback'],
    // With rate limits on, only reads with a user key reach a replica (admin reads are counted on the
    // main thread): off here, so that the admin reads these tests make are the replica's to answer.
    rateLimits: 'off',
  })
  const bots = await strictRequest(confab.url, { path: '/v1/admin/bots', headers: admin })
  botId = bots.json.bots[0].id
  // The replica compiles the app from src/ before it is ready: seconds, more on a busy machine.
  await eventually(async () => {
    await strictRequest(confab.url, { path: `/v1/admin/bots/${botId}`, headers: admin })
    expect(confab.replicas?.ready).toBe(1)
  }, 60_000)
}, 120_000)
afterAll(() => confab?.close())

/** Runs `read` and tells whether a replica answered it. */
async function onReplica<T>(read: () => Promise<T>) {
  const before = confab.replicas?.served ?? 0
  const answer = await read()
  return { answer, replica: (confab.replicas?.served ?? 0) > before }
}

describe('paths that start with //', () => {
  it.each([
    ['GET', '//'],
    ['OPTIONS', '//'],
    ['PROPFIND', '//'],
    ['HEAD', '//'],
    ['GET', '///x'],
    ['GET', '//v1/admin/bots'],
    ['GET', '/%2F'],
    ['POST', '//graphql'],
  ])('%s %s is 404 ResourceNotFound, not 500', async (method, path) => {
    const answer = await strictRequest(confab.url, { method, path, headers: admin })
    expect(answer.status).toBe(404)
    if (method !== 'HEAD') expect(answer.json).toEqual(errorBody(404, 'ResourceNotFound'))
  })
})

describe('a replica’s answer', () => {
  const query = JSON.stringify({ query: '{ __typename }' })

  it.each(['multipart/mixed', 'text/event-stream', 'application/json'])('to a GraphQL query accepting %s is framed once', async (accept) => {
    const { answer, replica } = await onReplica(() =>
      strictRequest(confab.url, { method: 'POST', path: '/v1/admin/graphql', headers: { ...admin, accept, 'content-type': 'application/json' }, body: query }),
    )
    expect(replica).toBe(true)
    expect(answer.status).toBe(200)
    expect(answer.headers['transfer-encoding']).toBeUndefined()
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.text))
    expect(answer.text).toContain('"__typename":"Query"')
  })

  it('hands out the URLs the main thread hands out (forwarded by a trusted proxy)', async () => {
    const forwarded = { ...admin, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'chat.example.com' }
    const { answer, replica } = await onReplica(() => strictRequest(confab.url, { path: `/v1/admin/bots/${botId}`, headers: forwarded }))
    expect(replica).toBe(true)
    expect(answer.json.bot.integrations.chat.webhookUrl).toBe(`https://chat.example.com/${webhookId}`)
  })

  it('to a read under an empty Host is the main thread’s: the listening address names the URLs', async () => {
    // Node reads a Host of blanks as empty; the replica once made `http:///v1/…` of it, whose host is `v1`.
    for (const host of ['', '\t']) {
      const { answer, replica } = await onReplica(() => strictRequest(confab.url, { path: `/v1/admin/bots/${botId}`, headers: { ...admin, host } }))
      expect(replica).toBe(true)
      expect(answer.status).toBe(200)
      expect(answer.json.bot.integrations.chat.webhookUrl).toBe(`${confab.url}/${webhookId}`)
    }
  })

  it('to a read under an invalid Host is the same 400', async () => {
    const answer = await strictRequest(confab.url, { path: `/v1/admin/bots/${botId}`, headers: { ...admin, host: 'evil:80@attacker' } })
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual(errorBody(400, 'InvalidPayload'))
  })
})

/** Bytes written to the server as they are, and everything it answers until it closes. */
const raw = (bytes: string) =>
  new Promise<string>((resolve, reject) => {
    const { port } = new URL(confab.url)
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(bytes))
    let text = ''
    socket.on('data', (chunk) => (text += chunk))
    socket.once('close', () => resolve(text))
    socket.once('error', reject)
  })

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))

describe('what node’s HTTP server refuses before the app', () => {
  it('headers over its limit: 431 in the error body', async () => {
    const answer = await strictRequest(confab.url, { path: `/${webhookId}/hello`, headers: { 'x-user-key': 'k'.repeat(20_000) } })
    expect(answer.status).toBe(431)
    expect(answer.json).toEqual(errorBody(431, 'PayloadTooLarge'))
  })

  it('a request it cannot parse: 400 InvalidPayload in the error body', async () => {
    const answer = await raw('GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n')
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request')
    expect(bodyOf(answer)).toEqual(errorBody(400, 'InvalidPayload'))
  })

  it('CONNECT: 405 MethodNotFound, where node would close without a word', async () => {
    const answer = await raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 405 Method Not Allowed')
    expect(bodyOf(answer)).toEqual(errorBody(405, 'MethodNotFound'))
  })
})

describe('PUBLIC_URL on a replica', () => {
  let withPublicUrl: ConfabServer
  beforeAll(async () => {
    withPublicUrl = await createServer({
      databaseUrl: ':memory:',
      log: pino({ level: 'silent' }),
      bootstrap: { webhookId, adminToken, workspaceId },
      readReplicas: 1,
      publicUrl: 'https://example.com/confab',
      rateLimits: 'off',
    })
  }, 120_000)
  afterAll(() => withPublicUrl?.close())

  it('starts the URLs a replica hands out, as the main thread’s', async () => {
    const id = (await strictRequest(withPublicUrl.url, { path: '/v1/admin/bots', headers: admin })).json.bots[0].id
    const read = () => strictRequest(withPublicUrl.url, { path: `/v1/admin/bots/${id}`, headers: { ...admin, host: 'evil.example' } })
    const fromMain = await read()
    await eventually(async () => {
      await read()
      expect(withPublicUrl.replicas?.ready).toBe(1)
    }, 60_000)
    const before = withPublicUrl.replicas?.served ?? 0
    const fromReplica = await read()
    expect(withPublicUrl.replicas?.served).toBe(before + 1)
    expect(fromReplica.json).toEqual(fromMain.json)
    expect(fromReplica.json.bot.integrations.chat.webhookUrl).toBe(`https://example.com/confab/${webhookId}`)
  }, 120_000)
})
