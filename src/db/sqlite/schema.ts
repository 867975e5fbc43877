import { defineTables } from '../schema.ts'
import { sqliteDialect } from './dialect.ts'

/** The tables on SQLite (drizzle-kit reads this file: npm run db:generate). */
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
  handoffRequests,
  users,
  userStorage,
  conversations,
  participants,
  messages,
  events,
  conversationSignals,
  files,
} = defineTables(sqliteDialect)
