import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Database } from '../../src/db/sqlite/driver.ts'
import { confab, ensureBuilt, randomAdminToken, randomEncryptionKey, ROOT, type RunningServer, START_TIMEOUT, startServer } from '../helpers/server.ts'

const WEBHOOK_ID = 'backup-test-webhook'
const ENV = {
  CONFAB_WORKSPACE_ID: 'wkspace_backup_test',
  CONFAB_ADMIN_TOKEN: randomAdminToken(),
  CONFAB_WEBHOOK_ID: WEBHOOK_ID,
  CONFAB_ENCRYPTION_KEY: randomEncryptionKey(),
}

const dir = mkdtempSync(join(tmpdir(), 'confab-backup-'))
const started: RunningServer[] = []

afterAll(async () => {
  await Promise.allSettled(started.map((s) => s.stop()))
  rmSync(dir, { recursive: true, force: true })
}, 60_000)

async function call(server: RunningServer, method: string, path: string, key?: string, body?: unknown) {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (key) headers['x-user-key'] = key
  const response = await fetch(`${server.baseUrl}/${WEBHOOK_ID}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

async function messageIds(server: RunningServer, key: string, conversationId: string): Promise<Set<string>> {
  const ids = new Set<string>()
  let nextToken: string | undefined
  do {
    const query = nextToken ? `?nextToken=${encodeURIComponent(nextToken)}` : ''
    const page = await call(server, 'GET', `/conversations/${conversationId}/messages${query}`, key)
    expect(page.status).toBe(200)
    for (const message of page.body.messages as { id: string }[]) ids.add(message.id)
    nextToken = page.body.meta.nextToken
  } while (nextToken)
  return ids
}

beforeAll(ensureBuilt, START_TIMEOUT)

describe('confab backup and confab restore', () => {
  it('a backup taken under write load restores every write answered before it began, and the uploaded files', async () => {
    const databaseUrl = join(dir, 'live.db')
    // Its writers post as fast as they can for as long as the backup takes: no rate limit is what it measures.
    const server = await startServer({ databaseUrl, env: { ...ENV, RATE_LIMITS: 'off' } })
    started.push(server)
    const user = await call(server, 'POST', '/users', undefined, {})
    const { key } = user.body
    const conversation = await call(server, 'POST', '/conversations', key, {})
    const conversationId = conversation.body.conversation.id as string
    const slot = await call(server, 'POST', '/files', key, { key: 'note.txt', size: 5 })
    const upload = await fetch(slot.body.file.uploadUrl, { method: 'PUT', body: 'hello' })
    expect(upload.status).toBe(200)

    // Four writers post messages until told to stop; each answered id is kept.
    const answered: string[] = []
    let writing = true
    const writers = Array.from({ length: 4 }, async () => {
      while (writing) {
        const posted = await call(server, 'POST', '/messages', key, { conversationId, payload: { type: 'text', text: `n${answered.length}` } })
        expect(posted.status).toBe(200)
        answered.push(posted.body.message.id)
      }
    })
    const waitForAnswers = async (count: number) => {
      while (answered.length < count) await new Promise((resolve) => setImmediate(resolve))
    }
    await waitForAnswers(50)
    const beforeBackup = [...answered]
    const backupFile = join(dir, 'backups', 'confab-backup.db')
    const backup = await confab(['backup', backupFile], databaseUrl)
    expect(backup.output).toContain(`backed up ${databaseUrl} to ${backupFile} (`)
    expect(backup.code).toBe(0)
    await waitForAnswers(beforeBackup.length + 50)
    writing = false
    await Promise.all(writers)

    // A second backup never overwrites the first.
    const again = await confab(['backup', backupFile], databaseUrl)
    expect(again.code).toBe(1)
    expect(again.output).toContain(`${backupFile} exists already`)
    await server.stop()

    const restoredUrl = join(dir, 'restored', 'confab.db')
    const restore = await confab(['restore', backupFile], restoredUrl)
    expect(restore.output).toContain(`restored ${backupFile} to ${restoredUrl} (`)
    expect(restore.code).toBe(0)
    const check = new Database(restoredUrl, { readonly: true })
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok')
    check.close()

    const restored = await startServer({ databaseUrl: restoredUrl })
    started.push(restored)
    const ids = await messageIds(restored, key, conversationId)
    expect(beforeBackup.filter((id) => !ids.has(id))).toEqual([])
    const file = await fetch(`${restored.baseUrl}${new URL(slot.body.file.url).pathname}`)
    expect(file.status).toBe(200)
    expect(await file.text()).toBe('hello')

    // A restore never replaces a database in use, nor an existing one unless asked.
    const refused = await confab(['restore', backupFile], restoredUrl)
    expect(refused.code).toBe(1)
    expect(refused.output).toContain(`a database exists at ${restoredUrl}; add --force`)
    const inUse = await confab(['restore', backupFile, '--force'], restoredUrl)
    expect(inUse.code).toBe(1)
    expect(inUse.output).toContain(`the database ${restoredUrl} is in use by another process (pid ${restored.serverPid} on `)
  }, START_TIMEOUT * 2)

  it('refuses what it cannot do, in words', async () => {
    const notConfab = join(dir, 'other.db')
    new Database(notConfab).exec('create table t (x)')
    const wrongFile = await confab(['restore', notConfab], join(dir, 'target.db'))
    expect(wrongFile.code).toBe(1)
    expect(wrongFile.output).toContain('is an SQLite database, but not Confab')
    expect(existsSync(join(dir, 'target.db'))).toBe(false)

    const onPostgres = await confab(['backup', join(dir, 'pg.db')], 'postgres://postgres@127.0.0.1:5432/postgres')
    expect(onPostgres.code).toBe(1)
    expect(onPostgres.output).toContain('for PostgreSQL use pg_dump and pg_restore')

    const missing = await confab(['backup'], join(dir, 'any.db'))
    expect(missing.code).toBe(2)
    expect(missing.output).toContain('usage: confab backup <file>')

    const unknown = await confab(['frobnicate'], join(dir, 'any.db'))
    expect(unknown.code).toBe(2)
    expect(unknown.output).toContain('confab: no command "frobnicate"')

    const help = await confab(['restore', '--help'], join(dir, 'any.db'))
    expect(help.code).toBe(0)
    expect(help.output).toContain('usage: confab restore <file> [--force]')
    expect(readFileSync(join(ROOT, 'package.json'), 'utf8')).toContain('"confab": "dist/cli.js"')
  })
})
