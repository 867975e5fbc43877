/*
 * Confab benchmark: every figure of issue 8's goal table that needs no floor server.
 *   npm run bench [-- --duration 8 --warmup 2 --connections 32 --starts 5 --listeners 1000
 *                    --fanout-messages 20 --idle 10000 --deep 1000000 --bot-messages 200 --burst 3
 *                    --subscribers 250 --subscriber-messages 5 --message-bytes 131072
 *                    --only startup,http,fanout,subscribers,botreply,botlag,idle,paging,scale]
 *   npm run bench -- --only limiter [--limiter-keys 200000]: the rate limit counters' memory per key (not in the default run)
 *   npm run bench -- --only streams [--stream-deltas 200 --listeners 1000]: a bot's message stream to SSE and GraphQL
 *   listeners of one conversation (not in the default run)
 * The botlag and scale phases need PostgreSQL (BENCH_DATABASE_URL, 127.0.0.1:5432 by default: a database is
 * made and dropped) and Redis (BENCH_REDIS_URL, 127.0.0.1:6379).
 * Builds if src/ changed, then runs the built server on temporary databases. The ratios to the floor
 * come from `bash ../shared/perf/compare.sh`; this prints absolute figures only.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { signUserKey } from '../src/auth/user-key.ts'
import { defaultSseTiming } from '../src/http/sse.ts'
import { type LoadResult, load, type RequestSpec } from './load.ts'
import { freshPostgres } from './postgres.ts'
import { type Listener, listen, listenMany } from './listeners.ts'
import { seedMessages } from './seed.ts'
import { type Subscribers, subscribe } from './subscribers.ts'
import { BENCH_ADMIN_TOKEN, BENCH_ENCRYPTION_KEY, root, type Server, start, startBuilt } from './server.ts'
import { latencies, ms } from './stats.ts'
import { sampleHealth } from './health-sampler.ts'
import { limiterMemoryPhase } from './limiter-memory.ts'
import { streamsPhase } from './streams.ts'

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const onlyAt = process.argv.indexOf('--only')
const phases = new Set((onlyAt >= 0 ? (process.argv[onlyAt + 1] ?? '') : 'startup,http,fanout,subscribers,botreply,botlag,idle,paging,scale').split(','))
const options = {
  seconds: arg('duration', 8),
  warmupSeconds: arg('warmup', 2),
  connections: arg('connections', 32),
  starts: arg('starts', 5),
  listeners: arg('listeners', 1000),
  fanoutMessages: arg('fanout-messages', 20),
  idle: arg('idle', 10_000),
  deep: arg('deep', 1_000_000),
  botMessages: arg('bot-messages', 200),
  burstSeconds: arg('burst', 3),
  shallow: 1_000,
  signals: arg('signals', 100),
  subscribers: arg('subscribers', 250),
  subscriberMessages: arg('subscriber-messages', 5),
  messageBytes: arg('message-bytes', 128 * 1024),
  limiterKeys: arg('limiter-keys', 200_000),
  streamDeltas: arg('stream-deltas', 200),
}

const WEBHOOK = 'bench'
const ENCRYPTION_KEY = BENCH_ENCRYPTION_KEY
const dir = mkdtempSync(join(tmpdir(), 'confab-bench-'))
let databases = 0
const freshDatabase = () => join(dir, `confab-${++databases}.db`)

const rows: [figure: string, measured: string, goal: string][] = []
const row = (figure: string, measured: string, goal = '') => {
  rows.push([figure, measured, goal])
  console.log(`  ${figure}: ${measured}`)
}

/** A JSON call to the chat API that must answer 200. */
async function call(server: Server, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.base}/${WEBHOOK}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-user-key': key },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
  return JSON.parse(text)
}

async function user(server: Server, id: string) {
  const key = await signUserKey(id, ENCRYPTION_KEY)
  await call(server, key, 'POST', '/users/get-or-create', {})
  return key
}

const text = (conversationId: string, text: string) => ({ conversationId, payload: { type: 'text', text } })

/** The requests of ../shared/perf/load.mjs: the same work as the floor's. */
function scenarios(server: Server, key: string, conversationId: string): [string, RequestSpec][] {
  const headers = { 'x-user-key': key, 'content-type': 'application/json' }
  const graphql = (query: string) => ({
    method: 'POST' as const,
    url: `${server.base}/${WEBHOOK}/graphql`,
    headers,
    body: JSON.stringify({ query, variables: { c: conversationId } }),
  })
  return [
    [
      'REST createMessage',
      { method: 'POST', url: `${server.base}/${WEBHOOK}/messages`, headers, body: JSON.stringify(text(conversationId, 'hello from the bench')) },
    ],
    [
      'REST listMessages (first page)',
      { method: 'GET', url: `${server.base}/${WEBHOOK}/conversations/${conversationId}/messages`, headers: { 'x-user-key': key } },
    ],
    [
      'GraphQL createMessage',
      graphql(
        'mutation($c: String!) { createMessage(input: { conversationId: $c, payload: { text: { text: "hello from the bench" } } }) { message { messageId } } }',
      ),
    ],
    [
      'GraphQL first page of messages',
      graphql(
        'query($c: String!) { conversation(id: $c) { messages(first: 20) { edges { node { messageId createdAt author { userId } rawPayload } } pageInfo { endCursor hasNextPage } } } }',
      ),
    ],
  ]
}

const throughput = (r: LoadResult) => `${r.perSecond.toFixed(0)} req/s, p50 ${ms(r.p50)}, p99 ${ms(r.p99)}${r.failures ? `, ${r.failures} not 200` : ''}`

async function startupPhase() {
  console.log(`npm start to GET /healthz 200, fresh database each time (${options.starts} runs)`)
  const times: number[] = []
  for (let i = 0; i < options.starts; i++) {
    const { server, startup } = await start(['npm', 'start'], freshDatabase())
    times.push(startup)
    await server.stop()
  }
  const t = latencies(times)
  row('start-up: `npm start` to /healthz 200', `median ${ms(t.p50)}, max ${ms(t.max)}`, '< 2 s')
}

async function httpPhase(server: Server) {
  console.log(`HTTP, ${options.connections} connections, ${options.seconds} s each after ${options.warmupSeconds} s of warm-up`)
  const key = await user(server, 'bench-http')
  await call(server, key, 'POST', '/conversations', { id: 'bench-http' })
  for (const [name, spec] of scenarios(server, key, 'bench-http')) row(name, throughput(await load(spec, options)), 'ratio: compare.sh')
  // The read load started the read replicas (READ_REPLICAS), which the idle phase's fresh server has none of.
  row('server RSS after the HTTP load (its read replicas running)', `${server.rss().toFixed(0)} MiB`)
}

/**
 * Sends `count` messages one after another, each timed from its sending to its arrival at every
 * listener (`echoed`: to the arrival of the echo bot's copy, which says the same text, after it).
 */
async function deliveries(server: Server, key: string, conversationId: string, listeners: Listener[], count: number, echoed = false) {
  const samples: number[] = []
  let missed = 0
  for (let m = 0; m < count; m++) {
    const marker = `fanout-${m}-${Math.random().toString(36).slice(2)}`
    const arrivals = listeners.map((l) => l.expect(marker, echoed ? 2 : 1))
    const sentAt = performance.now()
    await call(server, key, 'POST', '/messages', text(conversationId, marker))
    let cancel = () => {}
    const timeout = new Promise<undefined>((resolve) => {
      const timer = setTimeout(resolve, 10_000)
      cancel = () => clearTimeout(timer)
    })
    for (const arrival of arrivals) {
      const at = await Promise.race([arrival, timeout])
      if (at === undefined) missed++
      else samples.push(at - sentAt)
    }
    cancel()
  }
  return { ...latencies(samples), missed }
}

async function fanoutPhase(server: Server) {
  console.log(`fan-out: ${options.listeners} REST listeners of one conversation, ${options.fanoutMessages} messages`)
  const key = await user(server, 'bench-fanout')
  await call(server, key, 'POST', '/conversations', { id: 'bench-fanout' })
  const url = `${server.base}/${WEBHOOK}/conversations/bench-fanout/listen`
  const listeners = await listenMany(options.listeners, 50, () => listen(url, key))
  // The echo bot joins on the first reply: one message first, and its echo, so that every measured
  // one is alike (none starts behind the fan-out of the bot's joining).
  await deliveries(server, key, 'bench-fanout', listeners, 1, true)
  const d = await deliveries(server, key, 'bench-fanout', listeners, options.fanoutMessages)
  for (const l of listeners) l.close()
  row(
    `one message to ${options.listeners} SSE listeners: delivery`,
    `p50 ${ms(d.p50)}, p99 ${ms(d.p99)}, max ${ms(d.max)}${d.missed ? `, ${d.missed} not delivered in 10 s` : ''}`,
    'p99 < 100 ms',
  )
}

/** Resolves with what `promise` does, or undefined after `ms`. */
const within = <T>(promise: Promise<T>, ms: number) =>
  new Promise<T | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms)
    void promise.then((value) => {
      clearTimeout(timer)
      resolve(value)
    })
  })

/**
 * Issue 49's figure: `subscribers` graphql-ws subscriptions of one conversation, set up by one client,
 * add less than 1 s to posting a 128 KB message, and /healthz answers within 200 ms meanwhile. Each
 * message is timed from its sending to its 200 and to its arrival at every subscription, while
 * /healthz is asked again and again until the echo bot's copy has reached a listener; first with
 * nobody subscribed, then with every subscription of one shape (rendered once for all), then each of
 * its own (what a client that defeats the sharing costs, up to SUBSCRIPTIONS_PER_CONVERSATION).
 */
async function subscribersPhase(server: Server) {
  const conversationId = 'bench-subscribers'
  console.log(
    `subscribers: ${options.subscribers} graphql-ws subscriptions of one conversation, ${options.subscriberMessages} messages of ${options.messageBytes} bytes`,
  )
  const key = await user(server, 'bench-subscribers')
  await call(server, key, 'POST', '/conversations', { id: conversationId })
  const listener = await listen(`${server.base}/${WEBHOOK}/conversations/${conversationId}/listen`, key)
  const graphqlUrl = `${server.base.replace(/^http/, 'ws')}/${WEBHOOK}/graphql`
  const selection = '{ conversationSignals(conversationId: $id) { ... on MessageCreatedSignal { isBot message { messageId rawPayload } } } }'

  const measure = async (label: string, subscribers?: Subscribers) => {
    const posts: number[] = []
    const arrivals: number[] = []
    const health: number[] = []
    const cpu: number[] = []
    let missed = 0
    // The first one warms up (and has the echo bot join); the others are measured.
    for (let m = 0; m <= options.subscriberMessages; m++) {
      const marker = `subscribers-${m}-${Math.random().toString(36).slice(2)}`
      const payload = text(conversationId, `${marker} ${'x'.repeat(Math.max(0, options.messageBytes - marker.length - 200))}`)
      const arrival = subscribers?.expect(marker)
      const echoed = listener.expect(marker, 2)
      const sampler = await sampleHealth(`${server.base}/healthz`)
      const cpuBefore = server.cpuMs()
      const sentAt = performance.now()
      await call(server, key, 'POST', '/messages', payload)
      const answered = performance.now() - sentAt
      const arrived = arrival && (await within(arrival, 30_000))
      await within(echoed, 30_000)
      const samples = await sampler.stop()
      if (m === 0) continue
      cpu.push(server.cpuMs() - cpuBefore)
      posts.push(answered)
      health.push(...samples)
      if (arrival && arrived === undefined) missed++
      else if (arrived !== undefined) arrivals.push(arrived - sentAt)
    }
    const p = latencies(posts)
    const h = latencies(health)
    const d = latencies(arrivals)
    row(
      `${label}: createMessage of ${options.messageBytes} bytes`,
      `p50 ${ms(p.p50)}, max ${ms(p.max)}`,
      label.startsWith('nobody') ? '' : 'max < 1 s more than nobody',
    )
    if (subscribers) row(`${label}: the message at every subscription`, `p50 ${ms(d.p50)}, max ${ms(d.max)}${missed ? `, ${missed} not at all in 30 s` : ''}`)
    row(`${label}: GET /healthz meanwhile`, `p50 ${ms(h.p50)}, max ${ms(h.max)} (${health.length} asked)`, '< 200 ms')
    // CPU time, which a busy machine barely changes: the message, its echo, their fan-out and the /healthz asked meanwhile.
    row(`${label}: server CPU per message`, `${(cpu.reduce((a, b) => a + b, 0) / cpu.length).toFixed(0)} ms; RSS ${server.rss().toFixed(0)} MiB`)
  }

  await measure('nobody subscribed')
  const open = async (query: (i: number) => string) => {
    const subscribers = await subscribe(graphqlUrl, key, conversationId, { count: options.subscribers, perSocket: 10, query })
    // Subscribing is asynchronous on the server: they are all live once a message reaches every one.
    for (let tries = 0; ; tries++) {
      const marker = `subscribers-live-${tries}-${Math.random().toString(36).slice(2)}`
      const reached = subscribers.expect(marker)
      await call(server, key, 'POST', '/messages', text(conversationId, marker))
      if ((await within(reached, 2_000)) !== undefined) return subscribers
      if (tries === 20) throw new Error('the subscriptions never all became live')
    }
  }
  const shared = await open(() => `subscription ($id: String!) ${selection}`)
  await measure(`${options.subscribers} subscribers, one shape`, shared)
  shared.close()
  const distinct = await open((i) => `subscription S${i}($id: String!) ${selection}`)
  await measure(`${options.subscribers} subscribers, each its own shape`, distinct)
  distinct.close()
  listener.close()
}

/**
 * A webhook bot on a local node:http server that answers every delivery in its response body; the
 * time from a user's createMessage to the bot's reply reaching the user's listener.
 */
async function botReplyPhase(server: Server) {
  console.log(`bot reply: ${options.botMessages} user messages, each to a local webhook bot and back to a listener`)
  const bot = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ messages: [{ payload: { type: 'text', text: `reply ${data.payload.text}` } }] }))
  })
  await new Promise<void>((resolve) => bot.listen(0, '127.0.0.1', resolve))
  try {
    const admin = { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'x-workspace-id': 'wkspace_bench', 'content-type': 'application/json' }
    const created = await fetch(`${server.base}/v1/admin/bots`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'bench bot', url: `http://127.0.0.1:${(bot.address() as AddressInfo).port}/` }),
    })
    if (created.status !== 200) throw new Error(`createBot answered ${created.status}: ${await created.text()}`)
    const chat = (await created.json()).bot.integrations.chat as { webhookId: string }
    // The bot's shared key is never shown: its user is created through the chat API, which returns the key.
    const createdUser = await fetch(`${server.base}/${chat.webhookId}/users`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    if (createdUser.status !== 200) throw new Error(`createUser answered ${createdUser.status}: ${await createdUser.text()}`)
    const { key } = (await createdUser.json()) as { key: string }
    const chatCall = (method: string, path: string, body?: unknown) =>
      fetch(`${server.base}/${chat.webhookId}${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-user-key': key },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (r) => {
        if (r.status !== 200) throw new Error(`${method} ${path} answered ${r.status}: ${await r.text()}`)
        return r.json()
      })
    await chatCall('POST', '/conversations', { id: 'bench-bot' })
    const [listener] = await listenMany(1, 1, () => listen(`${server.base}/${chat.webhookId}/conversations/bench-bot/listen`, key))
    const samples: number[] = []
    let missed = 0
    for (let m = 0; m < options.botMessages; m++) {
      const marker = `bot-${m}-${Math.random().toString(36).slice(2)}`
      const arrival = (listener as Listener).expect(`reply ${marker}`)
      const sentAt = performance.now()
      await chatCall('POST', '/messages', text('bench-bot', marker))
      const timedOut = new AbortController()
      const at = await Promise.race([
        arrival,
        new Promise<undefined>((resolve) => {
          const timer = setTimeout(resolve, 10_000)
          timedOut.signal.addEventListener('abort', () => clearTimeout(timer))
        }),
      ])
      timedOut.abort()
      if (at === undefined) missed++
      else samples.push(at - sentAt)
    }
    ;(listener as Listener).close()
    const d = latencies(samples)
    row(
      'createMessage → webhook bot reply at a listener',
      `p50 ${ms(d.p50)}, p99 ${ms(d.p99)}, max ${ms(d.max)}${missed ? `, ${missed} not answered in 10 s` : ''}`,
    )
  } finally {
    bot.close()
  }
}

/**
 * The echo bot's lag after a burst: `connections` users' connections post createMessage as fast as
 * they are answered for `burstSeconds` (the peak create rate), then the time from the last 200 to
 * the arrival at a listener of the bot's reply to every message (issue 32: within 1 s).
 */
async function burstLag(server: Server, label: string) {
  const key = await user(server, 'bench-burst')
  await call(server, key, 'POST', '/conversations', { id: 'bench-burst' })
  const listener = await listen(`${server.base}/${WEBHOOK}/conversations/bench-burst/listen`, key)
  // The bot joins on its first reply: that one first, so that every measured one is alike.
  const joined = listener.expect('burst-join', 2)
  await call(server, key, 'POST', '/messages', text('bench-burst', 'burst-join'))
  await joined
  const replies: Promise<number>[] = []
  let sent = 0
  let lastAnswer = 0
  const end = performance.now() + options.burstSeconds * 1000
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (performance.now() < end) {
        // The user's message and the bot's copy of it both carry the marker: the second arrival is the reply.
        const marker = `burst-${sent++}-${Math.random().toString(36).slice(2)}.`
        replies.push(listener.expect(marker, 2))
        await call(server, key, 'POST', '/messages', text('bench-burst', marker))
        lastAnswer = performance.now()
      }
    }),
  )
  const rate = sent / options.burstSeconds
  let missed = 0
  let cancel = () => {}
  const timeout = new Promise<undefined>((resolve) => {
    const timer = setTimeout(resolve, 120_000)
    cancel = () => clearTimeout(timer)
  })
  const arrivals: number[] = []
  for (const reply of replies) {
    const at = await Promise.race([reply, timeout])
    if (at === undefined) missed++
    else arrivals.push(at)
  }
  cancel()
  listener.close()
  const last = arrivals.length > 0 ? Math.max(...arrivals) : lastAnswer
  row(
    `${label}: echo bot's last reply after a burst of ${sent} createMessage (${rate.toFixed(0)}/s for ${options.burstSeconds} s)`,
    `${ms(last - lastAnswer)} after the last 200${missed ? `, ${missed} replies not in 120 s` : ''}`,
    '≤ 1 s',
  )
}

async function botLagPhase() {
  console.log(`bot lag: ${options.connections} connections post for ${options.burstSeconds} s; the echo bot answers each, on SQLite and on PostgreSQL`)
  const sqlite = (await startBuilt(freshDatabase())).server
  try {
    await burstLag(sqlite, 'SQLite')
  } finally {
    await sqlite.stop()
  }
  const database = await freshDatabaseOnPostgres()
  try {
    const { server } = await startBuilt(database.url)
    try {
      await burstLag(server, 'PostgreSQL')
    } finally {
      await server.stop()
    }
  } finally {
    await database.drop()
  }
}

async function idlePhase(server: Server) {
  const perConversation = 100
  const conversations = Math.ceil(options.idle / perConversation)
  console.log(`idle: ${options.idle} REST listeners over ${conversations} conversations`)
  const key = await user(server, 'bench-idle')
  for (let c = 0; c < conversations; c++) await call(server, key, 'POST', '/conversations', { id: `bench-idle-${c}` })
  const before = server.rss()
  const opened = performance.now()
  const listeners = await listenMany(options.idle, 100, (i) => listen(`${server.base}/${WEBHOOK}/conversations/bench-idle-${i % conversations}/listen`, key))
  const openSeconds = (performance.now() - opened) / 1000
  for (const l of listeners) l.heartbeats.length = 0
  // Two and a half heartbeat intervals: every stream shows at least one interval between two heartbeats.
  const interval = defaultSseTiming.commentIntervalMs
  let rss = server.rss()
  const watchEnd = performance.now() + 2.5 * interval + 500
  while (performance.now() < watchEnd) {
    await new Promise((resolve) => setTimeout(resolve, 250))
    rss = Math.max(rss, server.rss())
  }
  const lateness = listeners.flatMap((l) => l.heartbeats.slice(1).map((at, i) => at - (l.heartbeats[i] as number) - interval))
  const silent = listeners.filter((l) => l.heartbeats.length < 2).length
  for (const l of listeners) l.close()
  const late = latencies(lateness)
  row(
    `${options.idle} idle SSE listeners: server RSS`,
    `${rss.toFixed(0)} MiB (${before.toFixed(0)} MiB before; opened in ${openSeconds.toFixed(1)} s)`,
    '< 400 MB',
  )
  row(
    `heartbeat every ${interval / 1000} s under ${options.idle} listeners: lateness`,
    `p50 ${ms(late.p50)}, p99 ${ms(late.p99)}, max ${ms(late.max)}${silent ? `; ${silent} streams with < 2 heartbeats` : ''}`,
    'on time',
  )
}

async function pagingPhase() {
  console.log(`paging: first page with ${options.deep} messages in the conversation and with ${options.shallow}`)
  const databaseUrl = freshDatabase()
  let { server } = await startBuilt(databaseUrl)
  const key = await user(server, 'bench-paging')
  const templates: Record<string, string> = {}
  for (const id of ['paging-deep', 'paging-shallow']) {
    await call(server, key, 'POST', '/conversations', { id })
    templates[id] = (await call(server, key, 'POST', '/messages', text(id, 'a message like many'))).message.id
  }
  await server.stop()
  const seeded = performance.now()
  seedMessages(databaseUrl, templates['paging-deep'] as string, options.deep)
  seedMessages(databaseUrl, templates['paging-shallow'] as string, options.shallow)
  console.log(`  (seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s)`)
  ;({ server } = await startBuilt(databaseUrl))
  const [, list] = scenarios(server, key, 'paging-deep')[1] as [string, RequestSpec]
  const shallowList = { ...list, url: list.url.replace('paging-deep', 'paging-shallow') }
  // Alternated, as the machine drifts: two rounds of each.
  const short = { ...options, seconds: Math.min(options.seconds, 4), warmupSeconds: 1 }
  const rounds: { deep: LoadResult; shallow: LoadResult }[] = []
  for (let round = 0; round < 2; round++) rounds.push({ deep: await load(list, short), shallow: await load(shallowList, short) })
  await server.stop()
  const [deep, shallow] = (['deep', 'shallow'] as const).map((depth) => {
    const [a, b] = rounds.map((r) => r[depth]) as [LoadResult, LoadResult]
    return a.perSecond >= b.perSecond ? a : b
  }) as [LoadResult, LoadResult]
  row(`REST first page at ${options.deep} messages (better of 2)`, throughput(deep))
  row(`REST first page at ${options.shallow} messages (better of 2)`, throughput(shallow))
  row(`first page at ${options.deep} ÷ at ${options.shallow} (mean time)`, (shallow.perSecond / deep.perSecond).toFixed(2), '≤ 1.2')
}

const pgAdminUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'
const redisUrl = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379'

/** A fresh PostgreSQL database for the run; dropped by `drop`. */
const freshDatabaseOnPostgres = () => freshPostgres(pgAdminUrl, `confab_bench_${process.pid}_${++databases}`)

/** createMessage and listMessages (REST) against the servers given, the connections shared among them. */
async function restLoad(servers: Server[], label: string) {
  const keys = await Promise.all(servers.map((server) => user(server, 'bench-scale')))
  await call(servers[0] as Server, keys[0] as string, 'POST', '/conversations/get-or-create', { id: 'bench-scale' })
  const per = { ...options, connections: Math.max(1, Math.floor(options.connections / servers.length)) }
  for (const index of [0, 1]) {
    const results = await Promise.all(servers.map((server, i) => load(scenarios(server, keys[i] as string, 'bench-scale')[index]![1], per)))
    const name = index === 0 ? 'createMessage' : 'listMessages'
    const perSecond = results.reduce((sum, r) => sum + r.perSecond, 0)
    const p99 = Math.max(...results.map((r) => r.p99))
    const failures = results.reduce((sum, r) => sum + r.failures, 0)
    row(`${label}: REST ${name}`, `${perSecond.toFixed(0)} req/s, p99 ${ms(p99)}${failures ? `, ${failures} not 200` : ''}`)
  }
}

async function scalePhase() {
  console.log(`scale: SQLite vs PostgreSQL, one vs two instances (REST, ${options.connections} connections in all), cross-instance signals`)
  const sqlite = (await startBuilt(freshDatabase())).server
  try {
    await restLoad([sqlite], 'SQLite, 1 instance')
  } finally {
    await sqlite.stop()
  }
  const one = await freshDatabaseOnPostgres()
  try {
    const { server } = await startBuilt(one.url)
    try {
      await restLoad([server], 'PostgreSQL, 1 instance')
    } finally {
      await server.stop()
    }
  } finally {
    await one.drop()
  }
  const two = await freshDatabaseOnPostgres()
  try {
    const env = { REDIS_URL: redisUrl }
    const [a, b] = [(await startBuilt(two.url, env)).server, (await startBuilt(two.url, env)).server] as [Server, Server]
    try {
      await restLoad([a, b], 'PostgreSQL + Redis, 2 instances')
      // A listener on A, messages sent on B one after another: from sending to arrival.
      const key = await user(a, 'bench-signals')
      await call(a, key, 'POST', '/conversations/get-or-create', { id: 'bench-signals' })
      const listener = await listen(`${a.base}/${WEBHOOK}/conversations/bench-signals/listen`, key)
      const t = await deliveries(b, key, 'bench-signals', [listener], options.signals)
      listener.close()
      row(
        `cross-instance signal (B's createMessage to A's listener), ${options.signals} messages`,
        `p50 ${ms(t.p50)}, p99 ${ms(t.p99)}${t.missed ? `, ${t.missed} missed` : ''}`,
      )
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
  } finally {
    await two.drop()
  }
}

async function main() {
  const began = performance.now()
  execFileSync(process.execPath, ['src/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' })
  if (phases.has('startup')) await startupPhase()
  // Each phase on a server of its own: the memory of idle listeners is not that of the load before them.
  for (const [phase, run] of [
    ['http', httpPhase],
    ['fanout', fanoutPhase],
    ['subscribers', subscribersPhase],
    ['botreply', botReplyPhase],
    ['idle', idlePhase],
    [
      'streams',
      async (server: Server) =>
        streamsPhase(
          server,
          { listeners: options.listeners, deltas: options.streamDeltas, webhook: WEBHOOK, userKey: await user(server, 'bench-streams') },
          row,
        ),
    ],
  ] as const) {
    if (!phases.has(phase)) continue
    const { server } = await startBuilt(freshDatabase())
    try {
      await run(server)
    } finally {
      await server.stop()
    }
  }
  if (phases.has('botlag')) await botLagPhase()
  if (phases.has('paging')) await pagingPhase()
  if (phases.has('scale')) await scalePhase()
  if (phases.has('limiter')) await limiterMemoryPhase(options.limiterKeys, row)

  console.log(`\nConfab benchmark (${((performance.now() - began) / 1000).toFixed(0)} s; the echo bot answers every user message)\n`)
  console.log('| figure | measured | goal |')
  console.log('|---|---|---|')
  for (const [figure, measured, goal] of rows) console.log(`| ${figure} | ${measured} | ${goal} |`)
}

main()
  .catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }))
