import { connect, type Socket } from 'node:net'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultLimits } from '../../src/config.ts'
import { type ConfabServer, createServer } from '../../src/index.ts'
import { useBounded } from '../helpers/bounded.ts'
import { openStream } from '../helpers/sockets.ts'
import { eventually } from '../helpers/wait.ts'

// The HTTP server's timeouts (HTTP_HEADERS_TIMEOUT_SECONDS, HTTP_REQUEST_TIMEOUT_SECONDS) cut off a
// client that sends its request too slowly, and never a response that runs long, such as an event
// stream; HTTP_MAX_CONNECTIONS closes connections past the cap at once.

const headersTimeoutMs = 300
const requestTimeoutMs = 600

/** A raw connection to the server, with what it received and when it closed. */
function rawConnection(port: number) {
  const socket: Socket = connect(port, '127.0.0.1')
  let received = ''
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk))
  socket.on('error', () => {})
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()))
  return { socket, closed, connected, received: () => received }
}

/** Writes `text` a byte at a time, one every `everyMs`, until the socket closes: a client that never finishes. */
function dribble(socket: Socket, text: string, everyMs: number) {
  let i = 0
  const timer = setInterval(() => {
    if (socket.destroyed) return clearInterval(timer)
    socket.write(text[i % text.length] ?? ' ')
    i++
  }, everyMs)
  socket.once('close', () => clearInterval(timer))
}

/** A client that sends `head` at once, then `slow` a byte every 20 ms, never done: how long until the server cut it off, and what it answered. */
async function slowClient(port: number, head: string, slow: string) {
  const client = rawConnection(port)
  await client.connected
  const started = Date.now()
  client.socket.write(head)
  dribble(client.socket, slow, 20)
  await client.closed
  return { elapsed: Date.now() - started, received: client.received() }
}

describe('a slow client (HTTP_HEADERS_TIMEOUT_SECONDS, HTTP_REQUEST_TIMEOUT_SECONDS)', () => {
  const b = useBounded({ headersTimeoutMs, requestTimeoutMs }, { sseTiming: { commentIntervalMs: 50, pingIntervalMs: 1_000 } })

  it('sending its headers byte by byte, never finishing them, is answered 408 and cut off after the headers timeout', async () => {
    const client = await slowClient(b.current.port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')
    expect(client.elapsed).toBeGreaterThanOrEqual(headersTimeoutMs)
    expect(client.received).toMatch(/^HTTP\/1\.1 408 /)
  })

  it('sending its body byte by byte, never finishing it, is answered 408 and cut off after the request timeout', async () => {
    const head = 'POST /test-webhook/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{'
    const client = await slowClient(b.current.port, head, ' ')
    expect(client.elapsed).toBeGreaterThanOrEqual(requestTimeoutMs)
    expect(client.received).toMatch(/^HTTP\/1\.1 408 /)
  })

  it('does not cut an event stream that lasts longer than the request timeout', async () => {
    const alice = await b.current.t.user('alice')
    await b.current.t.conversation(alice.key, 'c1')
    const stream = await openStream(`${b.current.apiUrl}/conversations/c1/listen`, { headers: { 'x-user-key': alice.key } })
    expect(stream.response.statusCode).toBe(200)
    const opened = Date.now()
    let ended = false
    stream.response.once('close', () => (ended = true))
    // The stream's heartbeats (every 50 ms here) keep arriving well past both timeouts and Node's checks of them.
    await new Promise<void>((resolve) => {
      stream.response.on('data', () => {
        if (Date.now() - opened > 3 * requestTimeoutMs) resolve()
      })
    })
    expect(ended).toBe(false)
    // And the stream still carries what happens.
    const received = new Promise<string>((resolve) => {
      let text = ''
      stream.response.on('data', (chunk: Buffer | string) => {
        text += String(chunk)
        if (text.includes('message_created')) resolve(text)
      })
    })
    await b.current.t.message(alice.key, 'c1', { type: 'text', text: 'still here' })
    expect(await received).toContain('still here')
    stream.close()
  })
}, 30_000)

describe('the connection cap (HTTP_MAX_CONNECTIONS)', () => {
  const b = useBounded({ maxConnections: 2 })

  it('closes a connection past the cap at once, and serves one again when a connection goes', async () => {
    const first = rawConnection(b.current.port)
    const second = rawConnection(b.current.port)
    await Promise.all([first.connected, second.connected])
    // Each holds its connection with a request the server has begun to read.
    first.socket.write('GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n')
    second.socket.write('GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n')
    while (!first.received().includes('\r\n\r\n') || !second.received().includes('\r\n\r\n')) await new Promise((resolve) => setTimeout(resolve, 5))

    const third = rawConnection(b.current.port)
    await third.closed
    expect(third.received()).toBe('')

    first.socket.destroy()
    await first.closed
    for (;;) {
      const again = rawConnection(b.current.port)
      again.socket.write('GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')
      await again.closed
      if (again.received().startsWith('HTTP/1.1 200')) break
    }
    second.socket.destroy()
  })
})

describe('a slow request body through the real server (issue 49 row 16)', () => {
  const lines: Record<string, any>[] = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line))
      done()
    },
  })
  let confab: ConfabServer
  beforeAll(async () => {
    confab = await createServer({
      databaseUrl: ':memory:',
      log: pino({ level: 'info' }, sink),
      bootstrap: { webhookId: 'slow-bodies' },
      caps: { ...defaultLimits, headersTimeoutMs, requestTimeoutMs },
    })
  })
  afterAll(() => confab?.close())

  /**
   * Sends a request's head and then its body a byte at a time, never finishing it, on a connection
   * that first had a request answered (kept alive): what came back after that answer, once the server closed.
   */
  async function slowBody(path: string) {
    const client = rawConnection(Number(new URL(confab.url).port))
    await client.connected
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
    await eventually(() => expect(client.received()).toMatch(/^HTTP\/1\.1 200 [\s\S]*\{"status":"ok","version":"[^"]+"\}$/))
    const answered = client.received().length
    const started = Date.now()
    client.socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`)
    dribble(client.socket, ' ', 20)
    await client.closed
    return { received: client.received().slice(answered), elapsed: Date.now() - started }
  }

  it.each(['/slow-bodies/conversations', '/slow-bodies/graphql', '/v1/admin/bots'])(
    'POST %s: 408 in the contract error body after the request timeout, logged as 408 (not 500), no error logged',
    async (path) => {
      const { received, elapsed } = await slowBody(path)
      expect(elapsed).toBeGreaterThanOrEqual(requestTimeoutMs)
      const [head, body] = received.split('\r\n\r\n') as [string, string]
      expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/)
      expect(head).toContain('connection: close')
      expect(JSON.parse(body)).toEqual({
        id: expect.stringMatching(/^err_/),
        code: 408,
        type: 'InvalidPayload',
        message: 'the request did not arrive in time (HTTP_REQUEST_TIMEOUT_SECONDS)',
      })
      const route = path.startsWith('/v1') ? path : path.replace('/slow-bodies', '/:webhookId')
      await eventually(() => expect(lines.filter((line) => line.msg === 'request' && line.route === route).map((line) => line.status)).toEqual([408]))
      expect(lines.filter((line) => line.level >= 50)).toEqual([])
    },
  )
}, 30_000)
