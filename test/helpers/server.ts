import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll } from 'vitest'

/** Bootstrap secrets the start accepts (it refuses weak ones, src/contracts/secret-strength.ts), made as the docs suggest. */
export const randomAdminToken = () => `bp_pat_${randomBytes(16).toString('hex')}`
export const randomEncryptionKey = () => randomBytes(32).toString('hex')

/** The project root, where `npm start` is run. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** `npm start` builds first when src/ is newer than dist/ (src/build.mjs --if-stale). */
export const START_TIMEOUT = 120_000
const EXIT_TIMEOUT = 15_000

const LISTENING = /^Confab listening on (http:\/\/127\.0\.0\.1:(\d+))$/m

export interface ExitStatus {
  code: number | null
  signal: NodeJS.Signals | null
}

export interface RunningServer {
  baseUrl: string
  port: number
  /** The pid of `node dist/main.js` (npm runs it through `sh -c`, both in npm's process group). */
  serverPid: number
  /** Everything the process group has written to stdout / stderr so far. */
  stdout: () => string
  stderr: () => string
  /**
   * SIGTERM to the whole process group (npm, sh and node), as a terminal's Ctrl-C or a supervisor
   * does; resolves once npm and the server process have both exited. npm itself dies of the signal,
   * so its exit status says nothing about the server's: use terminate() to observe that.
   */
  stop: () => Promise<void>
  /**
   * SIGTERM to the server process alone; npm then exits with the status the server exited with,
   * which this resolves to once the server process is gone.
   */
  terminate: () => Promise<ExitStatus>
  /** SIGKILL to the whole process group, as a crash would: nothing is flushed or closed. Resolves once the server is gone. */
  kill: () => Promise<void>
  /** Sends a signal to the server process alone, without waiting for anything. */
  signal: (signal: NodeJS.Signals) => void
  /** Resolves to npm's exit status (the server's, when the server alone was signalled) once the server process is gone. */
  exited: () => Promise<ExitStatus>
}

const running = new Set<ChildProcess>()

// A worker that dies mid-run must not leave a server listening.
process.once('exit', () => {
  for (const child of running) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
    } catch {}
  }
})

/** The state letter of /proc/<pid>/stat, or undefined once the process is gone. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
  } catch {
    return undefined
  }
}

/** An orphan reparented to a non-reaping init lingers as a zombie: that counts as exited. */
const alive = (pid: number) => {
  const state = processState(pid)
  return state !== undefined && state !== 'Z' && state !== 'X'
}

async function waitUntilGone(pid: number, timeout: number): Promise<boolean> {
  const deadline = Date.now() + timeout
  while (alive(pid)) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return true
}

/** The `node dist/main.js` process of a process group (Linux /proc). */
function findServerPid(groupId: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[2]) !== groupId) continue
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')
      if (/(^|\/)node$/.test(argv[0] ?? '') && argv.slice(1).some((arg) => /(^|\/)dist\/main\.js$/.test(arg))) {
        return Number(entry)
      }
    } catch {}
  }
  return undefined
}

/**
 * Starts the server exactly as `npm start` does, on a free port of 127.0.0.1 and the given
 * database file, and resolves once it prints `Confab listening on http://127.0.0.1:PORT`.
 */
export function startServer(options: { databaseUrl: string; env?: Record<string, string> }): Promise<RunningServer> {
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: options.databaseUrl,
      LOG_LEVEL: 'warn',
      ...options.env,
    },
  })
  running.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child)
      resolve({ code, signal })
    })
  })
  const groupId = child.pid as number
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-groupId, signal)
    } catch {}
  }

  return new Promise<RunningServer>((resolve, reject) => {
    let settled = false
    const fail = (reason: string) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      killGroup('SIGKILL')
      reject(new Error(`npm start ${reason}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`))
    }
    const timer = setTimeout(() => fail(`did not print its address within ${START_TIMEOUT} ms`), START_TIMEOUT)
    void exited.then((status) => fail(`exited before listening (${JSON.stringify(status)})`))

    const onData = () => {
      const match = LISTENING.exec(stdout)
      if (!match || settled) return
      const serverPid = findServerPid(groupId)
      if (serverPid === undefined) return fail('is listening but its node process was not found')
      settled = true
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      const baseUrl = match[1] as string

      const settle = async (signalled: Promise<ExitStatus>) => {
        const [status, gone] = await Promise.all([signalled, waitUntilGone(serverPid, EXIT_TIMEOUT)])
        if (!gone) {
          killGroup('SIGKILL')
          throw new Error(`the server process ${serverPid} did not exit within ${EXIT_TIMEOUT} ms of SIGTERM`)
        }
        return status
      }

      resolve({
        baseUrl,
        port: Number(match[2]),
        serverPid,
        stdout: () => stdout,
        stderr: () => stderr,
        stop: async () => {
          killGroup('SIGTERM')
          await settle(exited)
        },
        terminate: async () => {
          try {
            process.kill(serverPid, 'SIGTERM')
          } catch {}
          return settle(exited)
        },
        kill: async () => {
          killGroup('SIGKILL')
          await settle(exited)
        },
        signal: (signal) => {
          try {
            process.kill(serverPid, signal)
          } catch {}
        },
        exited: () => settle(exited),
      })
    }
    child.stdout?.on('data', onData)
  })
}

let built: Promise<void> | undefined

/**
 * dist/ as `npm start` would leave it: built again only when src/ changed since (src/build.mjs --if-stale).
 * A file that runs dist/ calls it in its beforeAll (with START_TIMEOUT): a build on a busy machine takes a while.
 */
export const ensureBuilt = () =>
  (built ??= new Promise<void>((resolve, reject) => {
    const build = spawn(process.execPath, [join(ROOT, 'src/build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' })
    build.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`src/build.mjs exited with ${code}`))))
  }))

/** A built entry point of dist/ (`dist/cli.js`, `dist/main.js` …) run to its end: its exit code and all it wrote. */
export async function runBuilt(entry: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  await ensureBuilt()
  const child = spawn(process.execPath, [join(ROOT, entry), ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
  })
  running.add(child)
  let output = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      running.delete(child)
      resolve({ code, output })
    }),
  )
}

/** `confab <args>` as a user runs it (the built command line) on a database. */
export const confab = (args: string[], databaseUrl: string, env: Record<string, string> = {}) =>
  runBuilt('dist/cli.js', args, { DATABASE_URL: databaseUrl, ...env })

/**
 * A folder of a test file's own (`<prefix>…` in the temporary folder) and a list to push the servers it
 * starts to: after the file, the servers are stopped and the folder removed.
 */
export function serversInFolder(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const started: RunningServer[] = []
  afterAll(async () => {
    await Promise.allSettled(started.map((s) => s.stop()))
    rmSync(dir, { recursive: true, force: true })
  }, 60_000)
  return { dir, started }
}
