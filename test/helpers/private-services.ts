import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { accessSync, chownSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/*
 * A PostgreSQL cluster and a Redis of a test's own, on ports of their own, to crash and restart: the
 * shared servers (5432, 6379) are never touched. Each fails loudly when its programs are missing,
 * never skips: a test that needs them is meant to run wherever the PostgreSQL suite runs.
 */

/** Where Debian's PostgreSQL 15 keeps initdb and pg_ctl (POSTGRES_BIN overrides it). */
export const POSTGRES_BIN = process.env.POSTGRES_BIN || '/usr/lib/postgresql/15/bin'

function requireProgram(path: string, what: string): string {
  try {
    accessSync(path, constants.X_OK)
  } catch {
    throw new Error(`${path} is missing: this test needs ${what} (apt-get install postgresql-15 redis-server)`)
  }
  return path
}

/** A port of 127.0.0.1 free now (the kernel's pick). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/**
 * initdb and the server refuse to run as root: as root (CI), they run as the `postgres` user the
 * package made, in a folder it owns.
 */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'))
  if (!line) throw new Error('running as root, and there is no postgres user to run PostgreSQL as')
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string
  port: number
  /** Starts the server and resolves once it accepts connections (pg_ctl -w). */
  start(): Promise<void>
  /** Stops it as a crash or a failover would: `pg_ctl stop -m immediate` (no checkpoint, connections cut). */
  crash(): Promise<void>
  /** Stops it if running and removes its folder. */
  remove(): Promise<void>
  /** Its server log, for a failure's message. */
  log(): string
}

/** A fresh cluster (initdb into a temporary folder, trust authentication), started. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const initdb = requireProgram(join(POSTGRES_BIN, 'initdb'), 'PostgreSQL (initdb)')
  const pgCtl = requireProgram(join(POSTGRES_BIN, 'pg_ctl'), 'PostgreSQL (pg_ctl)')
  const user = postgresUser()
  const dir = mkdtempSync(join(tmpdir(), 'confab-pg-'))
  if (user) chownSync(dir, user.uid, user.gid)
  const data = join(dir, 'data')
  const logFile = join(dir, 'server.log')
  const port = await freePort()
  const run = (program: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(program, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], ...(user ?? {}) })
      let output = ''
      child.stdout?.on('data', (chunk) => (output += chunk))
      child.stderr?.on('data', (chunk) => (output += chunk))
      child.once('error', reject)
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${program} ${args.join(' ')} exited with ${code}: ${output}`))))
    })
  await run(initdb, ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'])
  // Loopback only, its own port, its socket in its own folder; fsync off: a crash here is the
  // server's process dying, which the operating system's cache survives.
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c max_connections=60`
  let running = false
  const postgres: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      await run(pgCtl, ['-D', data, '-l', logFile, '-o', options, '-w', '-t', '60', 'start'])
      running = true
    },
    async crash() {
      await run(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop'])
      running = false
    },
    async remove() {
      if (running) await run(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined)
      running = false
      rmSync(dir, { recursive: true, force: true })
    },
    log: () => {
      try {
        return readFileSync(logFile, 'utf8')
      } catch {
        return ''
      }
    },
  }
  await postgres.start()
  return postgres
}

export interface PrivateRedis {
  url: string
  /** Starts redis-server on its port (again, after a kill) and resolves once it answers. */
  start(): Promise<void>
  /** SIGKILL: gone at once, as a crash. */
  kill(): Promise<void>
  remove(): Promise<void>
}

/** A redis-server of its own: no persistence, loopback, its own port; started. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const program = requireProgram(findOnPath('redis-server'), 'redis-server')
  const port = await freePort()
  let child: ChildProcess | undefined
  const redis: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      const started = spawn(program, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      child = started
      await new Promise<void>((resolve, reject) => {
        let output = ''
        const onData = (chunk: Buffer) => {
          output += chunk.toString()
          if (output.includes('Ready to accept connections')) {
            started.stdout?.off('data', onData)
            started.stdout?.resume()
            resolve()
          }
        }
        started.stdout?.on('data', onData)
        started.stderr?.resume()
        started.once('error', reject)
        started.once('exit', (code) => reject(new Error(`redis-server exited with ${code} before it was ready: ${output}`)))
      })
    },
    async kill() {
      const running = child
      child = undefined
      if (!running || running.exitCode !== null) return
      const exited = new Promise((resolve) => running.once('exit', resolve))
      running.kill('SIGKILL')
      await exited
    },
    remove: () => redis.kill(),
  }
  await redis.start()
  return redis
}

function findOnPath(name: string): string {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || `/usr/bin/${name}`
  } catch {
    return `/usr/bin/${name}`
  }
}
