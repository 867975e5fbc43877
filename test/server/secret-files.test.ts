import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jwtVerify } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig, secretVariables } from '../../src/config.ts'
import { ensureBuilt, randomAdminToken, randomEncryptionKey, type RunningServer, runBuilt, START_TIMEOUT, startServer } from '../helpers/server.ts'

// <NAME>_FILE (docs/reference/configuration.md#secrets-from-files): a secret read from the file a Docker or
// Kubernetes secret, or a systemd credential, puts in place, never from the environment.

const dir = mkdtempSync(join(tmpdir(), 'confab-secret-files-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A file holding `content`, as an editor or `echo` leaves it (with a newline) unless told. */
const secretFile = (name: string, content: string) => {
  const path = join(dir, name)
  writeFileSync(path, content, { mode: 0o600 })
  return path
}

describe('each secret setting read from <NAME>_FILE (loadConfig)', () => {
  it('reads DATABASE_URL, REDIS_URL, CONFAB_ADMIN_TOKEN and CONFAB_ENCRYPTION_KEY from their files, trailing newlines trimmed', () => {
    expect(secretVariables).toEqual(['DATABASE_URL', 'REDIS_URL', 'CONFAB_ADMIN_TOKEN', 'CONFAB_ENCRYPTION_KEY'])
    const adminToken = randomAdminToken()
    const encryptionKey = randomEncryptionKey()
    const config = loadConfig({
      DATABASE_URL_FILE: secretFile('database-url', 'postgres://confab:s3cret@db:5432/confab\n'),
      REDIS_URL_FILE: secretFile('redis-url', 'redis://:s3cret@redis:6379\r\n'),
      CONFAB_ADMIN_TOKEN_FILE: secretFile('admin-token', `${adminToken}\n\n`),
      CONFAB_ENCRYPTION_KEY_FILE: secretFile('encryption-key', encryptionKey),
    })
    expect(config.databaseUrl).toBe('postgres://confab:s3cret@db:5432/confab')
    expect(config.redisUrl).toBe('redis://:s3cret@redis:6379')
    expect(config.bootstrap.adminToken).toBe(adminToken)
    expect(config.bootstrap.encryptionKey).toBe(encryptionKey)
  })

  it('keeps the leading and inner whitespace of a value; an empty _FILE variable counts as unset', () => {
    const spaced = ` ${randomEncryptionKey()}  ${randomEncryptionKey()} `
    const config = loadConfig({ CONFAB_ENCRYPTION_KEY_FILE: secretFile('spaced', `${spaced}\n`), DATABASE_URL_FILE: '', DATABASE_URL: 'x.db' })
    expect(config.bootstrap.encryptionKey).toBe(spaced)
    expect(config.databaseUrl).toBe('x.db')
  })

  it.each(secretVariables)('refuses %s set both ways, an unreadable file and an empty one, naming the variable', (name) => {
    const file = secretFile(`${name}-value`, 'value\n')
    expect(() => loadConfig({ [name]: 'value', [`${name}_FILE`]: file })).toThrow(
      new ConfigError(`${name} and ${name}_FILE are both set: set one of them (an empty ${name} counts as unset)`),
    )
    const missing = join(dir, 'no-such-file')
    expect(() => loadConfig({ [`${name}_FILE`]: missing })).toThrow(
      new ConfigError(`${name}_FILE could not be read: ENOENT: no such file or directory, open '${missing}'`),
    )
    expect(() => loadConfig({ [`${name}_FILE`]: dir })).toThrow(
      new ConfigError(`${name}_FILE could not be read: EISDIR: illegal operation on a directory, read`),
    )
    const empty = secretFile(`${name}-empty`, '\n')
    expect(() => loadConfig({ [`${name}_FILE`]: empty })).toThrow(new ConfigError(`${name}_FILE names an empty file: ${empty}`))
  })
})

describe('a start with its secrets in files (npm start)', () => {
  const adminToken = randomAdminToken()
  const encryptionKey = randomEncryptionKey()
  const databaseFile = join(dir, 'from-file.db')
  let server: RunningServer

  beforeAll(async () => {
    server = await startServer({
      databaseUrl: '',
      env: {
        DATABASE_URL: '',
        DATABASE_URL_FILE: secretFile('start-database-url', `${databaseFile}\n`),
        CONFAB_ADMIN_TOKEN_FILE: secretFile('start-admin-token', `${adminToken}\n`),
        CONFAB_ENCRYPTION_KEY_FILE: secretFile('start-encryption-key', `${encryptionKey}\n`),
        CONFAB_WORKSPACE_ID: 'wkspace_secret_files',
        CONFAB_WEBHOOK_ID: 'secret-files-webhook',
      },
    })
  }, START_TIMEOUT + 30_000)
  afterAll(() => server?.stop())

  it('opens the database the file names, accepts the admin token of its file, signs user keys with the key of its file, and logs neither', async () => {
    expect(existsSync(databaseFile)).toBe(true)
    expect(server.stdout()).toContain(`admin token:             ${adminToken}\n`)
    const bots = await fetch(`${server.baseUrl}/v1/admin/bots`, {
      headers: { authorization: `Bearer ${adminToken}`, 'x-workspace-id': 'wkspace_secret_files' },
    })
    expect(bots.status).toBe(200)
    const created = await fetch(`${server.baseUrl}/secret-files-webhook/users`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(created.status).toBe(200)
    const { key } = (await created.json()) as { key: string }
    await jwtVerify(key, new TextEncoder().encode(encryptionKey))
    expect(server.stdout() + server.stderr()).not.toContain(encryptionKey)
  })
})

describe('a start whose secret files are wrong (node dist/main.js)', () => {
  beforeAll(ensureBuilt, START_TIMEOUT)

  it('stops at once (exit 1) when a secret is set both ways, naming both variables', async () => {
    const { code, output } = await runBuilt('dist/main.js', [], {
      DATABASE_URL: ':memory:',
      CONFAB_ADMIN_TOKEN: 'bp_pat_in_the_environment',
      CONFAB_ADMIN_TOKEN_FILE: secretFile('both-admin-token', 'bp_pat_in_a_file\n'),
    })
    expect(code).toBe(1)
    expect(output).toBe(
      'Confab failed to start: CONFAB_ADMIN_TOKEN and CONFAB_ADMIN_TOKEN_FILE are both set: set one of them (an empty CONFAB_ADMIN_TOKEN counts as unset)\n',
    )
  })

  it('stops at once (exit 1) when the file cannot be read, naming the variable and the file', async () => {
    const missing = join(dir, 'missing-redis-url')
    const { code, output } = await runBuilt('dist/main.js', [], { DATABASE_URL: ':memory:', REDIS_URL_FILE: missing })
    expect(code).toBe(1)
    expect(output).toBe(`Confab failed to start: REDIS_URL_FILE could not be read: ENOENT: no such file or directory, open '${missing}'\n`)
  })
})
