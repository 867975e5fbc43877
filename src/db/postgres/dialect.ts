import { bigint, bigserial, boolean, customType, foreignKey, index, integer, json, pgTable, primaryKey } from 'drizzle-orm/pg-core'
import type { Dialect } from '../sqlite/dialect.ts'

/*
 * How the tables of src/db/schema.ts are written on PostgreSQL (typed as SQLite's, the reference
 * dialect; docs/internals/storage.md lists the differences):
 * - Text compares byte-wise (COLLATE "C"), as SQLite's does: ISO timestamps and client ids then sort
 *   the same on both engines, whatever the database's locale, and keyset pages walk the same order.
 * - JSON columns are `json`, not `jsonb`: `json` keeps the text written, so a payload's properties
 *   come back in the order they were written (jsonb would reorder them).
 * - bot_deliveries has a lease (`leased_until`): the instance that claims a delivery holds it until
 *   then; another instance may take it once the lease has run out (its holder died).
 */
export const text = customType<{ data: string; driverData: string }>({ dataType: () => 'text COLLATE "C"' })

const postgresDialect = {
  table: pgTable,
  text: (name: string) => text(name),
  integer: (name: string) => integer(name),
  bigCount: (name: string) => bigint(name, { mode: 'number' }),
  boolean: (name: string) => boolean(name),
  json: (name: string) => json(name),
  oneOf: (name: string) => text(name),
  serial: (name: string) => bigserial(name, { mode: 'number' }).primaryKey(),
  index,
  primaryKey,
  foreignKey,
  /** Until when the instance that claimed the delivery holds it (none: nobody does). */
  deliveryLease: () => ({ leasedUntil: text('leased_until') }),
  // Its claims walk bot_delivery_heads (schema.ts): an index of every delivery's next attempt would be
  // written with each delivery and read by nothing.
  deliveryIndexes: (_deliveries: unknown): never[] => [],
  // The bytes of an upload are stored by file id alone (FileBytes knows no integration).
  fileIndexes: (files: { id: never }) => [index('files_id_idx').on(files.id)],
}

export const postgresTablesDialect = postgresDialect as unknown as Dialect
