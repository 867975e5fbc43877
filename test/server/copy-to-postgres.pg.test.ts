import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getTableColumns, getTableName } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import type { PgTable } from 'drizzle-orm/pg-core'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pino } from 'pino'
import { createApp } from '../../src/app.ts'
import * as pgTables from '../../src/db/postgres/schema.ts'
import { openPostgresStore } from '../../src/db/postgres/store.ts'
import * as sqliteTables from '../../src/db/sqlite/schema.ts'
import { openSqliteStore } from '../../src/db/sqlite/store.ts'
import { createTestApp } from '../helpers/app.ts'
import { ownDatabase } from '../helpers/own-database.ts'
import { ROOT, START_TIMEOUT } from '../helpers/server.ts'

/*
 * `npm run db:copy -- <SQLite file> <postgres URL>` moves a whole SQLite database to PostgreSQL
 * (always runs on PostgreSQL: TEST_DATABASE_URL, or 127.0.0.1:5432).
 */
const database = ownDatabase('confab_copy')
const target = database.url

let dir: string
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'confab-copy-'))
  await database.create()
})
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await database.drop()
})

const run = (args: string[]) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('npm', ['run', '--silent', 'db:copy', '--', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.once('exit', (code) => resolve({ code, stdout, stderr }))
  })

/** Bytes of an uploaded file (its `<SQLite file>.files/` copy must land in PostgreSQL's file_bytes). */
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 255, 1, 2])

/**
 * A database with a bit of everything: users, a conversation, messages (with metadata, with feedback),
 * an event, an uploaded file, a webhook bot with a pending delivery and an API key, logs, states.
 */
async function populate(path: string) {
  const t = createTestApp({ databaseUrl: path, botRetrySchedule: [0, 3600] })
  await t.ready
  const { alice, bob } = await t.c1({ members: ['bob'] })
  const hello = await t.message(alice.key, 'c1', { type: 'text', text: 'hello', z: 1 }, { a: { c: 1, b: 2 } })
  expect((await t.chat('PUT', `/messages/${hello.id}/feedback`, { key: bob.key, body: { value: 'positive', comment: 'ok' } })).status).toBe(200)
  await t.event(alice.key, 'c1', { kind: 'typing' })
  const slot = await t.chat('POST', '/files', { key: alice.key, body: { key: 'photo.png', size: png.byteLength, tags: { conversation: 'c1' } } })
  expect(slot.status).toBe(200)
  await t.chat('POST', '/files', { key: alice.key, body: { key: 'never-uploaded.png', size: 3 } })
  const put = await t.app.fetch(new Request(slot.body.file.uploadUrl, { method: 'PUT', body: Buffer.from(png) }))
  expect(put.status).toBe(200)
  const created = await t.admin('POST', '/bots', { body: { name: 'Remote', url: 'http://127.0.0.1:1/nowhere', tags: { team: 'care' } } })
  expect((await t.admin('POST', '/bots/baks', { body: { botId: created.body.bot.id, note: 'ci' } })).status).toBe(200)
  const webhookId = created.body.bot.integrations.chat.webhookId as string
  await createChatUser(t, webhookId)
  await t.close()
  return { fileId: slot.body.file.id as string, fileUrl: slot.body.file.url as string }
}

async function createChatUser(t: ReturnType<typeof createTestApp>, webhookId: string) {
  const res = await t.send('POST', `http://confab.test/${webhookId}/users`, { body: { name: 'Remote user' } })
  const { key } = (await res.json()) as { key: string }
  await t.send('POST', `http://confab.test/${webhookId}/conversations`, { key, body: { id: 'r1' } })
  await t.send('POST', `http://confab.test/${webhookId}/messages`, { key, body: { conversationId: 'r1', payload: { type: 'text', text: 'to a dead bot' } } })
  return key
}

describe('npm run db:copy', () => {
  it('copies every row of every table into an empty PostgreSQL database, and refuses a second copy', { timeout: START_TIMEOUT }, async () => {
    const path = join(dir, 'confab.db')
    const { fileId, fileUrl } = await populate(path)
    const copy = await run([path, target])
    expect(copy.stderr).toBe('')
    expect(copy.code).toBe(0)
    expect(copy.stdout).toMatch(/^copied \d+ rows from .* to PostgreSQL$/m)
    expect(copy.stdout).toMatch(/^ {2}files: 2 rows$/m)
    expect(copy.stdout).toMatch(/^ {2}file_bytes: 1 rows$/m)
    expect(copy.stdout).toMatch(/^ {2}bot_api_keys: 1 rows$/m)

    const source = openSqliteStore(path)
    const pool = new pg.Pool({ connectionString: target, max: 1 })
    const db = drizzle(pool)
    try {
      for (const [key, table] of Object.entries(sqliteTables)) {
        if (typeof table !== 'object' || table === null || !('getSQL' in table)) continue
        const pgTable = pgTables[key as keyof typeof pgTables]
        const name = getTableName(table as typeof sqliteTables.users)
        const before = await source.db.select().from(table as typeof sqliteTables.users)
        const after = (await db.select().from(pgTable as unknown as PgTable)) as Record<string, unknown>[]
        const shared = Object.keys(getTableColumns(table as typeof sqliteTables.users))
        const pick = (rows: Record<string, unknown>[]) =>
          rows.map((row) => JSON.stringify(Object.fromEntries(shared.map((column) => [column, row[column]])))).sort()
        expect(pick(after), name).toEqual(pick(before as Record<string, unknown>[]))
        if (['users', 'messages', 'bot_deliveries', 'bot_logs', 'bots', 'bot_api_keys', 'files'].includes(name)) {
          expect(before.length, name).toBeGreaterThan(0)
        }
      }
      expect(((await db.select().from(pgTables.messages as unknown as PgTable)) as { feedback: unknown }[]).map((m) => m.feedback)).toContainEqual({
        value: 'positive',
        comment: 'ok',
      })
      const bytes = await db.select().from(pgTables.fileBytes)
      expect(bytes.map((row) => [row.id, new Uint8Array(row.bytes)])).toEqual([[fileId, png]])
      // The outbox's heads, kept by PostgreSQL's triggers as its rows arrive: one per conversation waiting.
      const { rows } = await pool.query(
        'select (select count(*) from bot_delivery_heads)::int as heads, (select count(distinct (integration_id, conversation_id)) from bot_deliveries)::int as waiting',
      )
      expect(rows[0].waiting).toBeGreaterThan(0)
      expect(rows[0].heads).toBe(rows[0].waiting)
    } finally {
      await pool.end()
      await source.close()
    }

    const again = await run([path, target])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/already holds data/)

    // An app on the copy serves the file at the URL it had on SQLite.
    const copied = await openPostgresStore(target)
    try {
      const app = createApp({ store: copied, log: pino({ level: 'silent' }) })
      const served = await app.fetch(new Request(fileUrl))
      await app.close()
      expect(served.status).toBe(200)
      expect(new Uint8Array(await served.arrayBuffer())).toEqual(png)
    } finally {
      await copied.close()
    }
  })

  it('says how to call it when an argument is missing', async () => {
    const res = await run([])
    expect(res.code).toBe(2)
    expect(res.stderr).toMatch(/usage: npm run db:copy/)
  })
})
