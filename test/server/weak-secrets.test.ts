import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { estimatedEntropyBits } from '../../src/contracts/secret-strength.ts'
import { loadConfig } from '../../src/config.ts'
import { ensureBuilt, randomAdminToken, randomEncryptionKey, runBuilt, START_TIMEOUT } from '../helpers/server.ts'

// Issue 49 row 7: a weak bootstrap secret (CONFAB_ENCRYPTION_KEY=secret cracked offline from one user
// key; CONFAB_ADMIN_TOKEN=a opening the admin API) is refused at start, naming the variable.

const dir = mkdtempSync(join(tmpdir(), 'confab-weak-secrets-'))
beforeAll(() => ensureBuilt(), START_TIMEOUT)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('the entropy estimate of a chosen secret', () => {
  it('counts hex at 4 bits a character and base64url at 6, and nothing for low variety', () => {
    expect(estimatedEntropyBits(randomBytes(32).toString('hex'))).toBe(256)
    expect(estimatedEntropyBits(randomBytes(16).toString('hex'))).toBe(128)
    expect(estimatedEntropyBits(randomBytes(32).toString('base64url'))).toBeGreaterThanOrEqual(256)
    for (const weak of ['', 'a', 'a'.repeat(200), 'secret'.repeat(20), 'ab'.repeat(100), '0123456789abcdef'.repeat(4)]) {
      expect(estimatedEntropyBits(weak)).toBe(0)
    }
    expect(estimatedEntropyBits('secret')).toBeLessThan(30)
  })
})

describe('CONFAB_ENCRYPTION_KEY and CONFAB_ADMIN_TOKEN at start', () => {
  it('accepts the values the docs and the perf scripts make (openssl rand -hex 32; bp_pat_ + openssl rand -hex 16)', () => {
    const env = { CONFAB_ENCRYPTION_KEY: randomEncryptionKey(), CONFAB_ADMIN_TOKEN: randomAdminToken() }
    expect(loadConfig(env).bootstrap).toMatchObject({ encryptionKey: env.CONFAB_ENCRYPTION_KEY, adminToken: env.CONFAB_ADMIN_TOKEN })
  })

  it.each([
    ['CONFAB_ENCRYPTION_KEY', 'secret', 256],
    ['CONFAB_ENCRYPTION_KEY', 'chaos-encryption-key-0123456789', 256],
    // 128 random bits: enough for the admin token, not for an HS256 key.
    ['CONFAB_ENCRYPTION_KEY', randomBytes(16).toString('hex'), 256],
    ['CONFAB_ADMIN_TOKEN', 'a', 128],
    ['CONFAB_ADMIN_TOKEN', 'bp_pat_test_admin_token', 128],
    ['CONFAB_ADMIN_TOKEN', `bp_pat_${'a'.repeat(64)}`, 128],
  ])('refuses %s=%s, naming the variable and the bits needed', (variable, value, needed) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(
      new RegExp(`^${variable} is too weak: about \\d+ bits of entropy estimated, at least ${needed} needed; use a random value`),
    )
  })

  it(
    '`npm start` exits 1 with the message, before opening the database',
    async () => {
      const databaseUrl = join(dir, 'weak.db')
      const started = await runBuilt('dist/main.js', [], { DATABASE_URL: databaseUrl, CONFAB_ENCRYPTION_KEY: 'secret' })
      expect(started.code).toBe(1)
      expect(started.output).toMatch(/^Confab failed to start: CONFAB_ENCRYPTION_KEY is too weak: about \d+ bits of entropy estimated, at least 256 needed/m)
      expect(started.output).not.toContain('Confab listening')
      expect(existsSync(databaseUrl)).toBe(false)
      const token = await runBuilt('dist/main.js', [], { DATABASE_URL: databaseUrl, CONFAB_ADMIN_TOKEN: 'a' })
      expect(token.code).toBe(1)
      expect(token.output).toContain('Confab failed to start: CONFAB_ADMIN_TOKEN is too weak: about 0 bits of entropy estimated, at least 128 needed')
    },
    START_TIMEOUT,
  )
})
