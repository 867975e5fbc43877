import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type AuthenticatedClient, Client, type SignalListener, type Signals } from '@botpress/chat'
import { Client as AdminClient } from '@botpress/client'
import { jwtVerify, SignJWT } from 'jose'
import pino from 'pino'
import { afterEach, beforeEach, expect } from 'vitest'
import { nodeListener } from '../../src/http/node-listener.ts'
import { ADMIN_TOKEN, createTestApp, ENCRYPTION_KEY, type TestApp, type TestAppOptions, WEBHOOK_ID, WORKSPACE_ID } from './app.ts'

/**
 * An app behind a real HTTP server on a free port of 127.0.0.1, mounted exactly as src/main.ts
 * mounts it (WebSockets included), for clients that only speak HTTP.
 */
export async function serve(t: TestApp, server = createServer(nodeListener(t.app.fetch, { log: pino({ level: 'silent' }), sendQueues: t.app.sendQueues }))) {
  t.app.attach(server)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  const baseUrl = `http://127.0.0.1:${port}`
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    // Streams end first, then every connection goes (kept-alive ones included).
    await t.app.close()
    server.closeAllConnections()
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
  }
  return { server, port, baseUrl, apiUrl: `${baseUrl}/${WEBHOOK_ID}`, wsUrl: `ws://127.0.0.1:${port}`, close }
}

export type Served = Awaited<ReturnType<typeof serve>>

/** A fresh app of its own behind a real HTTP server (for a page in a browser); close ends both. */
export async function startListening(options: TestAppOptions = {}) {
  const t = createTestApp(options)
  // The bootstrap's unit first: on PostgreSQL a test's own writes would not queue behind it.
  await t.ready
  const served = await serve(t)
  if (!t.tenant) throw new Error('the test database was not bootstrapped')
  return { ...served, t, botId: t.tenant.botId, close: () => served.close().then(() => t.close()) }
}

export type Listening = Awaited<ReturnType<typeof startListening>>

/** The official @botpress/client against `s`, as the bootstrap workspace's operator. */
export const adminClientOf = (s: Listening) => new AdminClient({ apiUrl: s.baseUrl, token: ADMIN_TOKEN, workspaceId: WORKSPACE_ID })

/** A listening app for each test of the file, closed after it: `started` receives it and an admin client of it. */
export function eachListening(started: (s: Listening, admin: AdminClient) => void) {
  let s: Listening | undefined
  beforeEach(async () => {
    s = await startListening()
    started(s, adminClientOf(s))
  })
  afterEach(() => s?.close())
}

export type SignalType = Exclude<keyof Signals, 'unknown'>

/** A signal as the official client hands it to its listeners: the event name and its data. */
export type ReceivedSignal = { [K in SignalType]: { type: K; data: Signals[K] } }[SignalType]

export const SIGNAL_TYPES: readonly SignalType[] = ['message_created', 'message_deleted', 'event_created', 'participant_added', 'participant_removed']

/** The keep-alive data message; the official client reports it as an `unknown` signal. */
export const PING = JSON.stringify({ type: 'ping', data: {} })

/**
 * Everything an official-client listener emits, in order: the five signals, whatever it could not
 * parse as one of them (pings aside), and its errors.
 */
export function recordSignals(listener: SignalListener) {
  const received: ReceivedSignal[] = []
  const unknown: unknown[] = []
  const pings: unknown[] = []
  const errors: Error[] = []
  for (const type of SIGNAL_TYPES) {
    listener.on(type, (data) => received.push({ type, data } as ReceivedSignal))
  }
  listener.on('unknown', (data) => (data === PING ? pings : unknown).push(data))
  listener.on('error', (error) => errors.push(error))
  return { listener, received, unknown, pings, errors }
}

/** A user as the API returns it: the official client's `user` without its key. */
export const withoutKey = ({ key: _, ...user }: AuthenticatedClient['user']) => user

/** A user key signed with `secret` (the integration's encryption key by default). */
export const sign = (claims: Record<string, unknown>, secret = ENCRYPTION_KEY) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret))

export async function verifiedClaims(key: string) {
  const { payload, protectedHeader } = await jwtVerify(key, new TextEncoder().encode(ENCRYPTION_KEY))
  return { alg: protectedHeader.alg, id: payload.id }
}

type ErrorClass = abstract new (...args: never[]) => Error

/** The call fails with this typed error of the client, carrying the API's code, type and request id. */
export async function expectApiError(call: Promise<unknown>, ErrorClass: ErrorClass, code: number, type: string) {
  const error: unknown = await call.then(
    (value) => {
      throw new Error(`expected ${type}, got ${JSON.stringify(value)}`)
    },
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(ErrorClass)
  expect(error).toMatchObject({ code, type, isApiError: true, id: expect.stringMatching(/.+/) })
}

/**
 * The official @botpress/chat client against `t` served over HTTP, for every test of the enclosing
 * describe; the listeners it opens are disconnected after each test.
 */
export function useOfficialClient(t: TestApp) {
  let served: Served | undefined
  const listeners: SignalListener[] = []
  beforeEach(async () => {
    served = await serve(t)
  })
  afterEach(async () => {
    for (const listener of listeners.splice(0)) await listener.disconnect()
    await served?.close()
    served = undefined
  })
  const current = () => {
    if (!served) throw new Error('the server exists only while a test runs')
    return served
  }
  return {
    get apiUrl() {
      return current().apiUrl
    },
    get baseUrl() {
      return current().baseUrl
    },
    /** A user signing its own key with the integration's encryption key (getOrCreateUser). */
    connect: (userId: string) => Client.connect({ apiUrl: current().apiUrl, userId, encryptionKey: ENCRYPTION_KEY }),
    /** The client without a user, for the operations that take no key or an explicit one. */
    bare: () => new Client({ apiUrl: current().apiUrl }),
    /** The users of these ids, connected; the first creates the conversation and adds the others. */
    async inConversation<const Ids extends string[]>(conversationId: string, ...userIds: Ids) {
      const clients: AuthenticatedClient[] = []
      for (const userId of userIds) clients.push(await Client.connect({ apiUrl: current().apiUrl, userId, encryptionKey: ENCRYPTION_KEY }))
      const [owner, ...others] = clients as [AuthenticatedClient, ...AuthenticatedClient[]]
      await owner.createConversation({ id: conversationId })
      for (const other of others) await owner.addParticipant({ conversationId, userId: other.user.id })
      return clients as { [K in keyof Ids]: AuthenticatedClient }
    },
    /** A conversation of `owner` with the given participants added. */
    async conversationOf(owner: AuthenticatedClient, id: string, ...others: AuthenticatedClient[]) {
      const { conversation } = await owner.createConversation({ id })
      for (const other of others) await owner.addParticipant({ conversationId: id, userId: other.user.id })
      return conversation
    },
    /** A listener of the conversation, recording what it hears. */
    async listen(client: AuthenticatedClient, conversationId: string) {
      const listener = await client.listenConversation({ id: conversationId })
      listeners.push(listener)
      return recordSignals(listener)
    },
  }
}
