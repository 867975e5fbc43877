import { customType, foreignKey, type PgColumn, type PgTable, pgTable } from 'drizzle-orm/pg-core'
import { defineTables } from '../schema.ts'
import { postgresTablesDialect, text } from './dialect.ts'

const tables = defineTables(postgresTablesDialect)

/** The tables on PostgreSQL (drizzle-kit reads this file: npm run db:generate), typed as SQLite's. */
export const {
  workspaces, adminTokens, chatIntegrations,
  bots, botApiKeys, botEvents, botDeliveries, botLogs, botStates, deletedUsers,
  users, conversations, participants, messages, events, files,
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
  (t) => [
    foreignKey({ columns: [t.integrationId, t.id], foreignColumns: [pgFiles.integrationId, pgFiles.id] }).onDelete('cascade'),
  ],
)
