import { randomUUID } from 'node:crypto'
import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { requestTimeoutMessage } from '../graphql/errors.ts'
import { errorId } from './responses.ts'

/** A refusal written straight to the socket, in the contract's error body, and the connection closed. */
function refuse(socket: Duplex, status: number, reason: string, type: string, message: string, { extra = '', head = false } = {}): void {
  if (!socket.writable) return void socket.destroy()
  const requestId = randomUUID()
  const body = JSON.stringify({ id: errorId(requestId), code: status, type, message })
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\n${extra}connection: close\r\n\r\n${head ? '' : body}`,
  )
}

/** The answer node made for the request a socket is serving, and that request. */
interface InFlight {
  headersSent: boolean
  req?: IncomingMessage
}

/**
 * A request whose body was still arriving when HTTP_REQUEST_TIMEOUT_SECONDS ran out: the app is
 * reading it. It is answered 408 here, in the contract's error body (the app can no longer answer on a
 * connection whose request never ends), and the app's read of the body then fails with node's
 * ERR_HTTP_REQUEST_TIMEOUT, which the one error path tells as that same 408 (graphql/errors.ts): the
 * access log and the metrics say 408, not 500. False when there is no such request.
 */
function bodyTimedOut(socket: Duplex & { _httpMessage?: InFlight | null }, error: Error): boolean {
  const answer = socket._httpMessage
  const req = answer?.req
  // Node hands a kept-alive socket to the next answer only once the one before has been written whole:
  // an answer with nothing sent yet may follow earlier ones on the connection, not cut into them.
  if (!answer || !req || req.complete || answer.headersSent || !socket.writable) return false
  refuse(socket, 408, 'Request Timeout', 'InvalidPayload', requestTimeoutMessage)
  // Once the 408 has left (or at once, when it cannot be written), the request's body fails with the timeout.
  const fail = () => void req.destroy(error)
  if (socket.destroyed || socket.writableFinished) fail()
  else {
    socket.once('finish', fail)
    socket.once('close', fail)
  }
  return true
}

/**
 * What node's HTTP server answers before the app sees a request, in the contract's error body rather
 * than node's bare status line: a request it cannot parse (400), headers over its limit (431), one
 * too slow to arrive (408, as node), and a CONNECT (405; node would close the connection without a word).
 */
export function refuseOffTheApp(server: Server): void {
  server.on(
    'clientError',
    (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex & { bytesWritten?: number; _httpMessage?: InFlight | null }) => {
      // Bytes after a request that said `Connection: close` (the rest of a body the app refused
      // unread): its answer is under way, and ends the connection.
      if (error.code === 'HPE_CLOSED_CONNECTION' && socket._httpMessage) return
      if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && bodyTimedOut(socket, error)) return
      // A connection closed or timed out while idle has no request to answer; nor has one whose answer
      // has begun (a second answer after it would be read as garbage), which node would end the same way.
      if (error.code === 'ECONNRESET' || !socket.writable || socket._httpMessage || (socket.bytesWritten ?? 0) > 0) return void socket.destroy()
      // The answer to a HEAD has no body (its client would read one as the start of a next answer).
      const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD '
      if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return refuse(socket, 408, 'Request Timeout', 'InvalidPayload', 'the request did not arrive in time')
      if (error.code === 'HPE_HEADER_OVERFLOW') {
        return refuse(socket, 431, 'Request Header Fields Too Large', 'PayloadTooLarge', 'the request headers are over the size limit', { head })
      }
      refuse(socket, 400, 'Bad Request', 'InvalidPayload', `the request is not valid HTTP/1.1 (${error.code ?? 'parse error'})`, { head })
    },
  )
  server.on('connect', (_request, socket: Duplex) =>
    refuse(socket, 405, 'Method Not Allowed', 'MethodNotFound', 'CONNECT is not served: Confab is no proxy', { extra: 'allow: GET, POST\r\n' }),
  )
}
