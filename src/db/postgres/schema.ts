import { sql } from 'drizzle-orm'
import { bigint, bigserial, boolean, customType, foreignKey, index, integer, json, type PgColumn, type PgTable, pgTable, primaryKey } from 'drizzle-orm/pg-core'
import { type Dialect, defineTables } from '../schema.ts'

/*
 * The tables of src/db/schema.ts on PostgreSQL (drizzle-kit reads this file: npm run db:generate),
 * typed as SQLite's (the reference dialect; docs/internals/storage.md lists the differences):
 * - text compares byte-wise (COLLATE "C"), as SQLite's does, so keyset pages walk the same order;
 * - JSON columns are `json`, not `jsonb`, which would reorder a payload's properties;
 * - bot_deliveries has a lease (`leased_until`): the instance that claimed a delivery holds it until
 *   then; another may take it once the lease has run out (its holder died).
 */
const text = customType<{ data: string; driverData: string }>({ dataType: () => 'text COLLATE "C"' })

const dialect = {
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
  deliveryLease: () => ({ leasedUntil: text('leased_until') }),
  // The claims walk bot_delivery_heads (below): an index of every delivery's next attempt would be
  // written with each delivery and read by nothing.
  deliveryIndexes: (_deliveries: unknown): never[] => [],
  // The bytes of an upload are found by file id alone (file_bytes knows no integration).
  fileIndexes: (files: { id: never }) => [index('files_id_idx').on(files.id)],
}

const tables = defineTables(dialect as unknown as Dialect)
export const { workspaces, adminTokens, chatIntegrations, bots, botApiKeys, botEvents, botDeliveries, botLogs, botStates, deletedUsers } = tables
export const { agents, conversationNotes, handoffRequests, users, userStorage, conversations, participants, messages, events, conversationSignals, files } =
  tables
export const { integrationWebhookDeliveries, conversationTags } = tables

/** The lease of bot_deliveries, which only PostgreSQL has. */
export const leasedUntil = (botDeliveries as unknown as { leasedUntil: PgColumn }).leasedUntil

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' })
export const pgFiles = files as unknown as PgTable & Record<'id' | 'integrationId', PgColumn>

/** The bytes of an uploaded file, where every instance reads them (SQLite keeps them in a folder); they go with its row. */
export const fileBytes = pgTable(
  'file_bytes',
  {
    id: text('id').primaryKey(),
    integrationId: text('integration_id').notNull(),
    bytes: bytea('bytes').notNull(),
  },
  (t) => [foreignKey({ columns: [t.integrationId, t.id], foreignColumns: [pgFiles.integrationId, pgFiles.id] }).onDelete('cascade')],
)

/**
 * The delivery each conversation waits on (its oldest in the outbox), one row per conversation with
 * deliveries queued, kept by triggers on bot_deliveries (drizzle/postgres, the migration after this
 * table's). A claim walks the due heads in `due_at` order (delivery-claim.ts), so it touches the rows
 * it takes whatever the backlog behind them, and never two of a conversation. `due_at` is when the
 * head may be taken: its next attempt, or its holder's lease running out.
 */
export const botDeliveryHeads = pgTable(
  'bot_delivery_heads',
  {
    integrationId: text('integration_id').notNull(),
    conversationId: text('conversation_id').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    botId: text('bot_id').notNull(),
    nextAttemptAt: text('next_attempt_at').notNull(),
    leasedUntil: text('leased_until'),
    dueAt: text('due_at').notNull().generatedAlwaysAs(sql`greatest(next_attempt_at, coalesce(leased_until, ''))`),
  },
  (t) => [primaryKey({ columns: [t.integrationId, t.conversationId] }), index('bot_delivery_heads_due_idx').on(t.dueAt, t.seq)],
)
