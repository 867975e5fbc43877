import { pino } from 'pino'
import { expect } from 'vitest'
import { type AppOptions, createApp } from '../../src/app.ts'
import { signUserKey } from '../../src/auth/user-key.ts'
import { bootstrap, firstTenant } from '../../src/bootstrap.ts'
import { openSqliteStore } from '../../src/db/sqlite/store.ts'

export const WEBHOOK_ID = 'test-webhook'
export const ENCRYPTION_KEY = 'test-encryption-key'
export const WORKSPACE_ID = 'wkspace_test'
export const ADMIN_TOKEN = 'bp_pat_test_admin_token'
export const BASE = 'http://confab.test'

export interface JsonResponse<T = any> {
  status: number
  headers: Headers
  body: T
}

export interface RequestOptions {
  key?: string
  body?: unknown
  rawBody?: BodyInit
  headers?: Record<string, string>
}

const toJson = async <T>(response: Response): Promise<JsonResponse<T>> => {
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
}

/**
 * The app on a fresh database (`:memory:`: a private temporary file), bootstrapped with fixed
 * credentials, driven through its in-process fetch exactly as the HTTP server drives it. The
 * bootstrap commits asynchronously: requests wait for it (`ready`), and `tenant` is known at once.
 */
export function createTestApp(
  options: { databaseUrl?: string; onQuery?: (sql: string) => void } & Partial<Omit<AppOptions, 'store' | 'log'>> = {},
) {
  const store = openSqliteStore(options.databaseUrl ?? ':memory:', { onQuery: options.onQuery })
  /** The writing connection, to look at the tables directly. */
  const db = store.db
  const planned = firstTenant({
    workspaceId: WORKSPACE_ID,
    adminToken: ADMIN_TOKEN,
    webhookId: WEBHOOK_ID,
    encryptionKey: ENCRYPTION_KEY,
  })
  const ready = bootstrap(store, planned)
  const tenant: typeof planned | undefined = planned
  const { databaseUrl: _, onQuery: __, ...appOptions } = options
  const created = createApp({ store, log: pino({ level: 'silent' }), ...appOptions })
  const app = {
    ...created,
    fetch: async (request: Request) => {
      await ready
      return created.fetch(request)
    },
  }

  const send = (method: string, url: string, options: RequestOptions = {}) => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.key !== undefined) headers['x-user-key'] = options.key
    let body: BodyInit | undefined = options.rawBody
    if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers['content-type'] ??= 'application/json'
    }
    return app.fetch(new Request(url, { method, headers, body }))
  }

  const keyFor = (userId: string) => signUserKey(userId, ENCRYPTION_KEY)

  const chat = async <T = any>(method: string, path: string, options: RequestOptions = {}) =>
    toJson<T>(await send(method, `${BASE}/${WEBHOOK_ID}${path}`, options))

  const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID }

  const admin = async <T = any>(method: string, path: string, options: RequestOptions = {}) =>
    toJson<T>(
      await send(method, `${BASE}/v1/admin${path}`, { ...options, headers: { ...adminHeaders, ...options.headers } }),
    )

  const graphql = async <T = any>(
    query: string,
    variables: Record<string, unknown> = {},
    options: { key?: string; headers?: Record<string, string> } = {},
  ) => toJson<T>(await send('POST', `${BASE}/${WEBHOOK_ID}/graphql`, { ...options, body: { query, variables } }))

  const adminGraphql = async <T = any>(
    query: string,
    variables: Record<string, unknown> = {},
    headers: Record<string, string> = adminHeaders,
  ) => toJson<T>(await send('POST', `${BASE}/v1/admin/graphql`, { headers, body: { query, variables } }))

  /** A user created through getOrCreateUser, with its key. */
  const user = async (id: string, profile: { name?: string; pictureUrl?: string; profile?: string } = {}) => {
    const key = await keyFor(id)
    const response = await chat('POST', '/users/get-or-create', { key, body: profile })
    if (response.status !== 200) throw new Error(`could not create user ${id}: ${JSON.stringify(response.body)}`)
    return { id, key, user: response.body.user }
  }

  /** A conversation created by `owner` (a key), with the given extra participants (user ids). */
  const conversation = async (ownerKey: string, id?: string, participants: string[] = []) => {
    const response = await chat('POST', '/conversations', { key: ownerKey, body: id === undefined ? {} : { id } })
    if (response.status !== 200) throw new Error(`could not create conversation: ${JSON.stringify(response.body)}`)
    const conversationId: string = response.body.conversation.id
    for (const userId of participants) {
      await chat('POST', `/conversations/${conversationId}/participants`, { key: ownerKey, body: { userId } })
    }
    return conversationId
  }

  return {
    app,
    store,
    db,
    ready,
    tenant,
    send,
    keyFor,
    chat,
    admin,
    adminHeaders,
    graphql,
    adminGraphql,
    user,
    conversation,
    close: async () => {
      await ready.catch(() => undefined)
      await app.close()
      await store.close()
    },
  }
}

export type TestApp = ReturnType<typeof createTestApp>

/** The error body of the contract, with any request id. */
export const errorBody = (code: number, type: string) => ({
  id: expect.any(String),
  code,
  type,
  message: expect.any(String),
})

