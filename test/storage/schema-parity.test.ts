import { getTableConfig as pgConfig, type PgTable } from 'drizzle-orm/pg-core'
import { getTableConfig as sqliteConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core'
import { describe, expect, it } from 'vitest'
import * as postgres from '../../src/db/postgres/schema.ts'
import * as sqlite from '../../src/db/sqlite/schema.ts'

// The two engines' tables, columns, indexes and constraints are the same, but for the differences
// docs/internals/storage.md lists: column types, PostgreSQL's delivery lease, its index of files by
// id and its file_bytes table (SQLite keeps the bytes of uploads in a folder).

type Config = ReturnType<typeof sqliteConfig> | ReturnType<typeof pgConfig>

/** What a table is, without its engine's column types. */
function shapeOf(config: Config) {
  const nameOf = (column: { name: string }) => column.name
  return {
    name: config.name,
    columns: config.columns.map((column) => ({
      name: column.name,
      notNull: column.notNull,
      primary: column.primary,
      unique: column.isUnique,
      hasDefault: column.hasDefault,
      default: column.default,
    })),
    primaryKeys: config.primaryKeys.map((key) => key.columns.map(nameOf)),
    indexes: config.indexes
      .map((index) => ({
        name: String(index.config.name),
        columns: index.config.columns.map((column) => nameOf(column as { name: string })),
        unique: index.config.unique,
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    foreignKeys: config.foreignKeys
      .map((key) => {
        const reference = key.reference()
        return {
          columns: reference.columns.map(nameOf),
          table: (reference.foreignTable as unknown as { [k: symbol]: string })[Symbol.for('drizzle:Name')],
          foreignColumns: reference.foreignColumns.map(nameOf),
          onDelete: key.onDelete,
        }
      })
      .sort((a, b) => a.columns.join().localeCompare(b.columns.join())),
  }
}

/** What only PostgreSQL has (see docs/internals/storage.md). */
const postgresOnly = { columns: { bot_deliveries: ['leased_until'] }, indexes: { files: ['files_id_idx'] }, tables: ['file_bytes', 'bot_delivery_heads'] }
/** What only SQLite has: the index its claim walks (PostgreSQL's walks bot_delivery_heads). */
const sqliteOnly = { indexes: { bot_deliveries: ['bot_deliveries_due_idx'] } }

const tablesOf = (module: Record<string, unknown>, isTable: (value: unknown) => boolean) => [...new Set(Object.values(module).filter(isTable))]

describe('schema parity', () => {
  const sqliteTables = tablesOf(sqlite, (value) => typeof value === 'object' && value !== null && 'getSQL' in value).map((table) =>
    shapeOf(sqliteConfig(table as SQLiteTable)),
  )
  const postgresTables = tablesOf(postgres, (value) => typeof value === 'object' && value !== null && 'getSQL' in value && 'enableRLS' in value).map((table) =>
    shapeOf(pgConfig(table as PgTable)),
  )

  it('has the same tables on both engines, and PostgreSQL the ones it adds', () => {
    expect(postgresTables.map((t) => t.name).sort()).toEqual([...sqliteTables.map((t) => t.name), ...postgresOnly.tables].sort())
    expect(sqliteTables).toHaveLength(23)
  })

  it('has the same columns, keys, indexes and foreign keys in every table', () => {
    for (const table of sqliteTables) {
      const other = postgresTables.find((t) => t.name === table.name)!
      const extraColumns: string[] = postgresOnly.columns[table.name as keyof typeof postgresOnly.columns] ?? []
      const extraIndexes: string[] = postgresOnly.indexes[table.name as keyof typeof postgresOnly.indexes] ?? []
      const ownIndexes: string[] = sqliteOnly.indexes[table.name as keyof typeof sqliteOnly.indexes] ?? []
      expect(
        {
          ...other,
          columns: other.columns.filter((column) => !extraColumns.includes(column.name)),
          indexes: other.indexes.filter((index) => !extraIndexes.includes(index.name)),
        },
        table.name,
      ).toEqual({ ...table, indexes: table.indexes.filter((index) => !ownIndexes.includes(index.name)) })
      expect(
        table.indexes.filter((index) => ownIndexes.includes(index.name)).map((i) => i.name),
        table.name,
      ).toEqual(ownIndexes)
      expect(
        other.columns.filter((column) => extraColumns.includes(column.name)).map((c) => c.name),
        table.name,
      ).toEqual(extraColumns)
      expect(
        other.indexes.filter((index) => extraIndexes.includes(index.name)).map((i) => i.name),
        table.name,
      ).toEqual(extraIndexes)
    }
  })

  it('tells a difference: a column one engine lacks fails the comparison', () => {
    const messages = sqliteTables.find((t) => t.name === 'messages')!
    const changed = { ...messages, columns: messages.columns.slice(1) }
    expect(changed).not.toEqual(postgresTables.find((t) => t.name === 'messages'))
  })
})
