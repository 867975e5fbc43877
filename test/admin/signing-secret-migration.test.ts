import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Database } from '../../src/db/sqlite/driver.ts'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import { Webhook } from 'standardwebhooks'
import { afterEach, expect, it } from 'vitest'
import type { BotRow } from '../../src/db/schema.ts'
import { openSqliteStore } from '../../src/db/sqlite/store.ts'
import { signingSecretsOf } from '../../src/domain/bots/admin/secrets.ts'

const migrations = fileURLToPath(new URL('../../drizzle/', import.meta.url))
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A database at the first migration only, as Confab made it before bots had signing secrets. */
function databaseBeforeSigningSecrets(): string {
  const dir = mkdtempSync(join(tmpdir(), 'confab-migration-'))
  dirs.push(dir)
  const folder = join(dir, 'drizzle')
  mkdirSync(join(folder, 'meta'), { recursive: true })
  copyFileSync(join(migrations, '0000_init.sql'), join(folder, '0000_init.sql'))
  const journal = JSON.parse(readFileSync(join(migrations, 'meta/_journal.json'), 'utf8'))
  writeFileSync(join(folder, 'meta/_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, 1) }))
  const path = join(dir, 'confab.db')
  const connection = new Database(path)
  migrate(drizzle(connection), { migrationsFolder: folder })
  const at = '2025-01-01T00:00:00.000Z'
  connection.prepare('insert into workspaces values (?, ?, ?, ?)').run('wkspace_old', 'Old', at, at)
  connection
    .prepare('insert into bots (id, workspace_id, name, handler, tags, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)')
    .run('old-bot', 'wkspace_old', 'Old bot', 'echo', '{}', at, at)
  connection.close()
  return path
}

it('gives a bot made before signing secrets a secret that Standard Webhooks accepts', async () => {
  const store = openSqliteStore(databaseBeforeSigningSecrets())
  try {
    const bot = await store.read((q) => q.bots.find('wkspace_old', 'old-bot'))
    const secrets = signingSecretsOf(bot as BotRow)
    expect(secrets).toEqual([expect.stringMatching(/^whsec_[0-9a-f]{48}$/)])
    const webhook = new Webhook(secrets[0] as string)
    const timestamp = new Date()
    const signature = webhook.sign('msg_1', timestamp, '{"type":"message"}')
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)), 'webhook-signature': signature }
    expect(webhook.verify('{"type":"message"}', headers)).toEqual({ type: 'message' })
  } finally {
    await store.close()
  }
})
