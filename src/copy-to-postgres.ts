import { existsSync, realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getTableColumns, getTableName, is } from 'drizzle-orm'
import { PgBoolean, PgTable } from 'drizzle-orm/pg-core'
import * as tables from './db/postgres/schema.ts'
import { isPostgresUrl } from './db/open.ts'
import { openPostgresStore } from './db/postgres/store.ts'
import { openSqliteStore } from './db/sqlite/store.ts'

/**
 * Every table, parents before children (the order rows can be inserted in). A table added to the
 * schema must be added here: the copy refuses to run while one is missing.
 */
const order: PgTable[] = [
  tables.workspaces,
  tables.adminTokens,
  tables.agents,
  tables.bots,
  tables.botApiKeys,
  tables.chatIntegrations,
  tables.deletedUsers,
  tables.users,
  tables.conversations,
  tables.participants,
  tables.conversationNotes,
  tables.handoffRequests,
  tables.conversationTags,
  tables.messages,
  tables.files,
  tables.events,
  tables.conversationSignals,
  tables.botEvents,
  tables.botDeliveries,
  tables.integrationWebhookDeliveries,
  tables.botLogs,
  tables.botStates,
].map((table) => table as unknown as PgTable) // typed as SQLite's (src/db/schema.ts)

/** Tables SQLite does not have, filled from elsewhere: file bytes are files in `<SQLite file>.files/`. */
const fromDisk: PgTable[] = [tables.fileBytes]

/** Tables PostgreSQL's triggers keep as the rows above are copied: each conversation's oldest delivery, each user's stored bytes. */
const keptByTriggers: PgTable[] = [tables.botDeliveryHeads, tables.userStorage as unknown as PgTable]

/** Rows per INSERT (PostgreSQL takes at most 65,535 parameters per statement). */
const batch = 500

export interface CopyOptions {
  /** The PostgreSQL schema to copy into; `public` by default. */
  schema?: string
  /** Told each table's name and how many rows were copied. */
  onTable?: (table: string, rows: number) => void
}

/**
 * Copies everything an SQLite database holds into an empty PostgreSQL database, in one transaction:
 * the SQLite file is migrated to the current schema first, the PostgreSQL one is migrated and must
 * hold no tenant yet. The bytes of uploaded files (beside the SQLite file) go into `file_bytes`.
 * Returns the rows copied per table.
 */
export async function copySqliteToPostgres(sqlitePath: string, postgresUrl: string, { schema, onTable }: CopyOptions = {}) {
  const all = Object.values(tables as Record<string, unknown>).filter((value: unknown): value is PgTable => is(value, PgTable))
  const missing = all.filter((table) => !order.includes(table) && !fromDisk.includes(table) && !keptByTriggers.includes(table))
  if (missing.length > 0) throw new Error(`copy-to-postgres does not know the tables ${missing.map((t) => getTableName(t)).join(', ')}`)
  if (isPostgresUrl(sqlitePath)) throw new Error('the source must be an SQLite file path')
  if (!isPostgresUrl(postgresUrl)) throw new Error('the target must be a postgres:// URL')
  if (!existsSync(sqlitePath)) throw new Error(`no SQLite database at ${sqlitePath}`)

  const source = openSqliteStore(sqlitePath)
  const target = await openPostgresStore(postgresUrl, { schema, poolSize: 1 }).catch(async (error: unknown) => {
    await source.close()
    throw error
  })
  const copied: Record<string, number> = {}
  const client = await target.pool.connect()
  try {
    await client.query('begin')
    const { rows } = await client.query('select 1 from workspaces limit 1')
    if (rows.length > 0) throw new Error('the PostgreSQL database already holds data; copy into an empty one')
    for (const table of order) {
      const name = getTableName(table)
      const columns = Object.values(getTableColumns(table))
      const present = new Set((source.db.$client.prepare(`select name from pragma_table_info(?)`).all(name) as { name: string }[]).map((c) => c.name))
      const copiedColumns = columns.filter((column) => present.has(column.name))
      const list = copiedColumns.map((column) => `"${column.name}"`).join(', ')
      const read = source.db.$client.prepare(`select ${list} from "${name}"`).raw()
      let count = 0
      let pending: unknown[][] = []
      const flush = async () => {
        if (pending.length === 0) return
        const params: unknown[] = []
        const values = pending.map((row) => `(${row.map((value) => `$${params.push(value)}`).join(', ')})`)
        await client.query(`insert into "${name}" (${list}) values ${values.join(', ')}`, params)
        count += pending.length
        pending = []
      }
      for (const row of read.iterate() as Iterable<unknown[]>) {
        // SQLite keeps booleans as 0/1 and JSON as its text, which PostgreSQL's json takes as is.
        pending.push(row.map((value, i) => (is(copiedColumns[i], PgBoolean) && value !== null ? Boolean(value) : value)))
        if (pending.length >= batch) await flush()
      }
      await flush()
      copied[name] = count
      onTable?.(name, count)
    }
    // The bytes of uploaded files, from the folder beside the SQLite file into the database.
    let files = 0
    const uploaded = source.db.$client.prepare(`select integration_id, id from files where uploaded_at is not null`).raw()
    for (const [integrationId, id] of uploaded.iterate() as Iterable<[string, string]>) {
      const bytes = await source.files.read(id)
      if (!bytes) continue
      await client.query('insert into file_bytes (id, integration_id, bytes) values ($1, $2, $3)', [
        id,
        integrationId,
        Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      ])
      files++
    }
    copied.file_bytes = files
    onTable?.('file_bytes', files)
    // The outboxes' sequences go on after the rows copied.
    for (const outbox of ['bot_deliveries', 'integration_webhook_deliveries']) {
      await client.query(`select setval(pg_get_serial_sequence('${outbox}', 'seq'), coalesce((select max(seq) from ${outbox}), 0) + 1, false)`)
    }
    await client.query('commit')
  } catch (error) {
    await client.query('rollback').catch(() => undefined)
    throw error
  } finally {
    client.release()
    await target.close()
    await source.close()
  }
  return copied
}

const usage = 'usage: npm run db:copy -- <SQLite file> <postgres://… URL>   (copies everything into an empty PostgreSQL database)'

async function main(args: string[]) {
  const [from, to] = args
  if (!from || !to) {
    process.stderr.write(`${usage}\n`)
    process.exit(2)
  }
  const copied = await copySqliteToPostgres(resolve(from), to, {
    onTable: (table, rows) => process.stdout.write(`  ${table}: ${rows} rows\n`),
  })
  const total = Object.values(copied).reduce((sum, rows) => sum + rows, 0)
  process.stdout.write(`copied ${total} rows from ${from} to PostgreSQL\n`)
}

const invoked = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)
if (invoked) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`db:copy failed: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  })
}
