import type { IncomingMessage, ServerResponse } from 'node:http'
import { createServerAdapter, sendNodeResponse } from '@whatwg-node/server'
import type { Logger } from 'pino'
import { defaultLimits } from '../config.ts'
import { onlyQueries } from '../graphql/replica-reads.ts'
import { parsedUrl, type Replicable } from './mounts.ts'
import { type Peer, peerOf } from './peer.ts'
import { labelsOf, type RequestLabels } from './request-labels.ts'
import type { ReadReplicas } from './read-replicas.ts'
import { eventStreamOutlet, type SendQueue, SendQueues } from './send-queue.ts'
import { takeOverEventStream } from './sse.ts'
import { tracing } from '../tracing/tracing.ts'

// The content type first: asking a string body for its stream makes it copy itself into a buffer.
const isEventStream = (response: Response) => (response.headers.get('content-type') ?? '').startsWith('text/event-stream') && response.body !== null

/**
 * Writes an event stream through its send queue: one of SseStreams straight to the socket, any other
 * (yoga's, graphql-sse's) read as fast as it comes. whatwg-node pumps a streamed body by a recursion
 * through promises in which each chunk's promise is resolved with the next one's, so a stream holds
 * every chunk's promises until it ends: about 115 bytes a chunk, which for 10,000 listeners and a
 * heartbeat every 2 seconds is 2 GB an hour.
 */
async function sendEventStream(response: Response, req: IncomingMessage, res: ServerResponse, queues: SendQueues, log: Logger): Promise<void> {
  // As whatwg-node does for a streamed body: no idle timeout, no Nagle delay, TCP keep-alive.
  req.socket.setTimeout(0)
  req.socket.setNoDelay(true)
  req.socket.setKeepAlive(true)
  res.writeHead(response.status, response.statusText, [...response.headers].flat())
  const queue = queues.open(eventStreamOutlet(res))
  res.once('close', () => queue.close())
  queue.onDrop(() => log.info({ requestId: response.headers.get('x-request-id'), stream: 'dropped' }, 'event stream dropped: its client reads too slowly'))
  const close = takeOverEventStream(response, { write: (chunk) => void queue.send(chunk), end: () => res.end() })
  if (close) {
    res.once('close', close)
    queue.onDrop(close)
  } else await relay((response.body as ReadableStream<Uint8Array>).getReader(), res, queue)
}

/**
 * Copies a body to the response until either ends (holding nothing of the Response meanwhile). It
 * reads as fast as the body comes, not as fast as the client reads: what the client has not taken
 * waits in the send queue, which drops the stream once that is over its mark, rather than in what
 * feeds the body (graphql-sse's queue of messages, which has no bound).
 */
async function relay(reader: ReadableStreamDefaultReader<Uint8Array>, res: ServerResponse, queue: SendQueue): Promise<void> {
  // The client going away cancels the body, which ends what feeds it (and settles a pending read).
  const cancel = () => void reader.cancel().catch(() => {})
  res.once('close', cancel)
  queue.onDrop(cancel)
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done || res.destroyed || !queue.send(value)) break
    }
  } finally {
    res.end()
  }
}

/** A GraphQL body read to tell whether it holds queries only; a larger one is served here (whatwg-node would copy it). */
const classifiedBodyLimit = 16 * 1024

/** The body of a request that declares a JSON body of a size worth reading before deciding where to serve it. */
function classifiable(req: IncomingMessage): boolean {
  const length = Number(req.headers['content-length'])
  return length > 0 && length <= classifiedBodyLimit && (req.headers['content-type'] ?? '').includes('json')
}

/** The whole body (events rather than an async iterator: a small body comes in one chunk). */
const readAll = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)))
    req.once('error', reject)
    req.once('aborted', () => reject(new Error('the client went away')))
  })

/**
 * What the main thread checks before a read replica serves a request, and hears of its answer: the
 * replicas count nothing (their counters would be their own), so whatever a rate limit counts is
 * served here, and a replica's 401 is counted here as a failed authentication.
 */
export interface ReplicaAdmission {
  admits(peer: Peer, headers: Headers): boolean
  answered(peer: Peer, headers: Headers, status: number): void
}

export interface ListenerOptions {
  log: Logger
  /** Whether a read replica may serve a request (App.replicable). */
  replicable?: (method: string, pathname: string) => Replicable
  replicas?: ReadReplicas
  /**
   * Admits an event stream the app answered with (App.admitStream): the release of its slot, called
   * once the response is over, or the refusal to send instead (the stream already cancelled).
   */
  admitStream?: (req: IncomingMessage, response: Response) => (() => void) | Response | undefined
  admission?: ReplicaAdmission
  /**
   * Told of every request answered, here or by a replica (metrics): its labels, its status, and the
   * seconds to its whole answer (to its head, for an event stream).
   */
  observe?: Observe
  /** Told when an event stream starts to be written; what it returns is called once it has ended. */
  streamOpened?: () => () => void
  /** The send queues event streams are written through (App.sendQueues); one of the default mark when absent. */
  sendQueues?: SendQueues
  /** Whether a request's `traceparent` is continued (TRACE_PARENT_TRUST); never when absent: each request starts a trace. */
  continuesTrace?: (req: IncomingMessage) => boolean
}

type Observe = (labels: RequestLabels | undefined, status: number, seconds: number) => void

/** The headers the admission reads (a Headers of all of them would cost every replicated read a copy). */
const admissionHeaders = (req: IncomingMessage): Headers => {
  const headers = new Headers()
  for (const name of ['x-user-key', 'x-forwarded-for']) {
    const value = req.headers[name]
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
  }
  return headers
}

/**
 * The node:http request listener of a fetch function: whatwg-node's adapter, but with event streams
 * written without its per-chunk leak (see sendEventStream), and reads handed to the read replicas
 * when there are some: a GET the app calls a read, or a GraphQL POST whose body holds queries only.
 */
export function nodeListener(
  fetch: (request: Request, peer: Peer) => Promise<Response>,
  {
    log,
    replicable,
    replicas,
    admitStream,
    admission,
    observe,
    streamOpened,
    sendQueues = new SendQueues(defaultLimits.sendQueueBytes),
    continuesTrace = () => false,
  }: ListenerOptions,
) {
  // whatwg-node hands a node request's own `req` to the fetch function as its server context.
  const adapter = createServerAdapter<{ req?: IncomingMessage }>((request, context) => fetch(request, peerOf(context.req)))

  const serveHere = async (req: IncomingMessage, res: ServerResponse, began: number, observe: Observe | undefined) => {
    // The node request as the server context: the fetch function reads its peer from it.
    const response = await adapter.handleNodeRequestAndResponse(req, res, { req })
    const answered = (sent: Response) => observe?.(labelsOf(response), sent.status, (performance.now() - began) / 1000)
    if (!isEventStream(response)) {
      await sendNodeResponse(response, res, req, true)
      return answered(response)
    }
    const admitted = admitStream?.(req, response)
    if (typeof admitted === 'object') {
      await sendNodeResponse(admitted, res, req, true)
      return answered(admitted)
    }
    // 'close' comes once the response has ended or the connection has gone, whichever is first (or
    // came already, when the client left while the stream was being made).
    if (admitted && (res.destroyed || !res.socket || res.socket.destroyed)) admitted()
    else if (admitted) res.once('close', admitted)
    answered(response)
    if (streamOpened) res.once('close', streamOpened())
    await sendEventStream(response, req, res, sendQueues, log)
  }

  /** True once a replica has answered; otherwise the request is the caller's, its body (if read) on `req.body`. */
  const onReplica = async (req: IncomingMessage, res: ServerResponse, began: number, observe: Observe | undefined): Promise<boolean> => {
    if (!replicas || !replicable) return false
    // The path as the app will read it (node's adapter puts the target after the Host, and `//` is a
    // path there, not the start of an authority); a target that makes no URL is refused by the app.
    const url = parsedUrl(`http://confab${req.url ?? '/'}`)
    if (!url) return false
    const where = replicable(req.method ?? 'GET', url.pathname)
    if (where === false) return false
    if (!admission) return onReplicaAdmitted(req, res, where, began, observe)
    const peer = peerOf(req)
    const headers = admissionHeaders(req)
    if (!admission.admits(peer, headers)) return false
    const answered = await onReplicaAdmitted(req, res, where, began, observe)
    if (answered) admission.answered(peer, headers, res.statusCode)
    return answered
  }

  const onReplicaAdmitted = async (
    req: IncomingMessage,
    res: ServerResponse,
    where: Replicable,
    began: number,
    observe: Observe | undefined,
  ): Promise<boolean> => {
    if (!replicas) return false
    const labelled = observe && ((labels: RequestLabels | undefined) => observe(labels, res.statusCode, (performance.now() - began) / 1000))
    if (where === true)
      return !(Number(req.headers['content-length']) > 0) && !req.headers['transfer-encoding'] && replicas.answer(req, res, undefined, labelled)
    if (where !== 'if-query' || !classifiable(req)) return false
    let body: Buffer
    try {
      body = await readAll(req)
    } catch {
      // In the middle of its body: nobody is left to answer, and nothing went wrong here.
      log.debug('the client went away before its answer')
      res.destroy()
      return true
    }
    // whatwg-node makes its Request of a body already read (as frameworks with a body parser leave it).
    ;(req as IncomingMessage & { body?: Buffer }).body = body
    return onlyQueries(body) && replicas.answer(req, res, body, labelled)
  }

  const serve = async (req: IncomingMessage, res: ServerResponse, observe: Observe | undefined) => {
    try {
      const began = performance.now()
      if (!(await onReplica(req, res, began, observe))) await serveHere(req, res, began, observe)
    } catch (error) {
      // The app answers its own errors; this is the adapter or the socket failing.
      log.error({ err: error }, 'a response could not be sent')
      if (!res.headersSent) res.writeHead(500)
      res.end()
    }
  }

  return (req: IncomingMessage, res: ServerResponse): void => {
    const traces = tracing()
    if (!traces) return void serve(req, res, observe)
    // Named once answered, by the route's pattern (never the path, which holds ids); a live stream's span lasts as long as the stream.
    const method = req.method ?? 'GET'
    const continues = continuesTrace(req) ? req.headers : undefined
    void traces.inSpan(method, { kind: 'server', root: !continues, continues, attributes: { 'http.request.method': method } }, (span) =>
      serve(req, res, (labels, status, seconds) => {
        observe?.(labels, status, seconds)
        span.updateName(`${method} ${labels?.route ?? labels?.operation ?? '(unknown)'}`)
        span.setAttribute('http.response.status_code', status)
        if (labels?.route) span.setAttribute('http.route', labels.route)
        if (labels) {
          span.setAttribute('confab.transport', labels.transport)
          span.setAttribute('confab.operation', labels.operation)
        }
        if (status >= 500) traces.fail(span, `HTTP ${status}`)
      }),
    )
  }
}
