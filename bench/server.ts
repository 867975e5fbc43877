import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('..', import.meta.url))

export const benchEnv = (databaseUrl: string, port: number) => ({
  ...process.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  DATABASE_URL: databaseUrl,
  LOG_LEVEL: 'warn',
  CONFAB_WEBHOOK_ID: 'bench',
  CONFAB_ENCRYPTION_KEY: 'bench-encryption-key',
  CONFAB_WORKSPACE_ID: 'wkspace_bench',
  CONFAB_ADMIN_TOKEN: 'bp_pat_bench',
})

let nextPort = 41_000 + Math.floor(Math.random() * 10_000)

export interface Server {
  base: string
  process: ChildProcess
  /** Resident memory of the server process, MiB. */
  rss(): number
  stop(): Promise<void>
}

/** Polls /healthz until it answers 200; resolves with the milliseconds since `since`. */
export async function untilHealthy(base: string, since: number, child: ChildProcess): Promise<number> {
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited (${child.exitCode ?? child.signalCode})`)
    const ok = await fetch(`${base}/healthz`).then((r) => r.ok, () => false)
    if (ok) return performance.now() - since
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/**
 * Runs a command as a process group (so that npm's children go with it) serving on a port of its
 * own, and resolves once /healthz answers, with the milliseconds from spawning to that answer.
 */
export async function start(command: string[], databaseUrl: string): Promise<{ server: Server; startup: number }> {
  const port = nextPort++
  const base = `http://127.0.0.1:${port}`
  const spawnedAt = performance.now()
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: root,
    env: benchEnv(databaseUrl, port),
    detached: true,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const startup = await untilHealthy(base, spawnedAt, child)
  const server: Server = {
    base,
    process: child,
    rss() {
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]
      return Number(kb) / 1024
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
export const startBuilt = (databaseUrl: string) => start([process.execPath, 'dist/main.js'], databaseUrl)
