import { defineTables } from '../schema.ts'
import { sqliteDialect } from './dialect.ts'

/** The tables on SQLite (drizzle-kit reads this file: npm run db:generate). */
export const {
  workspaces,
  adminTokens,
  bots,
  botApiKeys,
  chatIntegrations,
  users,
  conversations,
  participants,
  messages,
  files,
  events,
  botEvents,
  botDeliveries,
  botLogs,
  botStates,
} = defineTables(sqliteDialect)
