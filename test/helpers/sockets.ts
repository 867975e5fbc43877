import { request as httpRequest, type IncomingMessage } from 'node:http'
import WebSocket from 'ws'

/** A GraphQL WebSocket (graphql-transport-ws) spoken frame by frame, to see each refusal as it is sent. */
export interface RawSocket {
  ws: WebSocket
  /** Every message the server sent, parsed. */
  messages: { id?: string; type: string; payload?: any }[]
  /** Resolves with the close code and reason, whoever closed. */
  closed: Promise<{ code: number; reason: string }>
  /** The first message (from now or already received) that `matches`; rejects if the socket closes first. */
  next(matches: (message: { id?: string; type: string; payload?: any }) => boolean): Promise<{ id?: string; type: string; payload?: any }>
  send(message: unknown): void
}

export function rawSocket(url: string, { localAddress }: { localAddress?: string } = {}): RawSocket {
  const ws = new WebSocket(url, 'graphql-transport-ws', { localAddress })
  const messages: RawSocket['messages'] = []
  const waiters = new Set<() => void>()
  let isClosed = false
  ws.on('message', (data) => {
    messages.push(JSON.parse(String(data)))
    for (const wake of waiters) wake()
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.once('close', (code, reason) => {
      isClosed = true
      for (const wake of waiters) wake()
      resolve({ code, reason: String(reason) })
    })
  })
  ws.on('error', () => {})
  const opened = new Promise<void>((resolve) => ws.once('open', () => resolve()))
  return {
    ws,
    messages,
    closed,
    send: (message) => void opened.then(() => ws.send(typeof message === 'string' ? message : JSON.stringify(message))),
    next: (matches) => firstMatching(messages, waiters, () => isClosed, matches, 'the socket closed'),
  }
}

/**
 * The first of `messages` that `matches`, heard already or to come (each arrival, and the end, call
 * the `waiters`); rejects, saying `ending`, once `ended()` and none did.
 */
export function firstMatching<T>(messages: T[], waiters: Set<() => void>, ended: () => boolean, matches: (message: T) => boolean, ending: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const found = messages.find(matches)
      if (found !== undefined) {
        waiters.delete(check)
        resolve(found)
      } else if (ended()) {
        waiters.delete(check)
        reject(new Error(`${ending} before the message awaited; got ${JSON.stringify(messages).slice(0, 2000)}`))
      }
    }
    waiters.add(check)
    check()
  })
}

/** A socket past connection_ack (or closed: then `acked` rejects). */
export async function connectedSocket(url: string, key: string | undefined, options: { localAddress?: string } = {}) {
  const socket = rawSocket(url, options)
  socket.send({ type: 'connection_init', payload: key === undefined ? {} : { 'x-user-key': key } })
  const acked = socket.next((m) => m.type === 'connection_ack')
  acked.catch(() => {})
  return { ...socket, acked }
}

/** A GET of an event stream over node:http (bound to `localAddress`): the response, once its headers came. */
export function openStream(
  url: string,
  { headers = {}, localAddress, method = 'GET', body }: { headers?: Record<string, string>; localAddress?: string; method?: string; body?: string } = {},
): Promise<{ response: IncomingMessage; text(): Promise<string>; close(): void }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers, localAddress, agent: false }, (response) => {
      resolve({
        response,
        text: () =>
          new Promise((done) => {
            let text = ''
            response
              .setEncoding('utf8')
              .on('data', (chunk: string) => (text += chunk))
              .once('end', () => done(text))
          }),
        close: () => request.destroy(),
      })
    })
    request.once('error', reject)
    request.end(body)
  })
}

/** The first chunk of a stream's body (an open event stream sends `: connected` at once). */
export const firstChunk = (response: IncomingMessage) =>
  new Promise<string>((resolve) => response.setEncoding('utf8').once('data', (chunk: string) => resolve(chunk)))
