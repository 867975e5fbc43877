import { type AuthenticatedClient, Client } from '@botpress/chat'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { type ConfabServer, createServer } from '../../src/index.ts'
import { openSqliteStore } from '../../src/db/sqlite/store.ts'
import { ReadReplicas } from '../../src/http/read-replicas.ts'
import { sample, scrape } from '../helpers/prometheus.ts'
import { eventually } from '../helpers/wait.ts'

// Reads served by worker threads (READ_REPLICAS): the same answers as the main thread's, and
// everything else still the main thread's. The replicas run from src/ (tsx), through the real server.

const WEBHOOK = 'replicas-webhook'
let confab: ConfabServer | undefined
afterEach(async () => {
  await confab?.close()
  confab = undefined
})

async function start(readReplicas: number, { metricsPort }: { metricsPort?: number } = {}) {
  confab = await createServer({
    databaseUrl: ':memory:',
    log: pino({ level: 'silent' }),
    bootstrap: { webhookId: WEBHOOK },
    readReplicas,
    metricsPort,
  })
  const apiUrl = `${confab.url}/${WEBHOOK}`
  const chat = await Client.connect({ apiUrl })
  const { conversation } = await chat.createConversation({})
  return { confab, apiUrl, chat, conversationId: conversation.id }
}

/**
 * A replica started from src/ compiles the app with tsx in its own thread before it is ready (or
 * fails): a few seconds, and more than 10 on a loaded machine (seen in CI). Its tests wait for that
 * up to a minute each time, and may run for two.
 */
const replicaStartMs = 60_000
const replicaTests = { timeout: 120_000 }

/** Reads until every replica has started (the first reads start them) and is ready. */
async function warm(server: ConfabServer, chat: AuthenticatedClient, count: number) {
  await eventually(async () => {
    await chat.getUser({})
    expect(server.replicas?.ready).toBe(count)
  }, replicaStartMs)
}

/** Waits for the echo bot's replies: `count` messages in the conversation, none still to come. */
async function settled(chat: AuthenticatedClient, conversationId: string, count: number) {
  await eventually(async () => expect((await chat.listMessages({ conversationId })).messages).toHaveLength(count))
}

const served = () => confab?.replicas?.served ?? 0

const graphql = (apiUrl: string, key: string, body: object) =>
  fetch(`${apiUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-user-key': key }, body: JSON.stringify(body) })

describe('reads on the replicas', replicaTests, () => {
  it('every read of the chat API answers as the main thread does, and is served by a replica', async () => {
    const { confab, chat, conversationId } = await start(2)
    for (const text of ['one', 'two', 'three']) await chat.createMessage({ conversationId, payload: { type: 'text', text } })
    await settled(chat, conversationId, 6)
    const reads = async () => {
      const { messages } = await chat.listMessages({ conversationId })
      return {
        user: await chat.getUser({}),
        conversation: await chat.getConversation({ id: conversationId }),
        conversations: await chat.listConversations({}),
        participants: await chat.listParticipants({ conversationId }),
        participant: await chat.getParticipant({ conversationId, userId: chat.user.id }),
        messages,
        message: await chat.getMessage({ id: messages.at(-1)!.id }),
      }
    }
    // Before the replicas are up, the main thread serves the reads.
    const fromMain = await reads()
    await warm(confab, chat, 2)
    const before = served()
    const fromReplicas = await reads()
    expect(served() - before).toBe(7)
    expect(fromReplicas).toEqual(fromMain)
    expect(fromReplicas.messages.map((m) => (m.payload as { text: string }).text)).toContain('three')
  })

  it('a GraphQL query is served by a replica, with the same data as the REST read', async () => {
    const { confab, apiUrl, chat, conversationId } = await start(1)
    await chat.createMessage({ conversationId, payload: { type: 'text', text: 'hello' } })
    await settled(chat, conversationId, 2)
    await warm(confab, chat, 1)
    const before = served()
    const response = await graphql(apiUrl, chat.user.key, {
      query: 'query($c: String!) { conversation(id: $c) { messages(first: 20) { edges { node { messageId } } } } }',
      variables: { c: conversationId },
    })
    expect(response.status).toBe(200)
    const { messages } = await chat.listMessages({ conversationId })
    expect(await response.json()).toEqual({
      data: { conversation: { messages: { edges: messages.map((m) => ({ node: { messageId: m.id } })) } } },
    })
    expect(served() - before).toBe(2)
  })

  it('a read answered after a write sees it (read your writes)', async () => {
    const { confab, chat, conversationId } = await start(2)
    await warm(confab, chat, 2)
    for (let i = 0; i < 20; i++) {
      const { message } = await chat.createMessage({ conversationId, payload: { type: 'text', text: `m${i}` } })
      expect((await chat.getMessage({ id: message.id })).message.id).toBe(message.id)
      expect((await chat.listMessages({ conversationId })).messages.map((m) => m.id)).toContain(message.id)
    }
  })

  it('a refused read answers the same error body as on the main thread', async () => {
    const { confab, apiUrl, chat } = await start(1)
    const missing = () => fetch(`${apiUrl}/conversations/nope`, { headers: { 'x-user-key': chat.user.key } })
    const here = await missing()
    await warm(confab, chat, 1)
    const before = served()
    const there = await missing()
    expect(served() - before).toBe(1)
    expect(there.status).toBe(404)
    // The same head: a JSON body of a known length, as whatwg-node sends it on the main thread.
    for (const name of ['content-type', 'transfer-encoding']) expect(there.headers.get(name)).toBe(here.headers.get(name))
    const [hereText, thereText] = [await here.clone().text(), await there.clone().text()]
    expect(there.headers.get('content-length')).toBe(String(Buffer.byteLength(thereText)))
    expect(here.headers.get('content-length')).toBe(String(Buffer.byteLength(hereText)))
    const [a, b] = [await here.json(), await there.json()]
    expect({ ...b, id: a.id }).toEqual(a)
    expect(b).toMatchObject({ code: 404, type: 'ResourceNotFound' })
  })
})

describe("each replica's heap in the metrics (METRICS_PORT)", replicaTests, () => {
  it("confab_read_replica_heap_used_bytes tells each ready replica by its number, beside the main thread's own heap", async () => {
    const { confab, chat } = await start(2, { metricsPort: 0 })
    await warm(confab, chat, 2)
    const text = await scrape(confab.metricsUrl as string)
    const main = sample(text, 'nodejs_heap_size_used_bytes') as number
    for (const replica of ['1', '2']) {
      const heap = sample(text, 'confab_read_replica_heap_used_bytes', { replica })
      // A replica's heap holds the whole app it serves: megabytes, not a placeholder.
      expect(heap).toBeGreaterThan(1024 * 1024)
      expect(heap).not.toBe(main)
    }
    expect(sample(text, 'confab_read_replica_heap_used_bytes', { replica: '3' })).toBeUndefined()
  })

  it('is absent where there are no replicas', async () => {
    const { confab } = await start(0, { metricsPort: 0 })
    expect(await scrape(confab.metricsUrl as string)).not.toContain('confab_read_replica_heap_used_bytes')
  })
})

describe('what stays on the main thread', replicaTests, () => {
  it('a GraphQL mutation, a REST write and a live stream: none goes to a replica, and the listener hears the write', async () => {
    const { confab, apiUrl, chat, conversationId } = await start(1)
    await warm(confab, chat, 1)
    const before = served()
    const listener = await chat.listenConversation({ id: conversationId })
    const heard: string[] = []
    listener.on('message_created', (message) => heard.push((message.payload as { text: string }).text))
    const response = await graphql(apiUrl, chat.user.key, {
      query: 'mutation($c: String!) { createMessage(input: { conversationId: $c, payload: { text: { text: "by graphql" } } }) { message { messageId } } }',
      variables: { c: conversationId },
    })
    expect(response.status).toBe(200)
    await chat.createMessage({ conversationId, payload: { type: 'text', text: 'by rest' } })
    await eventually(() => expect(heard).toEqual(expect.arrayContaining(['by graphql', 'by rest'])))
    await listener.disconnect()
    expect(served()).toBe(before)
  })

  it('the echo bot answers: deliveries run on the main thread only', async () => {
    const { confab, chat, conversationId } = await start(2)
    await warm(confab, chat, 2)
    await chat.createMessage({ conversationId, payload: { type: 'text', text: 'ping' } })
    await eventually(async () => {
      const { messages } = await chat.listMessages({ conversationId })
      expect(messages.filter((m) => m.userId !== chat.user.id).map((m) => (m.payload as { text: string }).text)).toEqual(['ping'])
    })
  })
})

describe('a replica that fails', replicaTests, () => {
  it('its reads are served by the main thread, and it is started again', async () => {
    const { confab, chat, conversationId } = await start(1)
    await chat.createMessage({ conversationId, payload: { type: 'text', text: 'kept' } })
    await settled(chat, conversationId, 2)
    await warm(confab, chat, 1)
    const [thread] = confab.replicas!.threads
    const reads = Array.from({ length: 20 }, () => chat.listMessages({ conversationId }))
    await thread!.terminate()
    for (const { messages } of await Promise.all(reads)) expect(messages.map((m) => (m.payload as { text: string }).text)).toContain('kept')
    await warm(confab, chat, 1)
    expect(confab.replicas!.threads[0]).not.toBe(thread)
  })
})

describe('a client that goes away in the middle of a GraphQL body', () => {
  it('is logged at debug level, not as an error, and the server goes on serving', async () => {
    const lines: { level: number; msg: string }[] = []
    confab = await createServer({
      databaseUrl: ':memory:',
      log: pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) }),
      bootstrap: { webhookId: WEBHOOK },
      readReplicas: 1,
    })
    const url = new URL(`${confab.url}/${WEBHOOK}/graphql`)
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        // Closed once the kernel has what was written: the server reads the head and half a body.
        socket.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":`, () => {
          socket.destroy()
          resolve()
        })
      })
      socket.once('error', reject)
    })
    await eventually(() => expect(lines.map((line) => line.msg)).toContain('the client went away before its answer'))
    expect(lines.filter((line) => line.level >= 50)).toStrictEqual([])
    const chat = await Client.connect({ apiUrl: `${confab.url}/${WEBHOOK}` })
    expect((await chat.getUser({})).user.id).toBe(chat.user.id)
  })
})

describe('a replica that cannot start', replicaTests, () => {
  it('is started again after a second, then after twice as long each time, and the error is logged', async () => {
    const lines: string[] = []
    const log = pino({ level: 'error' }, { write: (line: string) => void lines.push(line) })
    let now = 0
    const replicas = new ReadReplicas({
      count: 1,
      // No such database: the replica fails as it opens it.
      source: {
        path: join(tmpdir(), 'confab-no-such-dir', 'none.db'),
        durability: new SharedArrayBuffer(8),
        tenancy: new SharedArrayBuffer(4),
        participations: new SharedArrayBuffer(4),
      },
      corsOrigins: [],
      log,
      now: () => now,
    })
    const unused = {} as IncomingMessage
    const attempt = () => replicas.answer(unused, {} as ServerResponse)
    const failedOnce = async (count: number) => {
      expect(replicas.threads).toHaveLength(1)
      // It fails once its thread has compiled the app (replicaStartMs).
      await eventually(() => expect(replicas.threads).toHaveLength(0), replicaStartMs)
      expect(lines.filter((line) => line.includes('a read replica failed'))).toHaveLength(count)
    }
    // No replica is ready: the caller serves every read itself.
    expect(await attempt()).toBe(false)
    await failedOnce(1)
    now += 999
    expect(await attempt()).toBe(false)
    expect(replicas.threads).toHaveLength(0)
    now += 1
    await attempt()
    await failedOnce(2)
    now += 1999
    await attempt()
    expect(replicas.threads).toHaveLength(0)
    now += 1
    await attempt()
    await failedOnce(3)
    await replicas.close()
  })
})

describe('a replica without reads', replicaTests, () => {
  it('stops after a minute without a read; the next read starts one again', async () => {
    const store = openSqliteStore(':memory:')
    let now = 0
    const replicas = new ReadReplicas({ count: 1, source: store.replicaSource, corsOrigins: [], log: pino({ level: 'silent' }), now: () => now })
    const unused = {} as IncomingMessage
    expect(await replicas.answer(unused, {} as ServerResponse)).toBe(false)
    await eventually(() => expect(replicas.ready).toBe(1), replicaStartMs)
    const [first] = replicas.threads
    const exited = new Promise((resolve) => first!.once('exit', resolve))
    now += 59_999
    replicas.stopIdle()
    expect(replicas.threads).toEqual([first])
    now += 1
    replicas.stopIdle()
    expect(replicas.threads).toEqual([])
    await exited
    expect(await replicas.answer(unused, {} as ServerResponse)).toBe(false)
    await eventually(() => expect(replicas.ready).toBe(1), replicaStartMs)
    expect(replicas.threads[0]).not.toBe(first)
    await replicas.close()
    await store.close()
  })
})

describe('closing', replicaTests, () => {
  it('stops the replicas with the server', async () => {
    const { confab, chat } = await start(2)
    await warm(confab, chat, 2)
    const exited = confab.replicas!.threads.map((thread) => new Promise((resolve) => thread.once('exit', resolve)))
    await confab.close()
    await Promise.all(exited)
    expect(confab.replicas!.ready).toBe(0)
  })
})
