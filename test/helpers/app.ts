import { pino } from 'pino'
import { afterEach, beforeEach, expect } from 'vitest'
import { type AppOptions, createApp } from '../../src/app.ts'
import { signUserKey } from '../../src/auth/user-key.ts'
import { bootstrap, firstTenant } from '../../src/bootstrap.ts'
import { createTenant } from '../../src/domain/tenancy.ts'
import type { Peer } from '../../src/http/peer.ts'
import { openTestStore, type TestStore } from './engine.ts'
import { checkConformance } from './openapi.ts'
import { testOutbound } from './resolver.ts'

export const WEBHOOK_ID = 'test-webhook'
export const ENCRYPTION_KEY = 'test-encryption-key'
export const WORKSPACE_ID = 'wkspace_test'
export const ADMIN_TOKEN = 'bp_pat_test_admin_token'
export const BASE = 'http://confab.test'

/** A second chat integration beside the bootstrapped one (see `TestApp.otherTenant`). */
export const OTHER = {
  workspaceId: 'wkspace_other',
  adminToken: 'bp_pat_other_admin_token',
  webhookId: 'other-webhook',
  encryptionKey: 'other-encryption-key',
} as const

/** Every timestamp the API writes: ISO 8601 UTC with milliseconds. */
export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
export const iso = expect.stringMatching(ISO)

/** An id the API generates or accepts: 1-64 characters of [A-Za-z0-9._:-]. */
export const CLIENT_ID = /^[A-Za-z0-9._:-]{1,64}$/

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

export const toJson = async <T>(response: Response): Promise<JsonResponse<T>> => {
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
}

/**
 * The app on a fresh database (`:memory:`: a private temporary file), bootstrapped with fixed
 * credentials, driven through its in-process fetch exactly as the HTTP server drives it. The
 * bootstrap commits asynchronously: requests wait for it (`ready`), and `tenant` is known at once.
 */
export function createTestApp(
  options: {
    databaseUrl?: string
    onQuery?: (sql: string) => void
    /** SQLite: a fault seam before each WAL sync (SqliteStoreOptions.beforeSync). */
    beforeSync?: () => void
    besides?: { engine: TestStore; ready: Promise<unknown> }
  } & Partial<Omit<AppOptions, 'store'>> = {},
) {
  // `besides`: another instance on the first app's database (PostgreSQL), its tenant already made.
  const engine = options.besides
    ? options.besides.engine.another()
    : openTestStore({ databaseUrl: options.databaseUrl, onQuery: options.onQuery, beforeSync: options.beforeSync })
  const { store } = engine
  /** The engine's drizzle handle, to look at the tables directly (see openTestStore: `await` only). */
  const db = engine.db
  /** The tables of the app's engine, for queries through `db`. */
  const tables = engine.tables
  const planned = firstTenant({
    workspaceId: WORKSPACE_ID,
    adminToken: ADMIN_TOKEN,
    webhookId: WEBHOOK_ID,
    encryptionKey: ENCRYPTION_KEY,
  })
  const ready = options.besides ? options.besides.ready : engine.opened ? engine.opened.then(() => bootstrap(store, planned)) : bootstrap(store, planned)
  const tenant: typeof planned | undefined = planned
  const { databaseUrl: _, onQuery: __, besides: ___, beforeSync: ____, ...appOptions } = options
  // Names resolve without real DNS (test/helpers/resolver.ts) unless the test brings its own policy.
  const created = createApp({ store, outbound: testOutbound(), ...appOptions, log: appOptions.log ?? pino({ level: 'silent' }) })
  const app = {
    ...created,
    // The peer passes through: the rate limits and the access log name the client by it.
    fetch: async (request: Request, peer?: Peer) => {
      await ready
      const response = await created.fetch(request, peer)
      await checkConformance(request, response)
      return response
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
    toJson<T>(await send(method, `${BASE}/v1/admin${path}`, { ...options, headers: { ...adminHeaders, ...options.headers } }))

  const graphql = async <T = any>(query: string, variables: Record<string, unknown> = {}, options: { key?: string; headers?: Record<string, string> } = {}) =>
    toJson<T>(await send('POST', `${BASE}/${WEBHOOK_ID}/graphql`, { ...options, body: { query, variables } }))

  const adminGraphql = async <T = any>(query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = adminHeaders) =>
    toJson<T>(await send('POST', `${BASE}/v1/admin/graphql`, { headers, body: { query, variables } }))

  const ok = async <T = any>(response: Promise<JsonResponse<T>>, what: string) => {
    const res = await response
    if (res.status !== 200) throw new Error(`could not ${what}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body
  }

  /** A user created through getOrCreateUser, with its key. */
  const user = async (id: string, profile: { name?: string; pictureUrl?: string; profile?: string } = {}) => {
    const key = await keyFor(id)
    const { user } = await ok(chat('POST', '/users/get-or-create', { key, body: profile }), `create user ${id}`)
    return { id, key, user }
  }

  /** A conversation created by `owner` (a key), with the given extra participants (user ids). */
  const conversation = async (ownerKey: string, id?: string, participants: string[] = []) => {
    const body = id === undefined ? {} : { id }
    const conversationId: string = (await ok(chat('POST', '/conversations', { key: ownerKey, body }), 'create a conversation')).conversation.id
    for (const userId of participants) {
      await ok(chat('POST', `/conversations/${conversationId}/participants`, { key: ownerKey, body: { userId } }), `add ${userId}`)
    }
    return conversationId
  }

  /** alice's conversation c1 with `members` in it, and `others`, users outside it, with the profiles given. */
  const c1 = async <const M extends string = never, const O extends string = never>({
    members = [],
    others = [],
    profiles = {},
  }: {
    members?: M[]
    others?: O[]
    profiles?: Partial<Record<string, { name?: string }>>
  } = {}) => {
    const actors: Record<string, Awaited<ReturnType<typeof user>>> = {}
    for (const id of ['alice', ...members, ...others]) actors[id] = await user(id, profiles[id])
    await conversation(actors.alice!.key, 'c1', members)
    return actors as Record<'alice' | M | O, Awaited<ReturnType<typeof user>>>
  }

  /** A message posted by `key` through createMessage, as the API returned it. */
  const message = async (key: string, conversationId: string, payload: object = { type: 'text', text: 'hi' }, metadata?: object) =>
    (await ok(chat('POST', '/messages', { key, body: { conversationId, payload, ...(metadata && { metadata }) } }), 'post a message')).message as {
      id: string
      createdAt: string
      payload: any
      userId: string
      conversationId: string
      metadata?: any
    }

  /** A custom event created by `key` through createEvent, as the API returned it. */
  const event = async (key: string, conversationId: string, payload: object = { kind: 'typing' }) =>
    (await ok(chat('POST', '/events', { key, body: { conversationId, payload } }), 'create an event')).event as {
      id: string
      createdAt: string
      payload: any
    }

  /** The ids of a conversation's participants, in the order listParticipants gives them. */
  const participantIds = async (key: string, conversationId: string): Promise<string[]> =>
    (await ok(chat('GET', `/conversations/${conversationId}/participants`, { key }), 'list participants')).participants.map((p: { id: string }) => p.id)

  /** The ids of a conversation's messages, newest first (the first page). */
  const messageIds = async (key: string, conversationId: string): Promise<string[]> =>
    (await ok(chat('GET', `/conversations/${conversationId}/messages`, { key }), 'list messages')).messages.map((m: { id: string }) => m.id)

  /** The caller as getUser returns it. */
  const me = async (key: string) => (await ok(chat('GET', '/users/me', { key }), 'get the user')).user

  /** A count read straight from the database, for side effects the API does not show (`?` placeholders). */
  const count = async (sql: string, ...params: unknown[]) => Number((await engine.query<{ n: number }>(sql, ...params))[0]?.n)

  /** Rows of a raw SQL query on the database (`?` placeholders; columns as the database names them). */
  const query = engine.query

  /** How many rows each chat table holds: what a refused request must leave as it was. */
  const rows = async () => {
    const tables = ['users', 'conversations', 'participants', 'messages', 'events']
    return Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await count(`select count(*) as n from ${table}`)])))
  }

  /** Adds the second chat integration of `OTHER`, with its own bot, users and keys. */
  const otherTenant = async () => {
    await createTenant(store, { ...OTHER, botName: 'Other bot', botHandler: 'echo' })
    return {
      keyFor: (userId: string) => signUserKey(userId, OTHER.encryptionKey),
      chat: async <T = any>(method: string, path: string, options: RequestOptions = {}) =>
        toJson<T>(await send(method, `${BASE}/${OTHER.webhookId}${path}`, options)),
      graphql: async <T = any>(query: string, variables: Record<string, unknown> = {}, options: { key?: string } = {}) =>
        toJson<T>(await send('POST', `${BASE}/${OTHER.webhookId}/graphql`, { ...options, body: { query, variables } })),
    }
  }

  return {
    app,
    store,
    engine,
    db,
    tables,
    ready,
    count,
    query,
    rows,
    otherTenant,
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
    c1,
    message,
    event,
    participantIds,
    messageIds,
    me,
    close: async () => {
      await ready.catch(() => undefined)
      await app.close()
      await engine.dispose()
    },
  }
}

export type TestApp = ReturnType<typeof createTestApp>
export type TestAppOptions = Parameters<typeof createTestApp>[0]
export type Actor = Awaited<ReturnType<TestApp['user']>>

/**
 * A fresh app for every test of the enclosing describe (made before each test, closed after it).
 * The object returned stands for the current test's app.
 */
export function useTestApp(options: TestAppOptions = {}): TestApp {
  let current: TestApp | undefined
  beforeEach(async () => {
    current = createTestApp(options)
    // The bootstrap commits asynchronously: a test may look at the tables before its first request.
    await current.ready
  })
  afterEach(async () => {
    await current?.close()
    current = undefined
  })
  return new Proxy({} as TestApp, {
    get(_target, name) {
      if (!current) throw new Error('the test app exists only while a test runs')
      return current[name as keyof TestApp]
    },
  })
}

/** The error body of the contract, with any request id (`err_` and the request id). */
export const errorBody = (code: number, type: string) => ({
  id: expect.stringMatching(/^err_/),
  code,
  type,
  message: expect.any(String),
})

/**
 * alice's conversation c1 with `members` in it, and `others`, users outside it, made before each
 * test of the enclosing describe (after its app), with the profiles given. The object returned
 * maps each user id to the current test's user.
 */
export function useC1<const M extends string = never, const O extends string = never>(
  t: TestApp,
  { members = [], others = [], profiles = {} }: { members?: M[]; others?: O[]; profiles?: Partial<Record<string, { name?: string }>> } = {},
): Record<'alice' | M | O, Actor> {
  let actors: Record<string, Actor> = {}
  beforeEach(async () => {
    actors = await t.c1({ members, others, profiles })
  })
  return new Proxy({} as Record<'alice' | M | O, Actor>, {
    get(_target, id) {
      const actor = actors[id as string]
      if (!actor) throw new Error(`no user ${String(id)} in this test`)
      return actor
    },
  })
}
