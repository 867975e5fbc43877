import { foreignKey, type IndexColumn, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * How the tables of src/db/schema.ts are written on SQLite. It is the reference dialect: the other
 * engines' dialects are seen through its types, so that every engine's tables have one type.
 */
export const sqliteDialect = {
  table: sqliteTable,
  text: (name: string) => text(name),
  integer: (name: string) => integer(name),
  /** A count that may pass 2^31 (SQLite's integers are 64-bit). */
  bigCount: (name: string) => integer(name),
  /** 0 or 1 on disk. */
  boolean: (name: string) => integer(name, { mode: 'boolean' }),
  /** JSON as text, encoded and decoded by drizzle. */
  json: <T>(name: string) => text(name, { mode: 'json' }).$type<T>(),
  /** Text that holds one of `values` (SQLite does not check it). */
  oneOf: <const V extends readonly [string, ...string[]]>(name: string, values: V) => text(name, { enum: values as unknown as [V[number], ...V[number][]] }),
  /** An id the database counts up (the primary key). */
  serial: (name: string) => integer(name).primaryKey({ autoIncrement: true }),
  index,
  primaryKey,
  foreignKey,
  /** The delivery lease: none, one process owns an SQLite file (see BotDeliveryQueries.claim). */
  deliveryLease: () => ({}),
  /** The outbox's order of attempts: SQLite's claim walks it (PostgreSQL's walks its heads). */
  deliveryIndexes: (deliveries: { nextAttemptAt: IndexColumn }) => [index('bot_deliveries_due_idx').on(deliveries.nextAttemptAt)],
  /** Indexes only another engine needs on files (their bytes are beside the file here). */
  fileIndexes: (_files: unknown): never[] => [],
}

export type Dialect = typeof sqliteDialect
