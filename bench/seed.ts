import { Database } from '../src/db/sqlite/driver.ts'
import { idFactory } from '../src/domain/ids.ts'

/**
 * Adds `count` messages to a conversation straight into the SQLite file (HTTP would take hours for
 * a million): copies of a message already in it (`template`), with fresh ids and creation times one
 * millisecond apart, all older than the template. Column names are read from the row itself, so the
 * seed follows the schema.
 */
export function seedMessages(databaseUrl: string, template: string, count: number): void {
  const db = new Database(databaseUrl)
  try {
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = OFF')
    const row = db.prepare('SELECT * FROM messages WHERE id = ?').get(template) as Record<string, unknown> | undefined
    if (!row) throw new Error(`no message ${template} to copy`)
    const columns = Object.keys(row)
    const insert = db.prepare(`INSERT INTO messages (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`)
    const start = Date.parse(row.created_at as string) - count - 1
    let time = start
    const newId = idFactory(() => time)
    db.transaction(() => {
      for (let i = 0; i < count; i++, time++) {
        insert.run({ ...row, id: newId(), created_at: new Date(time).toISOString() })
      }
    })()
    db.pragma('wal_checkpoint(TRUNCATE)')
  } finally {
    db.close()
  }
}
