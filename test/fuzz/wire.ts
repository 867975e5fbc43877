import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pino } from 'pino'
import { expect } from 'vitest'
import { SqliteStore } from '../../src/db/sqlite/store.ts'
import { nodeListener } from '../../src/http/node-listener.ts'
import { ReadReplicas } from '../../src/http/read-replicas.ts'
import { refuseOffTheApp } from '../../src/http/wire-refusals.ts'
import type { TestApp } from '../helpers/app.ts'
import { eventually } from '../helpers/wait.ts'
import { bodyBytes, type HostileRequest, type Received } from './http.ts'

/**
 * The fuzzed app behind a real HTTP server, mounted as src/server.ts mounts it, with a read replica
 * on SQLite (the main thread's dispatch to it is where `GET //` failed). Every answer is read by
 * node's own client, whose parser is strict: a response it cannot parse (Content-Length beside
 * Transfer-Encoding, a broken chunk) fails the exchange instead of passing unseen.
 */
export async function serveOverTheWire(t: TestApp) {
  const log = pino({ level: 'silent' })
  const replicas = t.store instanceof SqliteStore ? new ReadReplicas({ count: 1, source: t.store.replicaSource, corsOrigins: [], log }) : undefined
  const server = createServer(nodeListener(t.app.fetch, { log, replicable: t.app.replicable, replicas }))
  t.app.attach(server)
  refuseOffTheApp(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  const send = (request: HostileRequest) => exchangeOverTheWire(port, request)

  /** Waits until the replica serves reads (it compiles the app from src/ first: seconds). */
  const warm = async (read: HostileRequest) => {
    if (!replicas) return
    await eventually(async () => {
      await send(read)
      expect(replicas.ready).toBe(1)
    }, 60_000)
  }

  const close = async () => {
    await replicas?.close()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return { port, send, warm, replicas, close }
}

const streaming = /^(text\/event-stream|multipart\/mixed)/i

/** A Content-Length claiming more than the body has: an oversize body the server must refuse on sight. */
const declaresMore = (value: string, body: Uint8Array | undefined) => /^\d{1,15}$/.test(value) && Number(value) > (body?.byteLength ?? 0)

/** How long an answer may take before the exchange fails as unanswered (a hang is a finding too). */
const answerTimeoutMs = 30_000

/**
 * One request on a connection of its own, its target and headers exactly as given. A live stream's
 * body is not waited for. A Content-Length the fuzzer made up is left out (on the wire it would frame
 * the next request; node's server refuses a malformed one before the app sees it), unless it claims
 * more than the body holds, which the server must refuse without waiting for the rest.
 */
function exchangeOverTheWire(port: number, request: HostileRequest): Promise<Received> {
  const body = bodyBytes(request.body)
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(request.headers).filter(([name, value]) => name.toLowerCase() !== 'content-length' || declaresMore(value, body)),
  )
  // Framed as fetch frames it: node's client sends a DELETE's or OPTIONS' body unframed otherwise.
  if (body && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length')) headers['content-length'] = String(body.byteLength)
  return new Promise<Received>((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: request.method, path: request.target, headers, agent: false, insecureHTTPParser: false },
      (res) => {
        const received = new Headers()
        for (const [name, value] of Object.entries(res.headers)) {
          for (const one of Array.isArray(value) ? value : [value ?? '']) received.append(name, one)
        }
        const status = res.statusCode ?? 0
        if (status < 300 && streaming.test(res.headers['content-type'] ?? '')) {
          res.destroy()
          resolve({ status, headers: received })
          return
        }
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.once('end', () => resolve({ status, headers: received, text: Buffer.concat(chunks).toString('utf8') }))
        res.once('error', reject)
      },
    )
    // After the answer, the server may stop reading an oversize body: the client then fails to write it.
    req.once('error', (error) => reject(new Error(`no answer the client could read: ${error.message}`)))
    req.setTimeout(answerTimeoutMs, () => req.destroy(new Error(`no answer in ${answerTimeoutMs / 1000} s`)))
    req.end(body)
  })
}
