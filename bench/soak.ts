/*
 * Confab soak: steady load for a long run, to see memory growth and tail-latency drift.
 *   npm run soak [-- --minutes 10 --connections 32 --listeners 200]
 *   npm run soak -- --database postgres://postgres@127.0.0.1:5432/postgres [--redis redis://127.0.0.1:6379]
 * On SQLite (a file in a temporary folder) by default; with --database postgres://…, on a database
 * of its own made on that server (confab_soak_<pid>, dropped at the end), and with --redis, live
 * signals and rate-limit counters through that Redis, as several instances run.
 * The load is a mix: createMessage (half to the built-in echo bot, half to a local webhook bot whose
 * replies come back), listMessages, and SSE listeners of the conversations written to. It measures
 * the peak first: the mix in a closed loop for 5 s, then until the bots have answered every message
 * (the outbox drained), the requests over that whole time; then holds half of the peak for the run,
 * open loop.
 * Prints, per minute: requests, p99, errors, requests sent late (all connections busy), the server's
 * RSS and V8 heap (the main thread's, and each read replica's on SQLite) and its bot deliveries pending (from its own metrics, METRICS_PORT), on PostgreSQL the
 * tables' dead rows (and, on a server with autovacuum off, the tables vacuumed as autovacuum
 * would, bench/postgres.ts); at the end, the first minute being the
 * warm-up and the others judged in two halves: RSS growth (mean of the later half over the earlier's),
 * p99 drift (the later half's worst over the earlier half's median), errors, and whether each met its
 * goal (RSS growth < 10 %, p99 drift < 1.5 ×, 0 errors). Rate limits are off (RATE_LIMITS=off): this
 * measures the server, not the limits.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { Agent, createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { signUserKey } from '../src/auth/user-key.ts'
import { deadRows, freshPostgres, runsAutovacuum, vacuumAsAutovacuumWould } from './postgres.ts'
import { type Listener, listen, listenMany } from './listeners.ts'
import { BENCH_ADMIN_TOKEN, BENCH_ENCRYPTION_KEY, root, startBuilt } from './server.ts'
import { latencies, ms } from './stats.ts'

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const minutes = arg('minutes', 10)
const connections = arg('connections', 32)
const listenerCount = arg('listeners', 200)
const minuteMs = arg('minute-seconds', 60) * 1000
/** How long the peak's deliveries may take to drain before the held load starts regardless. */
const drainLimitMs = 5 * 60_000
const text = (name: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const postgresServer = text('database')
const redisUrl = text('redis')
if (postgresServer !== undefined && !/^postgres(ql)?:\/\//i.test(postgresServer)) throw new Error(`--database takes a postgres:// URL, got "${postgresServer}"`)

const WEBHOOK = 'bench'
const admin = { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'x-workspace-id': 'wkspace_bench', 'content-type': 'application/json' }

interface Sent {
  method: 'GET' | 'POST'
  path: string
  key: string
  body?: string
}

/** Requests sent again because the server had closed their idle kept-alive connection as they left (see send). */
let keepAliveRaces = 0

/**
 * One request on a keep-alive agent; its status (-1: no answer). A request that fails with ECONNRESET on a
 * reused connection met the server closing it for idleness (HTTP_KEEP_ALIVE_TIMEOUT_SECONDS) as it was sent:
 * it is sent once more, as Node's documentation says a client should (request.reusedSocket), and counted.
 */
function send(agent: Agent, base: URL, spec: Sent, again = false): Promise<number> {
  const { method, path, key, body } = spec
  return new Promise((resolve) => {
    const headers: Record<string, string> = { 'x-user-key': key }
    if (body) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) })
    const req = request({ host: base.hostname, port: base.port, path, method, headers, agent }, (res) => {
      res.resume()
      res.once('end', () => resolve(res.statusCode ?? 0))
      res.once('error', () => resolve(-1))
    })
    req.once('error', (error: NodeJS.ErrnoException) => {
      if (!again && req.reusedSocket && error.code === 'ECONNRESET') {
        keepAliveRaces++
        resolve(send(agent, base, spec, true))
      } else resolve(-1)
    })
    req.end(body)
  })
}

async function json(url: string, init: RequestInit & { headers?: Record<string, string> }) {
  const response = await fetch(url, init)
  const text = await response.text()
  if (response.status !== 200) throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status}: ${text}`)
  return JSON.parse(text)
}

/** The database the soak runs on: a fresh SQLite file, or a fresh database on the PostgreSQL server given; and how to drop it. */
async function soakDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (postgresServer === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'confab-soak-'))
    return { url: join(dir, 'soak.db'), drop: async () => rmSync(dir, { recursive: true, force: true }) }
  }
  return freshPostgres(postgresServer, `confab_soak_${process.pid}`)
}

async function main() {
  execFileSync(process.execPath, ['src/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' })
  const database = await soakDatabase()
  console.log(`soak on ${postgresServer ? `PostgreSQL (${database.url})` : 'SQLite'}${redisUrl ? ` with Redis (${redisUrl})` : ''}`)
  const { server } = await startBuilt(database.url, { RATE_LIMITS: 'off', METRICS_PORT: '0', ...(redisUrl ? { REDIS_URL: redisUrl } : {}) }).catch(
    async (error: unknown) => {
      await database.drop()
      throw error
    },
  )
  /** The server's V8 heap in use (MiB) and its bot deliveries waiting in the outbox, from its own metrics. */
  const gauges = async () => {
    const url = server.metricsUrl()
    const text = url
      ? await fetch(url).then(
          (r) => r.text(),
          () => '',
        )
      : ''
    const gauge = (name: string) => {
      const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]
      return value === undefined ? Number.NaN : Number(value)
    }
    // Each read replica's heap (SQLite), by its number: the main thread's gauge does not count them.
    const replicaHeaps = [...text.matchAll(/^confab_read_replica_heap_used_bytes\{replica="(\d+)"\} (\S+)$/gm)]
      .sort((a, b) => Number(a[1]) - Number(b[1]))
      .map((match) => Number(match[2]) / 1024 / 1024)
    return {
      heap: gauge('nodejs_heap_size_used_bytes') / 1024 / 1024,
      replicaHeaps,
      pending: gauge('confab_bot_deliveries_pending'),
      oldestPending: gauge('confab_bot_delivery_oldest_pending_seconds'),
    }
  }
  /** On PostgreSQL, the dead row versions of the tables with most of them (an outbox's rows die as fast as they are written). */
  const deadRowsNow = async (): Promise<string> => {
    if (postgresServer === undefined) return ''
    return `, dead rows ${await deadRows(database.url).catch((error: Error) => `unread (${error.message})`)}`
  }
  // A server with autovacuum off (some benchmark machines) would keep every dead row of the outbox: the
  // soak does what autovacuum would, once a minute with its default thresholds, and says so.
  const standInVacuum = postgresServer !== undefined && !(await runsAutovacuum(database.url))
  if (standInVacuum) console.log('this PostgreSQL runs with autovacuum off: the soak vacuums as autovacuum would (default thresholds), once a minute')
  const bot = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ messages: [{ payload: { type: 'text', text: `reply ${data.payload?.text ?? ''}` } }] }))
  })
  await new Promise<void>((resolve) => bot.listen(0, '127.0.0.1', resolve))
  const listeners: Listener[] = []
  try {
    const created = await json(`${server.base}/v1/admin/bots`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'soak bot', url: `http://127.0.0.1:${(bot.address() as AddressInfo).port}/` }),
    })
    const botWebhook = created.bot.integrations.chat.webhookId as string
    // Four users, each in a conversation with the echo bot and one with the webhook bot.
    const users = await Promise.all(
      [0, 1, 2, 3].map(async (n) => {
        const echoKey = await signUserKey(`soak-${n}`, BENCH_ENCRYPTION_KEY)
        await json(`${server.base}/${WEBHOOK}/users/get-or-create`, {
          method: 'POST',
          headers: { 'x-user-key': echoKey, 'content-type': 'application/json' },
          body: '{}',
        })
        await json(`${server.base}/${WEBHOOK}/conversations`, {
          method: 'POST',
          headers: { 'x-user-key': echoKey, 'content-type': 'application/json' },
          body: JSON.stringify({ id: `soak-${n}` }),
        })
        const { key: botKey } = await json(`${server.base}/${botWebhook}/users`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
        const { conversation } = await json(`${server.base}/${botWebhook}/conversations`, {
          method: 'POST',
          headers: { 'x-user-key': botKey, 'content-type': 'application/json' },
          body: '{}',
        })
        return { echoKey, botKey, botConversation: conversation.id as string, echoConversation: `soak-${n}` }
      }),
    )
    const perUser = Math.max(1, Math.floor(listenerCount / (users.length * 2)))
    for (const u of users) {
      listeners.push(...(await listenMany(perUser, 50, () => listen(`${server.base}/${WEBHOOK}/conversations/${u.echoConversation}/listen`, u.echoKey))))
      listeners.push(...(await listenMany(perUser, 50, () => listen(`${server.base}/${botWebhook}/conversations/${u.botConversation}/listen`, u.botKey))))
    }

    // The mix: of every 10 requests, 3 to the echo bot, 3 to the webhook bot, 4 pages of messages.
    const mix = (n: number): Sent => {
      const u = users[n % users.length] as (typeof users)[number]
      const slot = n % 10
      if (slot < 3)
        return {
          method: 'POST',
          path: `/${WEBHOOK}/messages`,
          key: u.echoKey,
          body: JSON.stringify({ conversationId: u.echoConversation, payload: { type: 'text', text: `soak ${n}` } }),
        }
      if (slot < 6)
        return {
          method: 'POST',
          path: `/${botWebhook}/messages`,
          key: u.botKey,
          body: JSON.stringify({ conversationId: u.botConversation, payload: { type: 'text', text: `soak ${n}` } }),
        }
      return slot % 2 === 0
        ? { method: 'GET', path: `/${WEBHOOK}/conversations/${u.echoConversation}/messages`, key: u.echoKey }
        : { method: 'GET', path: `/${botWebhook}/conversations/${u.botConversation}/messages`, key: u.botKey }
    }

    const base = new URL(server.base)
    /** The mix in a closed loop for `seconds` (each connection sends its next request once its last is answered): the requests answered. */
    const closedLoop = async (seconds: number) => {
      const loopAgent = new Agent({ keepAlive: true, maxSockets: connections })
      const end = performance.now() + seconds * 1000
      let n = 0
      let answered = 0
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (performance.now() < end) if ((await send(loopAgent, base, mix(n++))) === 200) answered++
        }),
      )
      loopAgent.destroy()
      return answered
    }
    // A request is served once the bot has answered it too: the peak is the mix's requests over the time
    // it took to answer them and to drain their deliveries (the held load then starts on an empty outbox).
    // A peak of requests accepted alone, or of the echo bot alone, was more than the bots could answer:
    // held at half of it, the outbox grew all run long.
    const peakSeconds = 5
    const answered = await closedLoop(peakSeconds)
    const drainStarted = performance.now()
    while ((await gauges()).pending > 0 && performance.now() - drainStarted < drainLimitMs) await new Promise((resolve) => setTimeout(resolve, 200))
    const drainSeconds = (performance.now() - drainStarted) / 1000
    const peak = answered / (peakSeconds + drainSeconds)
    const rate = Math.max(10, Math.floor(peak / 2))
    console.log(
      `peak: the mix in a closed loop for ${peakSeconds} s, ${(answered / peakSeconds).toFixed(0)} req/s answered, its bot deliveries drained ${drainSeconds.toFixed(1)} s after: ${peak.toFixed(0)} req/s with every bot answer given`,
    )
    console.log(`holding half of that, ${rate} req/s, for ${minutes} min with ${listeners.length} SSE listeners`)

    const agent = new Agent({ keepAlive: true, maxSockets: connections })
    const rows: { minute: number; requests: number; p99: number; errors: number; late: number; rss: number; heap: number; pending: number }[] = []
    let sent = 0
    let vacuumRound = Promise.resolve('')
    const startedAt = performance.now()
    for (let minute = 1; minute <= minutes; minute++) {
      const samples: number[] = []
      let errors = 0
      /** The failures' statuses and what they were, e.g. "503 POST /bench/messages" (-1: no answer). */
      const failures = new Map<string, number>()
      let late = 0
      const racesBefore = keepAliveRaces
      let inFlight = 0
      const pending: Promise<void>[] = []
      const minuteEnd = startedAt + minute * minuteMs
      // Open loop: request n is due at n / rate seconds; one due while `connections` are busy is late.
      while (performance.now() < minuteEnd) {
        const due = startedAt + (sent / rate) * 1000
        const wait = due - performance.now()
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(wait, minuteEnd - performance.now()))))
        if (performance.now() >= minuteEnd) break
        if (inFlight >= connections) {
          late++
          await Promise.race(pending)
        }
        const spec = mix(sent++)
        const at = performance.now()
        inFlight++
        const done = send(agent, base, spec).then((status) => {
          inFlight--
          samples.push(performance.now() - at)
          if (status !== 200) {
            errors++
            const what = `${status} ${spec.method} ${spec.path.split('/').slice(0, 3).join('/')}`
            failures.set(what, (failures.get(what) ?? 0) + 1)
          }
          pending.splice(pending.indexOf(done), 1)
        })
        pending.push(done)
      }
      await Promise.all(pending)
      const l = latencies(samples)
      const { heap, replicaHeaps, pending: backlog, oldestPending } = await gauges()
      // The round started after the minute before (in the background, as autovacuum's), usually long done.
      const vacuumed = await vacuumRound
      if (standInVacuum) {
        vacuumRound = vacuumAsAutovacuumWould(database.url).then(
          (tables) => `, vacuumed after minute ${minute}: ${tables.join(' ') || 'none'}`,
          (error: Error) => `, vacuum after minute ${minute} failed: ${error.message}`,
        )
      }
      const row = { minute, requests: samples.length, p99: l.p99, errors, late, rss: server.rss(), heap, pending: backlog }
      rows.push(row)
      console.log(
        `  minute ${minute}: ${row.requests} requests, p99 ${ms(l.p99)}, ${errors} errors, ${late} late${keepAliveRaces > racesBefore ? `, ${keepAliveRaces - racesBefore} sent again after a keep-alive race` : ''}, server RSS ${row.rss.toFixed(0)} MiB, heap ${row.heap.toFixed(0)} MiB${replicaHeaps.length > 0 ? ` (read replicas' ${replicaHeaps.map((h) => h.toFixed(0)).join(' / ')} MiB)` : ''}, bot deliveries pending ${backlog} (oldest ${oldestPending.toFixed(1)} s)${await deadRowsNow()}${vacuumed}${failures.size > 0 ? ` (failed: ${[...failures].map(([what, n]) => `${what} ×${n}`).join(', ')})` : ''}`,
      )
    }
    agent.destroy()
    await vacuumRound

    // The first minute is the warm-up (JIT, caches, the read replicas starting). RSS and p99 swing with
    // the collector from minute to minute, so the minutes after it are judged in two halves: growth is
    // the later half's mean RSS over the earlier half's, drift the later half's worst p99 over the
    // earlier half's median.
    const errors = rows.reduce((sum, r) => sum + r.errors, 0)
    const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met')
    const judged = rows.slice(1)
    if (judged.length < 2) {
      console.log(`too short to judge growth and drift (3 minutes at least: warm-up, then two halves); errors ${errors}`)
    } else {
      const earlier = judged.slice(0, Math.ceil(judged.length / 2))
      const later = judged.slice(earlier.length)
      const mean = (xs: number[]) => xs.reduce((sum, x) => sum + x, 0) / xs.length
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
      const [rssBefore, rssAfter] = [mean(earlier.map((r) => r.rss)), mean(later.map((r) => r.rss))]
      const [heapBefore, heapAfter] = [mean(earlier.map((r) => r.heap)), mean(later.map((r) => r.heap))]
      const growth = (rssAfter / rssBefore - 1) * 100
      const [p99Before, p99Worst] = [median(earlier.map((r) => r.p99)), Math.max(...later.map((r) => r.p99))]
      const drift = p99Worst / p99Before
      const span = (part: typeof rows) => `minutes ${part[0]?.minute}–${part[part.length - 1]?.minute}`
      console.log(
        `RSS, mean of ${span(earlier)} ${rssBefore.toFixed(0)} MiB, of ${span(later)} ${rssAfter.toFixed(0)} MiB: growth ${growth.toFixed(1)} % (goal < 10 %: ${verdict(growth < 10)})`,
      )
      console.log(`heap, mean of ${span(earlier)} ${heapBefore.toFixed(0)} MiB, of ${span(later)} ${heapAfter.toFixed(0)} MiB`)
      console.log(
        `p99, median of ${span(earlier)} ${ms(p99Before)}, worst of ${span(later)} ${ms(p99Worst)}: drift ${drift.toFixed(2)} × (goal < 1.5 ×: ${verdict(drift < 1.5)})`,
      )
      console.log(
        `bot deliveries pending, median of ${span(earlier)} ${median(earlier.map((r) => r.pending))}, worst of ${span(later)} ${Math.max(...later.map((r) => r.pending))} (the bots kept up when it does not grow)`,
      )
      console.log(
        `errors ${errors} (goal 0: ${verdict(errors === 0)}); late requests ${rows.reduce((sum, r) => sum + r.late, 0)}; SSE listeners still open: ${listeners.length}`,
      )
    }
  } finally {
    for (const l of listeners) l.close()
    bot.close()
    await server.stop()
    await database.drop()
  }
}

await main()
