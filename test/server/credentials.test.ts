import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeJwt, jwtVerify } from 'jose'
import { signUserKey } from '../../src/auth/user-key.ts'
import { createServer } from '../../src/server.ts'
import { confab, ensureBuilt, randomAdminToken, type RunningServer, START_TIMEOUT, startServer } from '../helpers/server.ts'

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
  it('shows the stored values again, never a secret; issues a new admin token beside the old, then revokes the old', async () => {
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
    expect(await adminStatus(databaseUrl, [bootstrap.adminToken, token])).toEqual([200, 200])

    const revoked = await confab(['credentials', '--revoke-older-admin-tokens'], databaseUrl)
    expect(revoked.code).toBe(0)
    expect(revoked.output).toContain('revoked 1 older admin tokens of wkspace_credentials')
    expect(await adminStatus(databaseUrl, [bootstrap.adminToken, token])).toEqual([401, 200])
    expect((await confab(['credentials'], databaseUrl)).output).not.toContain(token)
  })

  it('refuses, in words, a database with no tenant, an unknown workspace, and a database a server is using', async () => {
    const empty = await confab(['credentials'], join(dir, 'empty.db'))
    expect(empty.code).toBe(1)
    expect(empty.output).toContain('the database has no tenant yet')

    const databaseUrl = join(dir, 'served.db')
    const unknown = await (async () => {
      await (await createServer({ databaseUrl, log, bootstrap: { ...bootstrap, webhookId: 'served-webhook' } })).close()
      return confab(['credentials', '--new-admin-token', '--workspace', 'wkspace_nope'], databaseUrl)
    })()
    expect(unknown.code).toBe(1)
    expect(unknown.output).toContain('confab credentials failed: Workspace "wkspace_nope" does not exist')

    const ignoredToken = randomAdminToken()
    const server = await startServer({ databaseUrl, env: { CONFAB_ADMIN_TOKEN: ignoredToken } })
    try {
      const refused = await confab(['credentials'], databaseUrl)
      expect(refused.code).toBe(1)
      expect(refused.output).toContain(`the database ${databaseUrl} is in use by another process (pid ${server.serverPid} on `)
      // The start said which first-run values it ignored, without their values.
      expect(server.stderr() + server.stdout()).toContain('CONFAB_ADMIN_TOKEN')
      expect(server.stderr() + server.stdout()).not.toContain(ignoredToken)
    } finally {
      await server.stop()
    }
  }, START_TIMEOUT)
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
  it('shared key: user keys the old key signed work during the overlap, the new key signs new ones, retirement refuses the old (401); no key is logged', async () => {
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
  }, START_TIMEOUT)

  it('personal key: the operator signs with the new one at once, the old one works until the overlap ends; the integration is named when there are several', async () => {
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
    expect(unnamed.output).toContain('there are 2 chat integrations: name one with --webhook-id <id>')
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
  }, START_TIMEOUT)
})
