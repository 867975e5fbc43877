import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('..', import.meta.url))

/** Bootstrap secrets the start accepts (it refuses weak ones): fixed, as every bench process signs with them. */
export const BENCH_ENCRYPTION_KEY = '0f4b9ff2082f0854962fef851f60104c154fedfee8e0d1714b4799b59c102517'
export const BENCH_ADMIN_TOKEN = 'bp_pat_5929da76c3f1d04218d3712184d8c203'

export const benchEnv = (databaseUrl: string, env: Record<string, string> = {}) => ({
  // A load test from one address is what the rate limits refuse; RATE_LIMITS=on npm run bench measures them on.
  RATE_LIMITS: 'off',
  ...process.env,
  ...env,
  PORT: '0',
  HOST: '127.0.0.1',
  DATABASE_URL: databaseUrl,
  LOG_LEVEL: 'warn',
  CONFAB_WEBHOOK_ID: 'bench',
  CONFAB_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY,
  CONFAB_WORKSPACE_ID: 'wkspace_bench',
  CONFAB_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
})

export interface Server {
  base: string
  /** Where its metrics are (started with METRICS_PORT), once it has said so. */
  metricsUrl(): string | undefined
  process: ChildProcess
  /** Resident memory of the server process, MiB. */
  rss(): number
  /** CPU time the server process has used so far (user and system), ms: unlike wall time, a busy machine barely changes it. */
  cpuMs(): number
  stop(): Promise<void>
}

/** Polls /healthz until it answers 200; resolves with the milliseconds since `since`. */
export async function untilHealthy(base: string, since: number, child: ChildProcess): Promise<number> {
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited (${child.exitCode ?? child.signalCode})`)
    const ok = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) return performance.now() - since
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/**
 * Runs a command as a process group (so that npm's children go with it), serving on a free port,
 * and resolves once /healthz answers, with the milliseconds from spawning to that answer.
 */
export async function start(command: string[], databaseUrl: string, env: Record<string, string> = {}): Promise<{ server: Server; startup: number }> {
  const spawnedAt = performance.now()
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: root,
    env: benchEnv(databaseUrl, env),
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let exitedWith: string | undefined
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exitedWith = signal ?? `code ${code}`
      resolve()
    }),
  )
  /** A figure read from /proc of a live server; a server that died is said so, not a missing file. */
  const proc = (file: 'status' | 'stat') => {
    if (exitedWith !== undefined) throw new Error(`the server exited during the run (${exitedWith}): see its output above`)
    return readFileSync(`/proc/${child.pid}/${file}`, 'utf8')
  }
  let metricsUrl: string | undefined
  const base = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      if (out.length < 64 * 1024) out += chunk
      const listening = /Confab listening on (http:\/\/\S+)/.exec(out)
      if (listening?.[1]) resolve(listening[1])
      metricsUrl ??= /Metrics at (http:\/\/\S+)/.exec(out)?.[1]
    })
    void exited.then(() => reject(new Error(`${command.join(' ')} exited before listening:\n${out}`)))
  })
  const startup = await untilHealthy(base, spawnedAt, child)
  const server: Server = {
    base,
    metricsUrl: () => metricsUrl,
    process: child,
    rss() {
      const kb = /VmRSS:\s+(\d+) kB/.exec(proc('status'))?.[1]
      return Number(kb) / 1024
    },
    cpuMs() {
      // utime and stime, the 14th and 15th fields of /proc/<pid>/stat, in clock ticks (100 a second on Linux).
      const stat = proc('stat')
      const [utime, stime] = stat
        .slice(stat.lastIndexOf(')') + 2)
        .split(' ')
        .slice(11, 13)
        .map(Number)
      return ((utime ?? 0) + (stime ?? 0)) * 10
    },
    async stop() {
      try {
        process.kill(-(child.pid as number), 'SIGTERM')
      } catch {}
      await exited
    },
  }
  return { server, startup }
}

/** The built server itself (its pid is the server's: memory is read from it). */
export const startBuilt = (databaseUrl: string, env: Record<string, string> = {}) => start([process.execPath, 'dist/main.js'], databaseUrl, env)
