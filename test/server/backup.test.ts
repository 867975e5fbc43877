import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { Database } from '../../src/db/sqlite/driver.ts'
import { openSqliteStore } from '../../src/db/sqlite/store.ts'
import {
  confab,
  ensureBuilt,
  randomAdminToken,
  randomEncryptionKey,
  ROOT,
  type RunningServer,
  START_TIMEOUT,
  serversInFolder,
  startServer,
} from '../helpers/server.ts'

const WEBHOOK_ID = 'backup-test-webhook'
const ENV = {
  CONFAB_WORKSPACE_ID: 'wkspace_backup_test',
  CONFAB_ADMIN_TOKEN: randomAdminToken(),
  CONFAB_WEBHOOK_ID: WEBHOOK_ID,
  CONFAB_ENCRYPTION_KEY: randomEncryptionKey(),
}

const { dir, started } = serversInFolder('confab-backup-')

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
  it(
    'a backup taken under write load restores every write answered before it began, and the uploaded files',
    async () => {
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
    },
    START_TIMEOUT * 2,
  )

  it(
    'refuses what it cannot do, in words',
    async () => {
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
    },
    START_TIMEOUT,
  )
})

const mode = (path: string) => statSync(path).mode & 0o777

describe('the modes of a backup and a restore', () => {
  it(
    'backup writes the file and each upload 0600 and its folders 0700; restore puts them in place the same, whatever the modes before',
    async () => {
      // The umask most shells have: without the code's own modes, every new file would be 0644.
      const previousUmask = process.umask(0o022)
      try {
        const databaseUrl = join(dir, 'modes', 'confab.db')
        const store = openSqliteStore(databaseUrl)
        await (await store.files.stage(new Uint8Array([1, 2, 3]))).keep('file_modes')
        await store.close()
        // An operator loosened them: the backup is owner-only all the same.
        chmodSync(databaseUrl, 0o644)
        chmodSync(join(`${databaseUrl}.files`, 'file_modes'), 0o644)

        const backupFile = join(dir, 'modes-backups', 'nested', 'backup.db')
        const backup = await confab(['backup', backupFile], databaseUrl)
        expect(backup.code).toBe(0)
        expect({
          folder: mode(join(dir, 'modes-backups')),
          nested: mode(join(dir, 'modes-backups', 'nested')),
          file: mode(backupFile),
          files: mode(`${backupFile}.files`),
          upload: mode(join(`${backupFile}.files`, 'file_modes')),
        }).toEqual({ folder: 0o700, nested: 0o700, file: 0o600, files: 0o700, upload: 0o600 })

        // A backup copied around with a looser mode is restored owner-only.
        chmodSync(backupFile, 0o644)
        chmodSync(join(`${backupFile}.files`, 'file_modes'), 0o644)
        const restoredUrl = join(dir, 'modes-restored', 'data', 'confab.db')
        const restore = await confab(['restore', backupFile], restoredUrl)
        expect(restore.code).toBe(0)
        const restoredModes = () => ({
          folder: mode(join(dir, 'modes-restored', 'data')),
          database: mode(restoredUrl),
          files: mode(`${restoredUrl}.files`),
          upload: mode(join(`${restoredUrl}.files`, 'file_modes')),
        })
        expect(restoredModes()).toEqual({ folder: 0o700, database: 0o600, files: 0o700, upload: 0o600 })

        // In place of an existing database that was 0644.
        chmodSync(restoredUrl, 0o644)
        const replaced = await confab(['restore', backupFile, '--force'], restoredUrl)
        expect(replaced.code).toBe(0)
        expect(restoredModes()).toEqual({ folder: 0o700, database: 0o600, files: 0o700, upload: 0o600 })
      } finally {
        process.umask(previousUmask)
      }
    },
    START_TIMEOUT,
  )
})
