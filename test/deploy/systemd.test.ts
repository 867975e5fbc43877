import { randomBytes } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig, secretVariables } from '../../src/config.ts'
import { documentedVariables } from '../helpers/deploy-files.ts'
import { ROOT } from '../helpers/server.ts'

/** A secret as the guides make it (openssl rand -hex 32): the start refuses weak ones. */
const STRONG_SECRET = randomBytes(32).toString('hex')

// deploy/systemd/confab.service, checked by systemd's own `systemd-analyze verify` (CI installs Debian's
// systemd where it is missing; where it cannot run, the test says so) and read as the settings it gives Confab.

const unitText = readFileSync(join(ROOT, 'deploy/systemd/confab.service'), 'utf8')
const envFile = readFileSync(join(ROOT, 'deploy/systemd/confab.env'), 'utf8')
const tmp = mkdtempSync(join(tmpdir(), 'confab-systemd-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** Every `Key=value` line of the [Service] section, in order (a key may repeat). */
const service = (() => {
  const section = unitText.slice(unitText.indexOf('[Service]'), unitText.indexOf('[Install]'))
  return section
    .split('\n')
    .filter((line) => /^[A-Z]\w*=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const)
})()
const values = (key: string) => service.filter(([name]) => name === key).map(([, value]) => value)
/** Environment= lines as one record (space-separated assignments, none quoted here). */
const unitEnv: Record<string, string> = Object.fromEntries(
  values('Environment').flatMap((line) => line.split(' ').map((pair) => pair.split('=') as [string, string])),
)
const fileEnv: Record<string, string> = Object.fromEntries(
  envFile
    .split('\n')
    .filter((line) => /^[A-Z]/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
)

const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' })
const hasAnalyze = analyze.status === 0
if (!hasAnalyze) console.warn('systemd-analyze is not installed (Debian: apt-get install systemd): confab.service is not verified by systemd')

describe('deploy/systemd/confab.service (systemd-analyze)', () => {
  /** The unit with the package's folder made real (verify wants ExecStart's program), node where it is here. */
  const unitFile = () => {
    const app = join(tmp, 'opt-confab')
    mkdirSync(join(app, 'dist'), { recursive: true })
    writeFileSync(join(app, 'dist/main.js'), '')
    const file = join(tmp, 'confab.service')
    writeFileSync(file, unitText.replaceAll('/opt/confab', app).replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `))
    return file
  }

  it.runIf(hasAnalyze)('passes `systemd-analyze verify` without a word', () => {
    const verify = spawnSync('systemd-analyze', ['verify', unitFile()], { encoding: 'utf8' })
    expect({ status: verify.status, output: verify.stdout + verify.stderr }).toEqual({ status: 0, output: '' })
  })

  it.runIf(hasAnalyze)('is exposed no more than "OK" by `systemd-analyze security` (2.0 or less of 10)', () => {
    const security = spawnSync('systemd-analyze', ['security', '--offline=true', unitFile()], { encoding: 'utf8' })
    expect(security.status, security.stderr).toBe(0)
    const exposure = Number(/Overall exposure level for confab\.service: ([\d.]+)/.exec(security.stdout)?.[1])
    expect(exposure).toBeLessThanOrEqual(2)
  })
})

describe('deploy/systemd/confab.service (its settings)', () => {
  it('runs node on the package as the confab user, its database in its own state directory, 0700', () => {
    expect(values('User')).toEqual(['confab'])
    expect(values('StateDirectory')).toEqual(['confab'])
    expect(values('StateDirectoryMode')).toEqual(['0700'])
    expect(values('ExecStart')).toEqual(['/usr/bin/node /opt/confab/dist/main.js'])
    expect(unitEnv.DATABASE_URL).toBe('/var/lib/confab/confab.db')
    expect(values('EnvironmentFile')).toEqual(['/etc/confab/confab.env'])
  })

  it('is hardened: no new privileges, a read-only system, no home, a private /tmp, no capabilities', () => {
    for (const [key, value] of Object.entries({
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
      RestrictSUIDSGID: 'yes',
      CapabilityBoundingSet: '',
      UMask: '0077',
    })) {
      expect(values(key), key).toEqual([value])
    }
  })

  it('hands every secret over as a credential read through *_FILE, each credential loaded', () => {
    const loaded = new Map(values('LoadCredential').map((line) => line.split(':') as [string, string]))
    const fileVariables = Object.entries(unitEnv).filter(([name]) => name.endsWith('_FILE'))
    expect(fileVariables.length).toBeGreaterThan(0)
    for (const [name, path] of fileVariables) {
      expect(secretVariables as readonly string[], name).toContain(name.replace(/_FILE$/, ''))
      expect(path).toMatch(/^%d\//)
      expect(loaded.get(path.slice(3)), name).toMatch(/^\/etc\/confab\/credentials\//)
    }
    // DATABASE_URL is an SQLite file here: a path, no password.
    const env = { ...unitEnv, ...fileEnv }
    for (const name of secretVariables.filter((name) => name !== 'DATABASE_URL')) expect(env[name], name).toBeUndefined()
    expect(env.DATABASE_URL).toMatch(/^\//)
  })

  it('gives Confab documented settings that it accepts, and time to stop', () => {
    const documented = documentedVariables()
    const env: Record<string, string> = { ...unitEnv, ...fileEnv }
    for (const name of Object.keys(env)) expect(documented, name).toContain(name)
    const credentials = join(tmp, 'credentials')
    mkdirSync(credentials, { recursive: true })
    for (const [name, path] of Object.entries(env).filter(([name]) => name.endsWith('_FILE'))) {
      writeFileSync(join(credentials, path.slice(3)), `${STRONG_SECRET}\n`)
      env[name] = path.replace('%d', credentials)
    }
    const config = loadConfig(env)
    expect(config).toMatchObject({ host: '127.0.0.1', port: 3000, trustProxy: ['loopback'], publicUrl: 'https://chat.example.com' })
    expect(config.bootstrap.adminToken).toBe(STRONG_SECRET)
    expect(Number(values('TimeoutStopSec')[0])).toBeGreaterThan(config.shutdownDelayMs / 1000 + 10)
    expect(values('KillSignal')).toEqual(['SIGTERM'])
  })
})
