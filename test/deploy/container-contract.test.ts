import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { chmodSync, chownSync, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dockerfile, execForm, runtimeStage } from '../helpers/dockerfile.ts'
import { ensureBuilt, ROOT } from '../helpers/server.ts'
import { eventually } from '../helpers/wait.ts'

// What the image (Dockerfile) relies on, proven without a container runtime: the package as `npm pack` makes it,
// installed into an empty folder with `npm ci --omit=dev` (the runtime stage's steps), started with the image's
// environment as a user who cannot write to it (USER node; here nobody when the test runs as root), with only
// the data folder writable. It answers /readyz, the image's HEALTHCHECK command passes, and SIGTERM turns
// /readyz 503 for the shutdown delay before the process exits 0.

const run = promisify(execFile)
const { stage, env: imageEnv } = runtimeStage(dockerfile())
const healthcheck = execForm(stage.find((i) => i.keyword === 'HEALTHCHECK')?.args as string)
const command = execForm(stage.find((i) => i.keyword === 'CMD')?.args as string)

const root = mkdtempSync(join(tmpdir(), 'confab-container-'))
const app = join(root, 'app')
const data = join(root, 'data')
/** Root writes through any mode: the server then runs as nobody, as the image runs it as node. */
const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
const INSTALL_TIMEOUT = 300_000

/**
 * The Node binary the server runs on, where that user can reach it: the image has node in /usr/local/bin, but a
 * test's Node may live in a folder only root may enter (CI unpacks it into a 0700 mktemp folder).
 */
const node = (() => {
  if (asUser.uid === undefined) return process.execPath
  chmodSync(root, 0o755)
  const bin = join(root, 'bin')
  mkdirSync(bin, { mode: 0o755 })
  const file = join(bin, 'node')
  try {
    linkSync(process.execPath, file)
  } catch {
    copyFileSync(process.execPath, file)
  }
  chmodSync(file, 0o755)
  return file
})()

/** Every path under a folder, relative to it (the application tree must be the same after a run). */
const tree = (dir: string, prefix = ''): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? [`${prefix}${entry.name}/`, ...tree(join(dir, entry.name), `${prefix}${entry.name}/`)] : [`${prefix}${entry.name}`],
  )

/** The environment of the container: the image's ENV over a bare PATH, the database in this test's data folder. */
const containerEnv = (extra: Record<string, string> = {}) => ({
  PATH: `${join(node, '..')}:/usr/bin:/bin`,
  ...imageEnv,
  DATABASE_URL: join(data, 'confab.db'),
  ...extra,
})

let packed: string[] = []
let appBefore: string[] = []

beforeAll(async () => {
  await ensureBuilt()
  chmodSync(root, 0o755)
  // As the build stage: `npm pack` of the built tree (dist/ is built by prepare; here by ensureBuilt, when stale).
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', root], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 })
  const [pack] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }]
  packed = pack.files.map((file) => file.path)
  mkdirSync(app)
  await run('tar', ['-xzf', join(root, pack.filename), '-C', app, '--strip-components=1'])
  copyFileSync(join(ROOT, 'package-lock.json'), join(app, 'package-lock.json'))
  // As the runtime stage (offline first: the packages are in npm's cache after the checkout's own npm ci).
  await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: app,
    env: { ...process.env, NODE_ENV: 'production' },
    maxBuffer: 16 * 1024 * 1024,
  })
  await run('chmod', ['-R', 'a-w', app])
  mkdirSync(data, { mode: 0o700 })
  if (asUser.uid !== undefined) chownSync(data, asUser.uid, asUser.gid)
  appBefore = tree(app)
}, INSTALL_TIMEOUT)

afterAll(async () => {
  if (existsSync(app)) await run('chmod', ['-R', 'u+w', app])
  await rm(root, { recursive: true, force: true })
}, INSTALL_TIMEOUT)

describe('the package npm pack makes (package.json files)', () => {
  it("holds the built server, the command line, the web chat and agent console bundles, both engines' migrations and the prepare script; no tests, no sources to compile", () => {
    for (const path of [
      'dist/main.js',
      'dist/cli.js',
      'dist/bundle/main.js',
      'dist/bundle/read-replica.js',
      'dist/webchat/webchat.js',
      'dist/agent-console/console.js',
      'drizzle/0000_init.sql',
      'drizzle/meta/_journal.json',
      'drizzle/postgres/meta/_journal.json',
      'src/build.mjs',
      'package.json',
      'LICENSE',
    ]) {
      expect(packed, path).toContain(path)
    }
    expect(packed.filter((path) => /^(test|bench|docs|examples|deploy)\//.test(path) || (path.startsWith('src/') && path !== 'src/build.mjs'))).toEqual([])
  })

  it('installs without a dev dependency, and without building (dist/ comes built)', () => {
    expect(existsSync(join(app, 'node_modules/better-sqlite3'))).toBe(true)
    for (const dev of ['typescript', 'vitest', 'esbuild', 'tsx']) expect(existsSync(join(app, 'node_modules', dev)), dev).toBe(false)
  })
})

describe("the image's command in a read-only tree, with the image's environment", () => {
  let server: ChildProcess
  let output = ''
  let port = 0
  const exited = () =>
    new Promise<number | null>((resolve) => (server.exitCode !== null ? resolve(server.exitCode) : server.once('exit', (code) => resolve(code))))
  const readyz = async () => {
    const response = await fetch(`http://127.0.0.1:${port}/readyz`)
    return { status: response.status, body: await response.json() }
  }
  /** The image's HEALTHCHECK command, run as Docker runs it in the container: its exit code. */
  const healthy = () =>
    new Promise<number | null>((resolve) => {
      const [file, ...argv] = healthcheck as [string, ...string[]]
      const check = spawn(file === 'node' ? node : file, argv, { env: containerEnv({ PORT: String(port) }), stdio: 'ignore', ...asUser })
      check.once('exit', (code) => resolve(code))
    })

  beforeAll(async () => {
    // `confab migrate` (the Kubernetes set-up's init container) on the empty volume first.
    const migrate = await run(node, ['dist/cli.js', 'migrate'], { cwd: app, env: containerEnv(), ...asUser })
    expect(migrate.stdout).toBe(`migrated ${join(data, 'confab.db')}\n`)
    // PORT 0 (a free port) in place of the image's 3000; a long delay, ended below by a second SIGTERM, so
    // that a busy machine cannot miss the 503 window.
    const [file, ...argv] = command as [string, ...string[]]
    expect(file).toBe('node')
    server = spawn(node, argv, {
      cwd: app,
      env: containerEnv({ PORT: '0', SHUTDOWN_DELAY_SECONDS: '120' }),
      stdio: ['ignore', 'pipe', 'pipe'],
      ...asUser,
    })
    server.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    server.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    await eventually(() => {
      expect(server.exitCode, output).toBeNull()
      port = Number(/^Confab listening on http:\/\/0\.0\.0\.0:(\d+)$/m.exec(output)?.[1])
      expect(port).toBeGreaterThan(0)
    }, 60_000)
  }, 90_000)

  afterAll(() => {
    if (server?.exitCode === null) server.kill('SIGKILL')
  })

  it('listens on every interface, keeps its database in the data folder (0600), answers /readyz 200, and the HEALTHCHECK passes', async () => {
    expect(output).toContain('Confab bootstrap: created the default tenant.')
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ready' } })
    expect(await healthy()).toBe(0)
    expect(statSync(join(data, 'confab.db')).mode & 0o777).toBe(0o600)
    expect(tree(app)).toEqual(appBefore)
  })

  it('on SIGTERM answers /readyz 503 (the HEALTHCHECK fails) for the shutdown delay; a second SIGTERM ends it; exit 0, nothing written outside the data folder', async () => {
    server.kill('SIGTERM')
    await eventually(async () => expect(await readyz()).toEqual({ status: 503, body: { status: 'unavailable', reason: 'stopping' } }))
    expect(await healthy()).toBe(1)
    server.kill('SIGTERM')
    expect(await exited()).toBe(0)
    expect(output).not.toMatch(/EACCES|EROFS|Error/)
    expect(tree(app)).toEqual(appBefore)
  }, 60_000)
})
