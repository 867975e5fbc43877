import { pino } from 'pino'
import { expect } from 'vitest'
import { type AppOptions, createApp } from '../../src/app.ts'
import { signUserKey } from '../../src/auth/user-key.ts'
import { bootstrap } from '../../src/bootstrap.ts'
import { closeDb, openDb } from '../../src/db/client.ts'

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
 * The app on a fresh in-memory database, bootstrapped with fixed credentials, driven through its
 * in-process fetch exactly as the HTTP server drives it.
 */
export function createTestApp(
  options: { databaseUrl?: string; onQuery?: (sql: string) => void } & Partial<Omit<AppOptions, 'db' | 'log'>> = {},
) {
  const db = openDb(options.databaseUrl ?? ':memory:', { onQuery: options.onQuery })
  const tenant = bootstrap(db, {
    workspaceId: WORKSPACE_ID,
    adminToken: ADMIN_TOKEN,
    webhookId: WEBHOOK_ID,
    encryptionKey: ENCRYPTION_KEY,
  })
  const { databaseUrl: _, onQuery: __, ...appOptions } = options
  const app = createApp({ db, log: pino({ level: 'silent' }), ...appOptions })

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
    db,
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
      await app.close()
      closeDb(db)
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

