import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, UnauthorizedError } from '@botpress/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signUserKey } from '../../src/auth/user-key.ts'
import { version } from '../../src/version.ts'
import { errorBody } from '../helpers/app.ts'
import { type ExitStatus, randomAdminToken, randomEncryptionKey, ROOT, type RunningServer, START_TIMEOUT, startServer } from '../helpers/server.ts'

const WORKSPACE_ID = 'wkspace_main_test'
const ADMIN_TOKEN = randomAdminToken()
const WEBHOOK_ID = 'main-test-webhook'
const ENCRYPTION_KEY = randomEncryptionKey()
const BOOTSTRAP_ENV = {
  CONFAB_WORKSPACE_ID: WORKSPACE_ID,
  CONFAB_ADMIN_TOKEN: ADMIN_TOKEN,
  CONFAB_WEBHOOK_ID: WEBHOOK_ID,
  CONFAB_ENCRYPTION_KEY: ENCRYPTION_KEY,
  // The body limit is what is tested: a message may be as large (128 KiB by default).
  MESSAGE_MAX_BYTES: String(1024 * 1024),
}
/** Other CONFAB_* values for the restart: a database that has a tenant ignores them. */
const LATER_ENV = {
  CONFAB_WORKSPACE_ID: 'wkspace_later',
  CONFAB_ADMIN_TOKEN: randomAdminToken(),
  CONFAB_WEBHOOK_ID: 'later-webhook',
  CONFAB_ENCRYPTION_KEY: randomEncryptionKey(),
}
const MiB = 1024 * 1024

const dir = mkdtempSync(join(tmpdir(), 'confab-main-'))
const databaseUrl = join(dir, 'confab.db')
let server: RunningServer
let firstStdout = ''
const started: RunningServer[] = []

async function start(env: Record<string, string>) {
  const s = await startServer({ databaseUrl, env })
  started.push(s)
  return s
}

beforeAll(async () => {
  server = await start(BOOTSTRAP_ENV)
  firstStdout = server.stdout()
}, START_TIMEOUT + 30_000)

afterAll(async () => {
  const results = await Promise.allSettled(started.map((s) => s.stop()))
  rmSync(dir, { recursive: true, force: true })
  for (const r of results) if (r.status === 'rejected') throw r.reason
}, 60_000)

interface HttpResult {
  status: number
  headers: Headers
  body: any
}

async function request(method: string, path: string, options: { key?: string; body?: unknown; raw?: string } = {}) {
  const headers: Record<string, string> = {}
  if (options.key !== undefined) headers['x-user-key'] = options.key
  let body: string | undefined = options.raw
  if (options.body !== undefined) body = JSON.stringify(options.body)
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${server.baseUrl}${path}`, { method, headers, body })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined } as HttpResult
}

const chat = (method: string, path: string, options: { key?: string; body?: unknown; raw?: string } = {}) => request(method, `/${WEBHOOK_ID}${path}`, options)

const keyFor = (userId: string) => signUserKey(userId, ENCRYPTION_KEY)

async function ok(result: Promise<HttpResult>): Promise<any> {
  const res = await result
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${JSON.stringify(res.body)}`)
  return res.body
}

const adminClient = (token = ADMIN_TOKEN, workspaceId = WORKSPACE_ID) => new Client({ apiUrl: server.baseUrl, token, workspaceId })

const lines = (text: string, needle: string) => text.split('\n').filter((line) => line.includes(needle))

describe('npm start', () => {
  it('prints the port it picked for PORT=0 on 127.0.0.1', () => {
    expect(server.port).toBeGreaterThan(0)
    expect(lines(firstStdout, 'Confab listening on')).toEqual([`Confab listening on http://127.0.0.1:${server.port}`])
  })
})

describe('GET /healthz', () => {
  it('answers 200 {"status":"ok","version":…}, the version package.json has', async () => {
    const response = await fetch(`${server.baseUrl}/healthz`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await response.json()).toEqual({ status: 'ok', version })
    expect(version).toBe((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version)
  })
})

describe('first-run bootstrap output', () => {
  it('prints the chat base URL, the webhook id, the workspace id and the admin token once', () => {
    expect(lines(firstStdout, `${server.baseUrl}/${WEBHOOK_ID}`)).toHaveLength(1)
    expect(lines(firstStdout, WEBHOOK_ID).filter((line) => !line.includes('http://'))).toHaveLength(1)
    expect(lines(firstStdout, WORKSPACE_ID)).toHaveLength(1)
    expect(lines(firstStdout, ADMIN_TOKEN)).toHaveLength(1)
  })

  it('never prints the encryption key: it is the shared key, and who signs keys sets a personal one', () => {
    expect(firstStdout).not.toContain(ENCRYPTION_KEY)
    expect(firstStdout).not.toMatch(/encryption key:/i)
    expect(lines(firstStdout, 'user keys:')).toEqual([expect.stringContaining('signed with the shared key')])
  })
})

describe('chat GraphQL endpoint', () => {
  it('answers { me { userId } } for the user the key names', async () => {
    const key = await keyFor('graphql-user')
    await ok(chat('POST', '/users/get-or-create', { key, body: {} }))
    const res = await chat('POST', '/graphql', { key, body: { query: '{ me { userId } }' } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ data: { me: { userId: 'graphql-user' } } })
  })
})

describe('chat body limit over HTTP (1 MiB)', () => {
  let key: string
  const conversationId = 'limit-conversation'

  /** A createMessage body of exactly `size` bytes: a text message padded to fit. */
  const messageBody = (size: number) => {
    const empty = JSON.stringify({ conversationId, payload: { type: 'text', text: '' } })
    const text = 'a'.repeat(size - Buffer.byteLength(empty))
    const raw = JSON.stringify({ conversationId, payload: { type: 'text', text } })
    expect(Buffer.byteLength(raw)).toBe(size)
    return { raw, text }
  }

  beforeAll(async () => {
    key = await keyFor('limit-user')
    await ok(chat('POST', '/users/get-or-create', { key, body: {} }))
    await ok(chat('POST', '/conversations', { key, body: { id: conversationId } }))
  })

  it('answers 413 PayloadTooLarge (a response, not a socket error) for 1 MiB + 1 byte', async () => {
    const { raw } = messageBody(MiB + 1)
    const res = await chat('POST', '/messages', { key, raw })
    expect(res.status).toBe(413)
    expect(res.body).toEqual(errorBody(413, 'PayloadTooLarge'))
    const health = await fetch(`${server.baseUrl}/healthz`)
    expect(health.status).toBe(200)
  })

  it.each([
    ['exactly 1 MiB', MiB],
    ['1 MiB - 1 byte', MiB - 1],
  ])('accepts a body of %s (200)', async (_name, size) => {
    const { raw, text } = messageBody(size)
    const res = await chat('POST', '/messages', { key, raw })
    expect(res.status).toBe(200)
    expect(res.body.message).toMatchObject({ conversationId, userId: 'limit-user', payload: { type: 'text', text } })
  })
})

describe('restart on the same database', () => {
  let firstBotId: string
  let user: Record<string, unknown>
  let friend: Record<string, unknown>
  let messageId: string
  let exit: ExitStatus
  let walLeft: boolean
  const conversationId = 'persisted-conversation'

  beforeAll(async () => {
    const key = await keyFor('persisted-user')
    user = (await ok(chat('POST', '/users/get-or-create', { key, body: { name: 'Persisted', profile: 'p' } }))).user
    const friendKey = await keyFor('persisted-friend')
    friend = (await ok(chat('POST', '/users/get-or-create', { key: friendKey, body: { name: 'Friend' } }))).user
    await ok(chat('POST', '/conversations', { key, body: { id: conversationId } }))
    await ok(chat('POST', `/conversations/${conversationId}/participants`, { key, body: { userId: 'persisted-friend' } }))
    const message = await ok(chat('POST', '/messages', { key, body: { conversationId, payload: { type: 'text', text: 'still here?' } } }))
    messageId = message.message.id
    firstBotId = (await adminClient().listBots({})).bots[0]?.id as string

    exit = await server.terminate()
    walLeft = existsSync(`${databaseUrl}-wal`)
    server = await start(LATER_ENV)
  }, START_TIMEOUT + 60_000)

  it('SIGTERM makes the server exit with code 0', () => {
    expect(exit).toEqual({ code: 0, signal: null })
  })

  it('SIGTERM closes the database cleanly (no write-ahead log left behind)', () => {
    expect(walLeft).toBe(false)
  })

  it('does not print the bootstrap values again', () => {
    const stdout = server.stdout()
    expect(lines(stdout, 'Confab listening on')).toEqual([`Confab listening on ${server.baseUrl}`])
    for (const value of [...Object.values(BOOTSTRAP_ENV), ...Object.values(LATER_ENV)]) {
      expect(stdout).not.toContain(value)
    }
  })

  it('getOrCreateUser returns the stored user unchanged, with its original createdAt', async () => {
    const key = await keyFor('persisted-user')
    const res = await chat('POST', '/users/get-or-create', { key, body: { name: 'Someone else' } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ user })
    expect(res.body.user).toMatchObject({ name: 'Persisted', profile: 'p', createdAt: user.createdAt })
  })

  it('lists the participants of the stored conversation', async () => {
    const key = await keyFor('persisted-user')
    const res = await chat('GET', `/conversations/${conversationId}/participants`, { key })
    expect(res.status).toBe(200)
    // The echo bot joined when it answered the stored message.
    const echoBot = { id: firstBotId, name: 'Echo bot', createdAt: expect.any(String), updatedAt: expect.any(String) }
    expect(res.body).toEqual({ participants: [user, friend, echoBot], meta: {} })
  })

  it('still has the message', async () => {
    const key = await keyFor('persisted-user')
    const res = await chat('POST', '/graphql', {
      key,
      body: { query: 'query ($id: String!) { message(id: $id) { messageId rawPayload } }', variables: { id: messageId } },
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ data: { message: { messageId, rawPayload: { type: 'text', text: 'still here?' } } } })
  })

  it('keeps the first tenant and ignores the CONFAB_* values of later starts', async () => {
    const result = await adminClient().listBots({})
    expect(result.bots.map((bot) => bot.id)).toEqual([firstBotId])
    const error = await adminClient(LATER_ENV.CONFAB_ADMIN_TOKEN, LATER_ENV.CONFAB_WORKSPACE_ID)
      .listBots({})
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UnauthorizedError)
    const key = await signUserKey('later-user', LATER_ENV.CONFAB_ENCRYPTION_KEY)
    const res = await request('POST', `/${LATER_ENV.CONFAB_WEBHOOK_ID}/users/get-or-create`, { key, body: {} })
    expect(res.status).toBe(404)
    expect(res.body).toEqual(errorBody(404, 'ResourceNotFound'))
  })
})
