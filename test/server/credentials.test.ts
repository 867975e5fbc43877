import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer } from '../../src/server.ts'
import { confab, ensureBuilt, START_TIMEOUT, startServer } from '../helpers/server.ts'

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

    const server = await startServer({ databaseUrl, env: { CONFAB_ADMIN_TOKEN: 'bp_pat_ignored_now' } })
    try {
      const refused = await confab(['credentials'], databaseUrl)
      expect(refused.code).toBe(1)
      expect(refused.output).toContain(`the database ${databaseUrl} is in use by another process (pid ${server.serverPid} on `)
      // The start said which first-run values it ignored, without their values.
      expect(server.stderr() + server.stdout()).toContain('CONFAB_ADMIN_TOKEN')
      expect(server.stderr() + server.stdout()).not.toContain('bp_pat_ignored_now')
    } finally {
      await server.stop()
    }
  }, START_TIMEOUT)
})
