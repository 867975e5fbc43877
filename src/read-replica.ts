// A read replica: the app on a worker thread, over its own read-only connection to the SQLite file,
// serving the reads the main thread hands it (http/read-replicas.ts).
import { parentPort, workerData } from 'node:worker_threads'
import * as fetchAPI from '@whatwg-node/fetch'
import { createApp } from './app.ts'
import { defaultLimits } from './config.ts'
import { loadCompiler } from './graphql/compiled-execution.ts'
import { ReplicaStore } from './db/sqlite/replica-store.ts'
import type { ForwardedRequest, ReplicaAnswer, ReplicaRequest, ReplicaSetup } from './http/read-replicas.ts'
import { inProcessPeer } from './http/peer.ts'
import { labelsOf } from './http/request-labels.ts'
import { createLogger } from './logger.ts'

const port = parentPort
if (!port) throw new Error('read-replica.ts runs as a worker thread (http/read-replicas.ts starts it)')
const { source, logLevel, corsOrigins, publicUrl, trustProxy, responseMaxBytes, rateLimits, nonParticipantStatus } = workerData as ReplicaSetup

// A request the replica may not serve (graphql/replica-reads.ts), or that turns out to write (its
// write refused before anything was written), is served again by the main thread. So is every
// request under way beside it, which costs them nothing but a second read, where telling them apart
// would cost every request.
let handedBack = 0
const thread = { handBack: () => void handedBack++ }
const store = new ReplicaStore(source, thread.handBack)
const caps = { ...defaultLimits, responseMaxBytes: responseMaxBytes ?? defaultLimits.responseMaxBytes }
const app = createApp({ store, log: createLogger(logLevel), corsOrigins, publicUrl, trustProxy, caps, rateLimits, nonParticipantStatus, replica: thread })

/**
 * The Request whatwg-node makes on the main thread, of the same URL (its rule: the Host header, else
 * the local address), headers and body; with no abort signal, as the main thread answers for the socket.
 */
function requestOf({ method, url, headers, body, socket }: ForwardedRequest): Request {
  // An empty Host is none (`||`, as whatwg-node reads it): `http:///x/y` would make `x` the host.
  const host = headers.host || (socket.localAddress ? `${socket.localAddress}:${socket.localPort ?? 80}` : 'localhost')
  const init: RequestInit = { method, headers: headers as Record<string, string> }
  if (body) init.body = body as Uint8Array<ArrayBuffer>
  return new fetchAPI.Request(`${socket.encrypted ? 'https' : 'http'}://${host}${url}`, init)
}

async function serve({ id, request }: ReplicaRequest): Promise<ReplicaAnswer> {
  const handedBackBefore = handedBack
  try {
    const response = await app.fetch(requestOf(request), request.socket.remoteAddress ? { address: request.socket.remoteAddress } : inProcessPeer)
    const body = await response.text()
    if (handedBack !== handedBackBefore) return { id }
    // Its length, as whatwg-node would send it: the main thread writes the head before the body. Sent
    // whole, it is no longer chunked: yoga's multipart answer says `Transfer-Encoding: chunked`, and a
    // head with both is one no HTTP client may read (node's refuses it).
    response.headers.delete('transfer-encoding')
    response.headers.delete('connection')
    if (!response.headers.has('content-length')) response.headers.set('content-length', String(Buffer.byteLength(body)))
    return { id, status: response.status, headers: [...response.headers].flat(), body, labels: labelsOf(response) }
  } catch {
    // The app answers its own errors: this is the replica failing. The main thread serves it instead.
    return { id }
  }
}

port.on('message', (message: ReplicaRequest | 'close') => {
  if (message === 'close') {
    void app
      .close()
      .then(() => store.close())
      .finally(() => port.close())
    return
  }
  void serve(message).then((answer) => port.postMessage(answer))
})
// Ready once its reads run compiled: until then the main thread, where they already do, serves them
// (a replica started under load would otherwise interpret hundreds while graphql-jit loads).
void loadCompiler()
  .catch(() => undefined)
  .then(() => port.postMessage('ready'))
