import { foreignKey, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

// Timestamps are ISO 8601 UTC strings with milliseconds ("2026-01-01T00:00:00.000Z"): they sort
// lexicographically in time order, which the (createdAt, id) keyset pagination relies on.
const createdAt = () => text('created_at').notNull()
const updatedAt = () => text('updated_at').notNull()

export const workspaces = sqliteTable('workspaces', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
})

export const adminTokens = sqliteTable(
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

export const bots = sqliteTable(
  'bots',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    handler: text('handler').notNull(),
    tags: text('tags', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deployedAt: text('deployed_at'),
    /** Where events are POSTed; none: the bot's handler runs in-process. */
    url: text('url'),
    /** `whsec_` + base64 of random bytes (Standard Webhooks): signs every delivery. */
    signingSecret: text('signing_secret'),
    /** The secret before the last rotation, still signing (beside the new one) until it expires. */
    previousSigningSecret: text('previous_signing_secret'),
    previousSigningSecretExpiresAt: text('previous_signing_secret_expires_at'),
    /** The url that answered 410 Gone: delivery stays off while `url` is still this one. */
    goneUrl: text('gone_url'),
    /** How events are POSTed to `url`: `webhook` (the signed event object) or `botpress` (what an @botpress/sdk bot reads). */
    protocol: text('protocol', { enum: ['webhook', 'botpress'] }).notNull().default('webhook'),
  },
  (t) => [
    index('bots_workspace_created_idx').on(t.workspaceId, t.createdAt, t.id),
    index('bots_workspace_updated_idx').on(t.workspaceId, t.updatedAt, t.id),
  ],
)

/** A bot API key: acts for its bot only, on the runtime API (/v1/chat/…); stored as a SHA-256 digest. */
export const botApiKeys = sqliteTable(
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

export const chatIntegrations = sqliteTable(
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

export const users = sqliteTable(
  'users',
  {
    integrationId: text('integration_id')
      .notNull()
      .references(() => chatIntegrations.id, { onDelete: 'cascade' }),
    id: text('id').notNull(),
    name: text('name'),
    pictureUrl: text('picture_url'),
    profile: text('profile'),
    // The bot's own user in this integration: its messages are the bot's replies.
    isBot: integer('is_bot', { mode: 'boolean' }).notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.integrationId, t.id] }),
    // The admin's list of a bot's users, newest first.
    index('users_created_idx').on(t.integrationId, t.createdAt, t.id),
  ],
)

export const conversations = sqliteTable(
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

export const participants = sqliteTable(
  'participants',
  {
    integrationId: text('integration_id').notNull(),
    conversationId: text('conversation_id').notNull(),
    userId: text('user_id').notNull(),
    // A monotonic id: users who join in the same millisecond still list in the order they joined.
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

export const messages = sqliteTable(
  'messages',
  {
    integrationId: text('integration_id').notNull(),
    id: text('id').notNull(),
    conversationId: text('conversation_id').notNull(),
    userId: text('user_id').notNull(),
    payload: text('payload', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>(),
    /** A user's feedback on the message (the web chat's thumbs up or down). */
    feedback: text('feedback', { mode: 'json' }).$type<MessageFeedback>(),
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

export interface MessageFeedback {
  value: 'positive' | 'negative'
  comment?: string
}

/**
 * A file a user uploads (the web chat's attachments): its bytes are on disk, named by its id, once
 * uploaded; the row goes with its user or conversation, and the bytes with it.
 */
export const files = sqliteTable(
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
  ],
)

export const events = sqliteTable(
  'events',
  {
    integrationId: text('integration_id').notNull(),
    id: text('id').notNull(),
    conversationId: text('conversation_id').notNull(),
    userId: text('user_id').notNull(),
    payload: text('payload', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
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

/**
 * What the bot runtime saw and did (spec part 6): an `incoming` row for each user message or custom
 * event handed to a bot, an `outgoing` row for each message or event the bot sent back.
 */
export const botEvents = sqliteTable(
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
    direction: text('direction', { enum: ['incoming', 'outgoing'] }).notNull(),
    payload: text('payload', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
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

/**
 * The outbox of events for bots: a row is written in the unit of work of the message or event that
 * causes it, and removed once the bot took it (2xx) or it died. A conversation's rows are
 * delivered one at a time, in `seq` order.
 */
export const botDeliveries = sqliteTable(
  'bot_deliveries',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    /** The `webhook-id`: the same on every attempt, so that a receiver can dedupe. */
    id: text('id').notNull().unique(),
    botId: text('bot_id')
      .notNull()
      .references(() => bots.id, { onDelete: 'cascade' }),
    integrationId: text('integration_id')
      .notNull()
      .references(() => chatIntegrations.id, { onDelete: 'cascade' }),
    conversationId: text('conversation_id').notNull(),
    userId: text('user_id').notNull(),
    /** The spec's event object (without its state, read when the attempt is made). */
    event: text('event', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    messageId: text('message_id'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: text('next_attempt_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    // A deleted conversation takes its pending deliveries with it.
    foreignKey({
      columns: [t.integrationId, t.conversationId],
      foreignColumns: [conversations.integrationId, conversations.id],
    }).onDelete('cascade'),
    index('bot_deliveries_conversation_idx').on(t.integrationId, t.conversationId, t.seq),
    index('bot_deliveries_due_idx').on(t.nextAttemptAt),
  ],
)

/** What happened to a bot's events (deliveries, refusals, failures), as getBotLogs reads it. */
export const botLogs = sqliteTable(
  'bot_logs',
  {
    id: text('id').primaryKey(),
    botId: text('bot_id')
      .notNull()
      .references(() => bots.id, { onDelete: 'cascade' }),
    timestamp: text('timestamp').notNull(),
    level: text('level', { enum: ['debug', 'info', 'warn', 'error'] }).notNull(),
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

export type BotStateScope = 'conversation' | 'user' | 'bot'

/** What a bot stored for a conversation, a user (across conversations) or itself (`scope_id` '') */
export const botStates = sqliteTable(
  'bot_states',
  {
    botId: text('bot_id')
      .notNull()
      .references(() => bots.id, { onDelete: 'cascade' }),
    scope: text('scope', { enum: ['conversation', 'user', 'bot'] }).notNull(),
    scopeId: text('scope_id').notNull(),
    value: text('value', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.botId, t.scope, t.scopeId] })],
)

export type WorkspaceRow = typeof workspaces.$inferSelect
export type BotRow = typeof bots.$inferSelect
export type ChatIntegrationRow = typeof chatIntegrations.$inferSelect
export type UserRow = typeof users.$inferSelect
export type ConversationRow = typeof conversations.$inferSelect
export type ParticipantRow = typeof participants.$inferSelect
export type MessageRow = typeof messages.$inferSelect
export type EventRow = typeof events.$inferSelect
export type FileRow = typeof files.$inferSelect
export type BotEventRow = typeof botEvents.$inferSelect
export type BotLogRow = typeof botLogs.$inferSelect
export type AdminTokenRow = typeof adminTokens.$inferSelect
export type BotDeliveryRow = typeof botDeliveries.$inferSelect
export type BotStateRow = typeof botStates.$inferSelect
export type BotApiKeyRow = typeof botApiKeys.$inferSelect

/**
 * Users deleted (see docs/reference/decisions.md, "A deleted user stays deleted"): a key that still
 * names one re-creates nothing. The id is kept as a SHA-256 digest only (an id may itself be personal,
 * an email): enough to recognise it, not to read it back. They go with their chat integration.
 */
export const deletedUsers = sqliteTable(
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

export type DeletedUserRow = typeof deletedUsers.$inferSelect
