import { bigserial, boolean, customType, foreignKey, index, integer, json, pgTable, primaryKey } from 'drizzle-orm/pg-core'
import type { MessageFeedback } from '../schema.ts'

/*
 * The PostgreSQL tables: the same tables, columns and indexes as the SQLite schema (src/db/schema.ts),
 * so that each query reads back rows of the same shapes (the row types are the SQLite schema's).
 *
 * - Text compares byte-wise (COLLATE "C"), as SQLite's does: ISO timestamps and client ids then sort
 *   the same on both engines, whatever the database's locale, and keyset pages walk the same order.
 * - JSON columns are `json`, not `jsonb`: `json` keeps the text written, so a payload's properties
 *   come back in the order they were written (jsonb would reorder them).
 * - bot_deliveries has a lease (`leased_until`): the instance that claims a delivery holds it until
 *   then; another instance may take it once the lease has run out (its holder died).
 * - The bytes of uploaded files are in the database (`file_bytes`), where every instance reads them
 *   (SQLite keeps them in a folder beside its file); they go with their file row (cascade).
 */
const text = customType<{ data: string; driverData: string }>({ dataType: () => 'text COLLATE "C"' })
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' })

const createdAt = () => text('created_at').notNull()
const updatedAt = () => text('updated_at').notNull()

export const workspaces = pgTable('workspaces', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
})

export const adminTokens = pgTable(
  'admin_tokens',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: createdAt(),
  },
  (t) => [index('admin_tokens_workspace_idx').on(t.workspaceId)],
)

export const bots = pgTable(
  'bots',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    handler: text('handler').notNull(),
    tags: json('tags').$type<Record<string, string>>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deployedAt: text('deployed_at'),
    url: text('url'),
    signingSecret: text('signing_secret'),
    previousSigningSecret: text('previous_signing_secret'),
    previousSigningSecretExpiresAt: text('previous_signing_secret_expires_at'),
    goneUrl: text('gone_url'),
    protocol: text('protocol').$type<'webhook' | 'botpress'>().notNull().default('webhook'),
  },
  (t) => [
    index('bots_workspace_created_idx').on(t.workspaceId, t.createdAt, t.id),
    index('bots_workspace_updated_idx').on(t.workspaceId, t.updatedAt, t.id),
  ],
)

export const botApiKeys = pgTable(
  'bot_api_keys',
  {
    id: text('id').primaryKey(),
    botId: text('bot_id')
      .notNull()
      .references(() => bots.id, { onDelete: 'cascade' }),
    note: text('note'),
    keyHash: text('key_hash').notNull().unique(),
    createdAt: createdAt(),
  },
  (t) => [index('bot_api_keys_bot_idx').on(t.botId)],
)

export const chatIntegrations = pgTable(
  'chat_integrations',
  {
    id: text('id').primaryKey(),
    botId: text('bot_id')
      .notNull()
      .references(() => bots.id, { onDelete: 'cascade' }),
    webhookId: text('webhook_id').notNull().unique(),
    encryptionKey: text('encryption_key').notNull(),
    /**
     * The operator's own key ("personal" mode, as Botpress' chat integration has it): when set, user
     * keys are signed and verified with it instead of `encryptionKey` (the server's shared key, never
     * shown), and createUser is refused. Null: shared mode.
     */
    personalEncryptionKey: text('personal_encryption_key'),
    createdAt: createdAt(),
  },
  (t) => [index('chat_integrations_bot_idx').on(t.botId)],
)

export const users = pgTable(
  'users',
  {
    integrationId: text('integration_id')
      .notNull()
      .references(() => chatIntegrations.id, { onDelete: 'cascade' }),
    id: text('id').notNull(),
    name: text('name'),
    pictureUrl: text('picture_url'),
    profile: text('profile'),
    isBot: boolean('is_bot').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.integrationId, t.id] }),
    // The admin's list of a bot's users, newest first.
    index('users_created_idx').on(t.integrationId, t.createdAt, t.id),
  ],
)

export const conversations = pgTable(
  'conversations',
  {
    integrationId: text('integration_id')
      .notNull()
      .references(() => chatIntegrations.id, { onDelete: 'cascade' }),
    id: text('id').notNull(),
    ownerId: text('owner_id').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.integrationId, t.id] }),
    foreignKey({ columns: [t.integrationId, t.ownerId], foreignColumns: [users.integrationId, users.id] }).onDelete(
      'cascade',
    ),
    index('conversations_owner_idx').on(t.integrationId, t.ownerId),
    index('conversations_created_idx').on(t.integrationId, t.createdAt, t.id),
  ],
)

export const participants = pgTable(
  'participants',
  {
    integrationId: text('integration_id').notNull(),
    conversationId: text('conversation_id').notNull(),
    userId: text('user_id').notNull(),
    joinId: text('join_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.integrationId, t.conversationId, t.userId] }),
    foreignKey({
      columns: [t.integrationId, t.conversationId],
      foreignColumns: [conversations.integrationId, conversations.id],
    }).onDelete('cascade'),
    foreignKey({ columns: [t.integrationId, t.userId], foreignColumns: [users.integrationId, users.id] }).onDelete(
      'cascade',
    ),
    index('participants_page_idx').on(t.integrationId, t.conversationId, t.createdAt, t.joinId),
    index('participants_user_idx').on(t.integrationId, t.userId),
  ],
)

export const messages = pgTable(
  'messages',
  {
    integrationId: text('integration_id').notNull(),
    id: text('id').notNull(),
    conversationId: text('conversation_id').notNull(),
    userId: text('user_id').notNull(),
    payload: json('payload').$type<Record<string, unknown>>().notNull(),
    metadata: json('metadata').$type<Record<string, unknown>>(),
    feedback: json('feedback').$type<MessageFeedback>(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.integrationId, t.id] }),
    foreignKey({
      columns: [t.integrationId, t.conversationId],
      foreignColumns: [conversations.integrationId, conversations.id],
    }).onDelete('cascade'),
    foreignKey({ columns: [t.integrationId, t.userId], foreignColumns: [users.integrationId, users.id] }).onDelete(
      'cascade',
    ),
    index('messages_page_idx').on(t.integrationId, t.conversationId, t.createdAt, t.id),
    index('messages_user_idx').on(t.integrationId, t.userId),
    // Retention prunes by age across every conversation.
    index('messages_created_idx').on(t.createdAt),
  ],
)

export const files = pgTable(
  'files',
  {
    integrationId: text('integration_id').notNull(),
    id: text('id').notNull(),
    userId: text('user_id').notNull(),
    conversationId: text('conversation_id'),
    key: text('key').notNull(),
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    uploadedAt: text('uploaded_at'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.integrationId, t.id] }),
    foreignKey({ columns: [t.integrationId, t.userId], foreignColumns: [users.integrationId, users.id] }).onDelete(
      'cascade',
    ),
    foreignKey({
      columns: [t.integrationId, t.conversationId],
      foreignColumns: [conversations.integrationId, conversations.id],
    }).onDelete('cascade'),
    index('files_user_idx').on(t.integrationId, t.userId),
    index('files_conversation_idx').on(t.integrationId, t.conversationId),
    // PostgreSQL only: the bytes of an upload are stored by file id alone (FileBytes knows no integration).
    index('files_id_idx').on(t.id),
  ],
)

/** The bytes of an uploaded file (PostgreSQL only: SQLite keeps them in a folder); they go with its row. */
export const fileBytes = pgTable(
  'file_bytes',
  {
    id: text('id').primaryKey(),
    integrationId: text('integration_id').notNull(),
    bytes: bytea('bytes').notNull(),
  },
  (t) => [
    foreignKey({ columns: [t.integrationId, t.id], foreignColumns: [files.integrationId, files.id] }).onDelete('cascade'),
  ],
)

export const events = pgTable(
  'events',
  {
    integrationId: text('integration_id').notNull(),
    id: text('id').notNull(),
    conversationId: text('conversation_id').notNull(),
    userId: text('user_id').notNull(),
    payload: json('payload').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.integrationId, t.id] }),
    foreignKey({
      columns: [t.integrationId, t.conversationId],
      foreignColumns: [conversations.integrationId, conversations.id],
    }).onDelete('cascade'),
    foreignKey({ columns: [t.integrationId, t.userId], foreignColumns: [users.integrationId, users.id] }).onDelete(
      'cascade',
    ),
    index('events_page_idx').on(t.integrationId, t.conversationId, t.createdAt, t.id),
    index('events_user_idx').on(t.integrationId, t.userId),
    index('events_created_idx').on(t.createdAt),
  ],
)

export const botEvents = pgTable(
  'bot_events',
  {
    id: text('id').primaryKey(),
    botId: text('bot_id')
      .notNull()
      .references(() => bots.id, { onDelete: 'cascade' }),
    integrationId: text('integration_id')
      .notNull()
      .references(() => chatIntegrations.id, { onDelete: 'cascade' }),
    conversationId: text('conversation_id').notNull(),
    userId: text('user_id').notNull(),
    messageId: text('message_id'),
    type: text('type').notNull(),
    direction: text('direction').$type<'incoming' | 'outgoing'>().notNull(),
    payload: json('payload').$type<Record<string, unknown>>().notNull(),
    preview: text('preview').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('bot_events_conversation_idx').on(t.integrationId, t.conversationId, t.createdAt, t.id),
    // A deleted user's events go with it; retention prunes by age.
    index('bot_events_user_idx').on(t.integrationId, t.userId),
    index('bot_events_created_idx').on(t.createdAt),
  ],
)

export const botDeliveries = pgTable(
  'bot_deliveries',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    id: text('id').notNull().unique(),
    botId: text('bot_id')
      .notNull()
      .references(() => bots.id, { onDelete: 'cascade' }),
    integrationId: text('integration_id')
      .notNull()
      .references(() => chatIntegrations.id, { onDelete: 'cascade' }),
    conversationId: text('conversation_id').notNull(),
    userId: text('user_id').notNull(),
    event: json('event').$type<Record<string, unknown>>().notNull(),
    messageId: text('message_id'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: text('next_attempt_at').notNull(),
    createdAt: createdAt(),
    /** Until when the instance that claimed the delivery holds it (none: nobody does). */
    leasedUntil: text('leased_until'),
  },
  (t) => [
    foreignKey({
      columns: [t.integrationId, t.conversationId],
      foreignColumns: [conversations.integrationId, conversations.id],
    }).onDelete('cascade'),
    index('bot_deliveries_conversation_idx').on(t.integrationId, t.conversationId, t.seq),
    index('bot_deliveries_due_idx').on(t.nextAttemptAt),
  ],
)

export const botLogs = pgTable(
  'bot_logs',
  {
    id: text('id').primaryKey(),
    botId: text('bot_id')
      .notNull()
      .references(() => bots.id, { onDelete: 'cascade' }),
    timestamp: text('timestamp').notNull(),
    level: text('level').$type<'debug' | 'info' | 'warn' | 'error'>().notNull(),
    message: text('message').notNull(),
    conversationId: text('conversation_id'),
    userId: text('user_id'),
  },
  (t) => [
    index('bot_logs_bot_time_idx').on(t.botId, t.timestamp, t.id),
    // A deleted user's or conversation's lines go with it; retention prunes by age.
    index('bot_logs_user_idx').on(t.botId, t.userId),
    index('bot_logs_conversation_idx').on(t.botId, t.conversationId),
    index('bot_logs_time_idx').on(t.timestamp),
  ],
)

export const botStates = pgTable(
  'bot_states',
  {
    botId: text('bot_id')
      .notNull()
      .references(() => bots.id, { onDelete: 'cascade' }),
    scope: text('scope').$type<'conversation' | 'user' | 'bot'>().notNull(),
    scopeId: text('scope_id').notNull(),
    value: json('value').$type<Record<string, unknown>>().notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.botId, t.scope, t.scopeId] })],
)

export const deletedUsers = pgTable(
  'deleted_users',
  {
    integrationId: text('integration_id')
      .notNull()
      .references(() => chatIntegrations.id, { onDelete: 'cascade' }),
    /** base64url of SHA-256 of the user id. */
    userDigest: text('user_digest').notNull(),
    deletedAt: text('deleted_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.integrationId, t.userDigest] })],
)
