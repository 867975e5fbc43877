import { sql } from 'drizzle-orm'
import { bigint, customType, foreignKey, index, type PgColumn, type PgTable, pgTable, primaryKey } from 'drizzle-orm/pg-core'
import { defineTables } from '../schema.ts'
import { postgresTablesDialect, text } from './dialect.ts'

const tables = defineTables(postgresTablesDialect)

/** The tables on PostgreSQL (drizzle-kit reads this file: npm run db:generate), typed as SQLite's. */
export const {
  workspaces,
  adminTokens,
  chatIntegrations,
  bots,
  botApiKeys,
  botEvents,
  botDeliveries,
  integrationWebhookDeliveries,
  conversationTags,
  botLogs,
  botStates,
  deletedUsers,
  agents,
  conversationNotes,
  users,
  userStorage,
  conversations,
  participants,
  messages,
  events,
  files,
} = tables

/** The lease of bot_deliveries, which only PostgreSQL has (see the dialect). */
export const leasedUntil = (botDeliveries as unknown as { leasedUntil: PgColumn }).leasedUntil

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' })
export const pgFiles = files as unknown as PgTable & Record<'id' | 'integrationId', PgColumn>

/**
 * The bytes of an uploaded file (PostgreSQL only: SQLite keeps them in a folder beside its file),
 * where every instance reads them; they go with its row.
 */
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
 * PostgreSQL only: the delivery each conversation waits on (its oldest in the outbox), one row per
 * conversation with deliveries queued, kept by triggers on bot_deliveries (drizzle/postgres, the
 * migration after this table's). A claim walks the due heads in `due_at` order (delivery-claim.ts),
 * so it touches the rows it takes whatever the backlog behind them, and never two of a conversation.
 * `due_at` is when the head may be taken: its next attempt, or its holder's lease running out.
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
