import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeJwt, jwtVerify } from 'jose'
import { signUserKey } from '../../src/auth/user-key.ts'
import { openSqliteStore } from '../../src/db/sqlite/store.ts'
import { createServer } from '../../src/server.ts'
import { confab, ensureBuilt, randomAdminToken, ROOT, type RunningServer, START_TIMEOUT, startServer } from '../helpers/server.ts'

const dir = mkdtempSync(join(tmpdir(), 'confab-credentials-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const bootstrap = { workspaceId: 'wkspace_credentials', adminToken: 'bp_pat_first_admin_token', webhookId: 'credentials-webhook', encryptionKey: 'shared-key' }
const log = pino({ level: 'silent' })

/** The admin API's answer to one token, on a server over the database. */
async function adminStatus(databaseUrl: string, tokens: string[]): Promise<number[]> {
  const server = await createServer({ databaseUrl, log })
  try {
    return await Promise.all(
      tokens.map(async (token) => {
        const response = await fetch(`${server.url}/v1/admin/bots`, { headers: { authorization: `Bearer ${token}`, 'x-workspace-id': bootstrap.workspaceId } })
        return response.status
      }),
    )
  } finally {
    await server.close()
  }
}

beforeAll(ensureBuilt, START_TIMEOUT)

describe('confab credentials', () => {
  it(
    'shows the stored values again, never a secret; issues a new admin token beside the old, then revokes the old',
    async () => {
      const databaseUrl = join(dir, 'confab.db')
      await (await createServer({ databaseUrl, log, bootstrap })).close()

      const shown = await confab(['credentials'], databaseUrl, { PORT: '4123' })
      expect(shown.code).toBe(0)
      expect(shown.output).toContain('workspace wkspace_credentials (Default workspace)')
      expect(shown.output).toContain('  admin base URL:  http://127.0.0.1:4123/v1/admin')
      expect(shown.output).toContain('  admin tokens:    1, the newest issued ')
      expect(shown.output).toContain('    webhook id:              credentials-webhook')
      expect(shown.output).toContain('    chat base URL (apiUrl):  http://127.0.0.1:4123/credentials-webhook')
      expect(shown.output).not.toContain(bootstrap.adminToken)
      expect(shown.output).not.toContain(bootstrap.encryptionKey)

      const issued = await confab(['credentials', '--new-admin-token'], databaseUrl)
      expect(issued.code).toBe(0)
      const token = /new admin token for wkspace_credentials \(shown this once; keep it\): (bp_pat_\S+)/.exec(issued.output)?.[1] as string
      expect(token).toBeDefined()
      expect(issued.output).toContain('  admin tokens:    2, the newest issued ')
      // Without PUBLIC_URL or PORT the command cannot know the server's address, and prints no made-up one.
      expect(issued.output).toContain('$CONFAB_URL: the address the server printed (export CONFAB_URL=…); set PUBLIC_URL, or PORT, to see it here')
      expect(issued.output).toContain('  admin base URL:  $CONFAB_URL/v1/admin')
      expect(issued.output).toContain('    chat base URL (apiUrl):  $CONFAB_URL/credentials-webhook')
      expect(await adminStatus(databaseUrl, [bootstrap.adminToken, token])).toEqual([200, 200])

      const revoked = await confab(['credentials', '--revoke-older-admin-tokens'], databaseUrl)
      expect(revoked.code).toBe(0)
      expect(revoked.output).toContain('revoked 1 older admin tokens of wkspace_credentials')
      expect(await adminStatus(databaseUrl, [bootstrap.adminToken, token])).toEqual([401, 200])
      expect((await confab(['credentials'], databaseUrl)).output).not.toContain(token)
    },
    START_TIMEOUT * 3,
  )

  it(
    'refuses, in words, a database that does not exist (creating none), a database with no tenant, an unknown workspace',
    async () => {
      const missing = await confab(['credentials'], join(dir, 'missing.db'))
      expect(missing.code).toBe(1)
      expect(missing.output).toContain(
        `confab credentials failed: no database at ${join(dir, 'missing.db')} (DATABASE_URL=${join(dir, 'missing.db')}): set DATABASE_URL to the database the server uses`,
      )
      expect(existsSync(join(dir, 'missing.db'))).toBe(false)

      const empty = join(dir, 'empty.db')
      await (await openSqliteStore(empty)).close()
      const noTenant = await confab(['credentials'], empty)
      expect(noTenant.code).toBe(1)
      expect(noTenant.output).toContain('the database has no tenant yet')

      const databaseUrl = join(dir, 'served.db')
      const unknown = await (async () => {
        await (await createServer({ databaseUrl, log, bootstrap: { ...bootstrap, webhookId: 'served-webhook' } })).close()
        return confab(['credentials', '--new-admin-token', '--workspace', 'wkspace_nope'], databaseUrl)
      })()
      expect(unknown.code).toBe(1)
      expect(unknown.output).toContain('confab credentials failed: Workspace "wkspace_nope" does not exist')
    },
    START_TIMEOUT,
  )

  it(
    'shows the credentials beside a running server on SQLite (read-only); refuses to change them there, saying why',
    async () => {
      const databaseUrl = join(dir, 'beside.db')
      await (await createServer({ databaseUrl, log, bootstrap: { ...bootstrap, webhookId: 'beside-webhook' } })).close()
      const ignoredToken = randomAdminToken()
      const server = await startServer({ databaseUrl, env: { CONFAB_ADMIN_TOKEN: ignoredToken } })
      try {
        const shown = await confab(['credentials'], databaseUrl, { PUBLIC_URL: 'https://chat.example.com/confab' })
        expect(shown.code).toBe(0)
        expect(shown.output).toContain('workspace wkspace_credentials (Default workspace)')
        expect(shown.output).toContain('  admin base URL:  https://chat.example.com/confab/v1/admin')
        expect(shown.output).toContain('    chat base URL (apiUrl):  https://chat.example.com/confab/beside-webhook')
        // The server goes on serving and writing meanwhile.
        const created = await fetch(`${server.baseUrl}/beside-webhook/users`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
        expect(created.status).toBe(200)

        const refused = await confab(['credentials', '--new-admin-token'], databaseUrl)
        expect(refused.code).toBe(1)
        expect(refused.output).toContain(`the database ${databaseUrl} is in use by another process (pid ${server.serverPid} on `)
        expect(refused.output).toContain('(showing the credentials works beside a running server; changing them on SQLite does not)')
        // The start said which first-run values it ignored, without their values.
        expect(server.stderr() + server.stdout()).toContain('CONFAB_ADMIN_TOKEN')
        expect(server.stderr() + server.stdout()).not.toContain(ignoredToken)
      } finally {
        await server.stop()
      }
    },
    START_TIMEOUT,
  )
})

/**
 * POST /users/get-or-create with each user key, on `npm start` over the database: the statuses, the
 * key a new user gets (POST /users; undefined when refused), and all the server wrote.
 */
async function userKeyStatuses(
  databaseUrl: string,
  webhookId: string,
  userKeys: string[],
): Promise<{ statuses: number[]; createdKey: string | undefined; output: string }> {
  const server: RunningServer = await startServer({ databaseUrl })
  try {
    const statuses = []
    for (const key of userKeys) {
      const headers = { 'x-user-key': key, 'content-type': 'application/json' }
      statuses.push((await fetch(`${server.baseUrl}/${webhookId}/users/get-or-create`, { method: 'POST', headers, body: '{}' })).status)
    }
    const created = await fetch(`${server.baseUrl}/${webhookId}/users`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    const createdKey = created.status === 200 ? ((await created.json()) as { key: string }).key : undefined
    return { statuses, createdKey, output: server.stdout() + server.stderr() }
  } finally {
    await server.stop()
  }
}

const newKeyIn = (output: string, webhookId: string, mode: string) =>
  new RegExp(`new ${mode} encryption key for ${webhookId} \\(shown this once; keep it\\): (\\S+)`).exec(output)?.[1] as string

describe('confab credentials --rotate-encryption-key, then --retire-old-encryption-keys', () => {
  it(
    'shared key: user keys the old key signed work during the overlap, the new key signs new ones, retirement refuses the old (401); no key is logged',
    async () => {
      const databaseUrl = join(dir, 'rotate-shared.db')
      const webhookId = 'rotate-shared-webhook'
      const server = await createServer({ databaseUrl, log, bootstrap: { ...bootstrap, webhookId } })
      const created = await fetch(`${server.url}/${webhookId}/users`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      const { key: oldUserKey } = (await created.json()) as { key: string }
      await server.close()
      await jwtVerify(oldUserKey, new TextEncoder().encode(bootstrap.encryptionKey))

      const rotated = await confab(['credentials', '--rotate-encryption-key', '--overlap', '2h'], databaseUrl)
      expect(rotated.code).toBe(0)
      const newKey = newKeyIn(rotated.output, webhookId, 'shared')
      expect(newKey.length).toBeGreaterThanOrEqual(32)
      expect(rotated.output).toMatch(/user keys signed with the old key keep working until \d{4}-\d\d-\d\dT/)
      expect(rotated.output).not.toContain(bootstrap.encryptionKey)
      // Shown once: not by the next look.
      expect((await confab(['credentials'], databaseUrl)).output).not.toContain(newKey)

      const userId = decodeJwt(oldUserKey).id as string
      const newUserKey = await signUserKey(userId, newKey)
      const during = await userKeyStatuses(databaseUrl, webhookId, [oldUserKey, newUserKey, await signUserKey(userId, 'not-the-key')])
      expect(during.statuses).toEqual([200, 200, 401])
      // A new user's key is signed with the new key.
      await jwtVerify(during.createdKey as string, new TextEncoder().encode(newKey))

      const retired = await confab(['credentials', '--retire-old-encryption-keys'], databaseUrl)
      expect(retired.code).toBe(0)
      expect(retired.output).toContain(`retired 1 old encryption keys of ${webhookId}`)
      const after = await userKeyStatuses(databaseUrl, webhookId, [oldUserKey, newUserKey])
      expect(after.statuses).toEqual([401, 200])
      for (const output of [during.output, after.output, retired.output]) {
        for (const secret of [bootstrap.encryptionKey, newKey, oldUserKey, newUserKey, during.createdKey as string]) expect(output).not.toContain(secret)
      }
    },
    START_TIMEOUT,
  )

  it(
    'personal key: the operator signs with the new one at once, the old one works until the overlap ends; the integration is named when there are several',
    async () => {
      const databaseUrl = join(dir, 'rotate-personal.db')
      const server = await createServer({ databaseUrl, log, bootstrap: { ...bootstrap, webhookId: 'rotate-first-webhook' } })
      const personalKey = 'an operator key of at least thirty-two characters'
      const admin = { authorization: `Bearer ${bootstrap.adminToken}`, 'x-workspace-id': bootstrap.workspaceId, 'content-type': 'application/json' }
      const body = JSON.stringify({ name: 'Personal', integrations: { chat: { configuration: { encryptionKey: personalKey } } } })
      const answer = (await (await fetch(`${server.url}/v1/admin/bots`, { method: 'POST', headers: admin, body })).json()) as {
        bot: { integrations: { chat: { webhookId: string } } }
      }
      const webhookId = answer.bot.integrations.chat.webhookId
      await server.close()

      const unnamed = await confab(['credentials', '--rotate-encryption-key'], databaseUrl)
      expect(unnamed.code).toBe(2)
      expect(unnamed.output).toContain(
        `there are 2 chat integrations: name one with --webhook-id <id>\n  rotate-first-webhook  (bot Echo bot, workspace ${bootstrap.workspaceId})\n  ${webhookId}  (bot Personal, workspace ${bootstrap.workspaceId})`,
      )
      const badOverlap = await confab(['credentials', '--rotate-encryption-key', '--overlap', 'a week', '--webhook-id', webhookId], databaseUrl)
      expect(badOverlap.code).toBe(2)
      expect(badOverlap.output).toContain('--overlap must be a whole number and a unit (s, m, h or d), such as 7d; got "a week"')

      const rotated = await confab(['credentials', '--rotate-encryption-key', '--webhook-id', webhookId], databaseUrl)
      expect(rotated.code).toBe(0)
      const newKey = newKeyIn(rotated.output, webhookId, 'personal')
      expect(rotated.output).not.toContain(personalKey)
      const until = /keep working until (\S+)/.exec(rotated.output)?.[1] as string
      expect(Date.parse(until) - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000)

      const oldSigned = await signUserKey('user-of-the-operator', personalKey)
      const newSigned = await signUserKey('user-of-the-operator', newKey)
      const during = await userKeyStatuses(databaseUrl, webhookId, [oldSigned, newSigned])
      expect(during.statuses).toEqual([200, 200])
      // Still personal: nobody but the operator's signed users gets in.
      expect(during.createdKey).toBeUndefined()
      // The other integration kept its own key.
      expect((await confab(['credentials', '--retire-old-encryption-keys', '--webhook-id', 'rotate-first-webhook'], databaseUrl)).output).toContain(
        'retired 0 old encryption keys of rotate-first-webhook',
      )
      expect((await confab(['credentials', '--retire-old-encryption-keys', '--webhook-id', webhookId], databaseUrl)).output).toContain(
        `retired 1 old encryption keys of ${webhookId}`,
      )
      expect((await userKeyStatuses(databaseUrl, webhookId, [oldSigned, newSigned])).statuses).toEqual([401, 200])
    },
    START_TIMEOUT * 2,
  )
})

/** The built command line run in another folder, with DATABASE_URL unset unless given. */
function confabIn(cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const { DATABASE_URL: _unset, ...rest } = process.env
  const child = spawn(process.execPath, [join(ROOT, 'dist/cli.js'), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...rest, PORT: '0', ...env } })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })))
}

describe('the database a command works on', () => {
  it(
    'run from another folder without DATABASE_URL: no stray database made there, the message names DATABASE_URL and the path it looked at',
    async () => {
      const elsewhere = join(dir, 'elsewhere')
      mkdirSync(elsewhere)
      const looked = join(elsewhere, 'data', 'confab.db')
      for (const args of [['credentials'], ['credentials', '--new-admin-token'], ['backup', join(dir, 'stray-backup.db')]]) {
        const refused = await confabIn(elsewhere, args)
        expect(refused.code).toBe(1)
        expect(refused.output).toContain(
          `no database at ${looked} (DATABASE_URL is unset, so ./data/confab.db from the folder the command runs in (${elsewhere})): set DATABASE_URL to the database the server uses; the server's first start creates it`,
        )
      }
      expect(existsSync(join(elsewhere, 'data'))).toBe(false)
      expect(existsSync(join(dir, 'stray-backup.db'))).toBe(false)

      // Given the server's DATABASE_URL, it finds the server's database from anywhere.
      const databaseUrl = join(dir, 'found.db')
      await (await createServer({ databaseUrl, log, bootstrap: { ...bootstrap, webhookId: 'found-webhook' } })).close()
      const found = await confabIn(elsewhere, ['credentials'], { DATABASE_URL: databaseUrl })
      expect(found.code).toBe(0)
      expect(found.output).toContain('    webhook id:              found-webhook')
    },
    START_TIMEOUT * 3,
  )
})
