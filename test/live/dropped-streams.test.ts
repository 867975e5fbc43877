import { type ChildProcess, spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WEBHOOK_ID } from '../helpers/app.ts'
import { ROOT } from '../helpers/server.ts'
import { eventually } from '../helpers/wait.ts'

// A client that drops its subscription stream must not take the server down: the server runs in a
// process of its own, as src/main.ts runs it, so that a crash shows as that process exiting.

/**
 * The harness app behind a real HTTP server, mounted as src/main.ts mounts it, plus a probe that
 * tells how many subscriptions are live, so that the test can wait for the server to let go of one.
 */
const CHILD_SERVER = `
import { createServer } from 'node:http'
import pino from 'pino'
import { nodeListener } from './src/http/node-listener.ts'
import { createTestApp } from './test/helpers/app.ts'
const t = createTestApp({ handlers: {} })
const alice = await t.user('alice')
await t.conversation(alice.key, 'c1')
const adapter = nodeListener(t.app.fetch, { log: pino({ level: 'silent' }) })
const server = createServer((request, response) => {
  if (request.url !== '/probe') return adapter(request, response)
  response.setHeader('content-type', 'application/json')
  response.end(JSON.stringify({ subscriptions: t.app.signals.activeSubscriptions() }))
})
t.app.attach(server)
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: server.address().port, key: alice.key }) + '\\n')
})
`

const SIGNALS = 'subscription ($id: String!) { conversationSignals(conversationId: $id) { __typename } }'
const subscribeBody = JSON.stringify({ query: SIGNALS, variables: { id: 'c1' } })

describe('a client dropping its subscription stream does not take the server down', () => {
  let child: ChildProcess
  let exited: Promise<number | null>
  let base: string
  let key: string
  let stderr = ''

  beforeAll(async () => {
    child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD_SERVER], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)))
    const started = await new Promise<{ port: number; key: string }>((resolve, reject) => {
      let out = ''
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk
        const line = out.split('\n')[0]
        if (out.includes('\n') && line) resolve(JSON.parse(line))
      })
      void exited.then((code) => reject(new Error(`the server exited with ${code} before listening; its stderr:\n${stderr}`)))
    })
    base = `http://127.0.0.1:${started.port}`
    key = started.key
  }, 60_000)

  afterAll(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await exited
    }
  })

  /** The live subscriptions of the server, failing at once should the server be gone. */
  const subscriptions = async () => {
    expect(child.exitCode, `the server exited; its stderr:\n${stderr}`).toBeNull()
    return ((await (await fetch(`${base}/probe`)).json()) as { subscriptions: number }).subscriptions
  }

  /** Opens a subscription with `open`, drops it, and checks that the server let it go and still serves. */
  async function expectSurvivesDropping(open: (signal: AbortSignal) => Promise<void>) {
    const before = await subscriptions()
    const abort = new AbortController()
    await open(abort.signal)
    await eventually(async () => expect(await subscriptions()).toBe(before + 1))
    abort.abort()
    await eventually(async () => expect(await subscriptions()).toBe(before))
    expect((await fetch(`${base}/healthz`)).status).toBe(200)
  }

  const post = (path: string, signal: AbortSignal) =>
    fetch(`${base}/${WEBHOOK_ID}${path}`, {
      method: 'POST',
      signal,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-user-key': key },
      body: subscribeBody,
    })

  it.each([
    ["graphql-yoga's SSE on /graphql", '/graphql'],
    ['graphql-sse distinct connections mode on /graphql/stream', '/graphql/stream'],
  ])('%s', async (_name, path) => {
    await expectSurvivesDropping(async (signal) => {
      const response = await post(path, signal)
      expect(response.status).toBe(200)
      void response.body
        ?.getReader()
        .read()
        .catch(() => {})
    })
  })

  it('graphql-sse single connection mode: the reserved event stream of /graphql/stream', async () => {
    const reserved = await fetch(`${base}/${WEBHOOK_ID}/graphql/stream`, { method: 'PUT', headers: { 'x-user-key': key } })
    expect(reserved.status).toBe(201)
    const token = await reserved.text()
    await expectSurvivesDropping(async (signal) => {
      const stream = await fetch(`${base}/${WEBHOOK_ID}/graphql/stream`, {
        signal,
        headers: { accept: 'text/event-stream', 'x-graphql-event-stream-token': token, 'x-user-key': key },
      })
      expect(stream.status).toBe(200)
      void stream.body
        ?.getReader()
        .read()
        .catch(() => {})
      const operation = await fetch(`${base}/${WEBHOOK_ID}/graphql/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-graphql-event-stream-token': token, 'x-user-key': key },
        body: JSON.stringify({ query: SIGNALS, variables: { id: 'c1' }, extensions: { operationId: 'op1' } }),
      })
      expect(operation.status).toBe(202)
    })
  })
})
