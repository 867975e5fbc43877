import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { SignalListener, Signals } from '@botpress/chat'
import pino from 'pino'
import { nodeListener } from '../../src/http/node-listener.ts'
import { createTestApp, WEBHOOK_ID } from './app.ts'

export type ListeningOptions = Parameters<typeof createTestApp>[0]

/**
 * The harness app behind a real HTTP server on a free port of 127.0.0.1, mounted exactly as
 * src/main.ts mounts it, for clients that only speak HTTP (the official @botpress/chat client).
 */
export async function startListening(options: ListeningOptions = {}) {
  const t = createTestApp(options)
  if (!t.tenant) throw new Error('the harness database was not bootstrapped')
  const server = createServer(nodeListener(t.app.fetch, pino({ level: 'silent' })))
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
    // Streams end first, then every connection goes (kept-alive ones included), and the database
    // is closed once nothing can reach it any more.
    await t.app.close()
    server.closeAllConnections()
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
    await t.close()
  }

  return { t, server, baseUrl, apiUrl: `${baseUrl}/${WEBHOOK_ID}`, botId: t.tenant.botId, close }
}

export type Listening = Awaited<ReturnType<typeof startListening>>

export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

export type SignalType = Exclude<keyof Signals, 'unknown'>

/** A signal as the official client hands it to its listeners: the event name and its data. */
export type ReceivedSignal = { [K in SignalType]: { type: K; data: Signals[K] } }[SignalType]

export const SIGNAL_TYPES: readonly SignalType[] = [
  'message_created',
  'message_deleted',
  'event_created',
  'participant_added',
  'participant_removed',
]

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
  return { received, unknown, pings, errors }
}
