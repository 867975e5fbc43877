/*
 * Confab benchmark: start-up time to /healthz, REST and GraphQL throughput and latency, and memory,
 * against the built server (`npm run build` first) on a temporary database. Prints its figures.
 * Usage: npm run bench [-- --messages 2000 --concurrency 20]
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SignJWT } from 'jose'

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const messageCount = arg('messages', 2000)
const concurrency = arg('concurrency', 20)
const queryCount = arg('queries', 500)

const root = fileURLToPath(new URL('..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'confab-bench-'))
const env = {
  ...process.env,
  PORT: '0',
  DATABASE_URL: join(dir, 'confab.db'),
  LOG_LEVEL: 'warn',
  CONFAB_WEBHOOK_ID: 'bench',
  CONFAB_ENCRYPTION_KEY: 'bench-key',
  CONFAB_WORKSPACE_ID: 'wkspace_bench',
  CONFAB_ADMIN_TOKEN: 'bench-token',
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
const ms = (n: number) => `${n.toFixed(1)} ms`

async function timed(count: number, run: (i: number) => Promise<Response>) {
  const latencies: number[] = []
  let next = 0
  let failures = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++
        const t0 = performance.now()
        const response = await run(i)
        await response.arrayBuffer()
        if (response.status !== 200) failures++
        latencies.push(performance.now() - t0)
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return { perSecond: count / seconds, p50: percentile(latencies, 50), p95: percentile(latencies, 95), failures }
}

async function main() {
  const spawnedAt = performance.now()
  const server = spawn(process.execPath, [join(root, 'dist/main.js')], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  const base = await new Promise<string>((resolve, reject) => {
    let out = ''
    server.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening on (http:\/\/\S+)/.exec(out)
      if (match?.[1]) resolve(match[1])
    })
    server.once('exit', (code) => reject(new Error(`server exited with ${code}; run npm run build first`)))
  })
  for (;;) {
    const ok = await fetch(`${base}/healthz`).then((r) => r.ok, () => false)
    if (ok) break
  }
  const startup = performance.now() - spawnedAt

  const chat = `${base}/bench`
  const key = await new SignJWT({ id: 'bench-user' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('bench-key'))
  const headers = { 'content-type': 'application/json', 'x-user-key': key }
  await fetch(`${chat}/users/get-or-create`, { method: 'POST', headers, body: '{}' })
  await fetch(`${chat}/conversations`, { method: 'POST', headers, body: JSON.stringify({ id: 'bench-1' }) })

  const writes = await timed(messageCount, () =>
    fetch(`${chat}/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ conversationId: 'bench-1', payload: { type: 'text', text: 'hello' } }),
    }),
  )
  const view = JSON.stringify({
    query:
      'query { conversation(id: "bench-1") { participants(first: 10) { edges { node { userId } } } messages(first: 20) { edges { node { messageId author { userId } payload { ... on TextPayload { text } } } } } } }',
  })
  const reads = await timed(queryCount, () => fetch(`${chat}/graphql`, { method: 'POST', headers, body: view }))
  const lists = await timed(queryCount, () => fetch(`${chat}/conversations/bench-1/messages`, { headers }))
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1]

  console.log(`Confab benchmark (concurrency ${concurrency}; each user message is also answered by the echo bot)`)
  console.log(`  start-up to /healthz 200:             ${ms(startup)}`)
  console.log(`  POST /messages x${messageCount}:              ${writes.perSecond.toFixed(0)} req/s, p50 ${ms(writes.p50)}, p95 ${ms(writes.p95)}, non-200 ${writes.failures}`)
  console.log(`  GraphQL conversation view x${queryCount}:     ${reads.perSecond.toFixed(0)} req/s, p50 ${ms(reads.p50)}, p95 ${ms(reads.p95)}, non-200 ${reads.failures}`)
  console.log(`  GET listMessages x${queryCount}:              ${lists.perSecond.toFixed(0)} req/s, p50 ${ms(lists.p50)}, p95 ${ms(lists.p95)}, non-200 ${lists.failures}`)
  console.log(`  server resident memory after the run: ${rss ? `${(Number(rss) / 1024).toFixed(1)} MiB` : 'n/a'}`)

  server.kill('SIGTERM')
  await new Promise((resolve) => server.once('exit', resolve))
  rmSync(dir, { recursive: true, force: true })
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
