import type { SQLiteColumnBuilderBase } from 'drizzle-orm/sqlite-core'
import type { Dialect } from './sqlite/dialect.ts'

export type { Dialect }

/*
 * Every table, said once: each engine builds them with its own column types (its Dialect:
 * src/db/sqlite/dialect.ts, src/db/postgres/schema.ts), so that both have the same tables, columns,
 * indexes and constraints (test/storage/schema-parity.test.ts). The tables are typed as SQLite's
 * (the reference dialect): the row types below, and the query shapes of src/db/queries/, are the
 * same on both engines. docs/internals/storage.md lists the type differences.
 */

export interface MessageFeedback {
  value: 'positive' | 'negative'
  comment?: string
}

export type BotStateScope = 'conversation' | 'user' | 'bot'

/** A named state that expires when left unwritten for `expiry` ms: at `expiresAt` (ISO 8601), unless written again. */
export interface StateExpiry {
  expiry: number
  expiresAt: string
}

/** Who answers a conversation's user (conversations.handledBy). */
export const handlers = ['bot', 'waiting', 'agent', 'closed'] as const
export type HandledBy = (typeof handlers)[number]

/** A key that signed user keys before a rotation, kept until `expiresAt` (ISO 8601). */
export interface PreviousEncryptionKey {
  key: string
  expiresAt: string
}

export function defineTables(d: Dialect) {
  // Timestamps are ISO 8601 UTC strings with milliseconds ("2026-01-01T00:00:00.000Z"): they sort
  // lexicographically in time order, which the (createdAt, id) keyset pagination relies on.
  const createdAt = () => d.text('created_at').notNull()
  const updatedAt = () => d.text('updated_at').notNull()

  const workspaces = d.table('workspaces', {
    id: d.text('id').primaryKey(),
    name: d.text('name').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  })

  const adminTokens = d.table(
    'admin_tokens',
    {
      id: d.text('id').primaryKey(),
      workspaceId: d
        .text('workspace_id')
        .notNull()
        .references(() => workspaces.id, { onDelete: 'cascade' }),
      tokenHash: d.text('token_hash').notNull().unique(),
      createdAt: createdAt(),
    },
    (t) => [d.index('admin_tokens_workspace_idx').on(t.workspaceId)],
  )

  const bots = d.table(
    'bots',
    {
      id: d.text('id').primaryKey(),
      workspaceId: d
        .text('workspace_id')
        .notNull()
        .references(() => workspaces.id, { onDelete: 'cascade' }),
      name: d.text('name').notNull(),
      handler: d.text('handler').notNull(),
      tags: d.json<Record<string, string>>('tags').notNull(),
      createdAt: createdAt(),
      updatedAt: updatedAt(),
      deployedAt: d.text('deployed_at'),
      /** Where events are POSTed; none: the bot's handler runs in-process. */
      url: d.text('url'),
      /** `whsec_` + base64 of random bytes (Standard Webhooks): signs every delivery. */
      signingSecret: d.text('signing_secret'),
      /** The secret before the last rotation, still signing (beside the new one) until it expires. */
      previousSigningSecret: d.text('previous_signing_secret'),
      previousSigningSecretExpiresAt: d.text('previous_signing_secret_expires_at'),
      /** The url that answered 410 Gone: delivery stays off while `url` is still this one. */
      goneUrl: d.text('gone_url'),
      /** How events are POSTed to `url`: `webhook` (the signed event object) or `botpress` (what an @botpress/sdk bot reads). */
      protocol: d.oneOf('protocol', ['webhook', 'botpress']).notNull().default('webhook'),
    },
    (t) => [
      d.index('bots_workspace_created_idx').on(t.workspaceId, t.createdAt, t.id),
      d.index('bots_workspace_updated_idx').on(t.workspaceId, t.updatedAt, t.id),
    ],
  )

  /** A bot API key: acts for its bot only, on the runtime API (/v1/chat/…); stored as a SHA-256 digest. */
  const botApiKeys = d.table(
    'bot_api_keys',
    {
      id: d.text('id').primaryKey(),
      botId: d
        .text('bot_id')
        .notNull()
        .references(() => bots.id, { onDelete: 'cascade' }),
      note: d.text('note'),
      keyHash: d.text('key_hash').notNull().unique(),
      createdAt: createdAt(),
    },
    (t) => [d.index('bot_api_keys_bot_idx').on(t.botId)],
  )

  const chatIntegrations = d.table(
    'chat_integrations',
    {
      id: d.text('id').primaryKey(),
      botId: d
        .text('bot_id')
        .notNull()
        .references(() => bots.id, { onDelete: 'cascade' }),
      webhookId: d.text('webhook_id').notNull().unique(),
      encryptionKey: d.text('encryption_key').notNull(),
      /**
       * The operator's own key ("personal" mode, as Botpress' chat integration has it): when set, user
       * keys are signed and verified with it instead of `encryptionKey` (the server's shared key, never
       * shown), and createUser is refused. Null: shared mode.
       */
      personalEncryptionKey: d.text('personal_encryption_key'),
      createdAt: createdAt(),
      /**
       * Keys that signed user keys before a rotation (`confab credentials --rotate-encryption-key`): user
       * keys they signed still verify until each one's `expiresAt` (ISO 8601), or until they are retired.
       * Null: none.
       */
      previousEncryptionKeys: d.json<PreviousEncryptionKey[]>('previous_encryption_keys'),
      /**
       * The configuration's `webhookUrl` (Botpress' chat integration): every signal of the integration
       * is also POSTed there (integrationWebhookDeliveries). Null: none. Not the chat API's base URL.
       */
      webhookUrl: d.text('webhook_url'),
      /**
       * The configuration's `webhookSecret`, sent as `x-secret-key`: sealed (AES-256-GCM,
       * src/domain/secret-box.ts), never shown by any read. Null: none.
       */
      webhookSecret: d.text('webhook_secret'),
    },
    (t) => [d.index('chat_integrations_bot_idx').on(t.botId)],
  )

  const users = d.table(
    'users',
    {
      integrationId: d
        .text('integration_id')
        .notNull()
        .references(() => chatIntegrations.id, { onDelete: 'cascade' }),
      id: d.text('id').notNull(),
      name: d.text('name'),
      pictureUrl: d.text('picture_url'),
      profile: d.text('profile'),
      // The bot's own user in this integration: its messages are the bot's replies.
      isBot: d.boolean('is_bot').notNull().default(false),
      createdAt: createdAt(),
      updatedAt: updatedAt(),
      /** Whether the client chose the id (createUser with `id`): Botpress' chat integration tags such a user `fid`. */
      idChosen: d.boolean('id_chosen').notNull().default(false),
    },
    (t) => [
      d.primaryKey({ columns: [t.integrationId, t.id] }),
      // The admin's list of a bot's users, newest first.
      d.index('users_created_idx').on(t.integrationId, t.createdAt, t.id),
    ],
  )

  /**
   * The bytes a user's messages (payload and metadata) and custom events (payload) take, as stored
   * JSON, read by the per-user storage quota (MESSAGE_STORAGE_PER_USER_BYTES) with one key lookup.
   * Kept by triggers on messages and events (the migration after this table's, both engines), in the
   * statement that writes or deletes them, whichever path does (a cascade, retention): no row, none.
   */
  const userStorage = d.table(
    'user_storage',
    {
      integrationId: d.text('integration_id').notNull(),
      userId: d.text('user_id').notNull(),
      bytes: d.bigCount('bytes').notNull().default(0),
    },
    (t) => [
      d.primaryKey({ columns: [t.integrationId, t.userId] }),
      d.foreignKey({ columns: [t.integrationId, t.userId], foreignColumns: [users.integrationId, users.id] }).onDelete('cascade'),
    ],
  )

  const conversations = d.table(
    'conversations',
    {
      integrationId: d
        .text('integration_id')
        .notNull()
        .references(() => chatIntegrations.id, { onDelete: 'cascade' }),
      id: d.text('id').notNull(),
      ownerId: d.text('owner_id').notNull(),
      createdAt: createdAt(),
      updatedAt: updatedAt(),
      /** Whether the client chose the id (createConversation with `id`): the chat integration's `fid` tag. */
      idChosen: d.boolean('id_chosen').notNull().default(false),
      /**
       * Who answers the user (issue 52, docs/guides/handoff.md): the bot; nobody yet, waiting in its
       * workspace's queue for an agent; an agent (`agentId`); or closed by an agent. While it is
       * waiting or an agent's, the user's messages are not delivered to the bot.
       */
      handledBy: d.oneOf('handled_by', handlers).notNull().default('bot'),
      /** The agent who holds it (handledBy `agent`), or who closed it. */
      agentId: d.text('agent_id'),
      /** What the bot said the handoff is about (hitl:startHitl's `title`), shown in the queue. */
      handoffTitle: d.text('handoff_title'),
      /** When the conversation last entered the queue (the queue's order: oldest first). */
      handoffAt: d.text('handoff_at'),
    },
    (t) => [
      d.primaryKey({ columns: [t.integrationId, t.id] }),
      d.foreignKey({ columns: [t.integrationId, t.ownerId], foreignColumns: [users.integrationId, users.id] }).onDelete('cascade'),
      d.index('conversations_owner_idx').on(t.integrationId, t.ownerId),
      d.index('conversations_created_idx').on(t.integrationId, t.createdAt, t.id),
      // The queue and an agent's conversations: only handed-off ones have a handoffAt.
      d.index('conversations_handoff_idx').on(t.handledBy, t.handoffAt),
    ],
  )

  const participants = d.table(
    'participants',
    {
      integrationId: d.text('integration_id').notNull(),
      conversationId: d.text('conversation_id').notNull(),
      userId: d.text('user_id').notNull(),
      // A monotonic id: users who join in the same millisecond still list in the order they joined.
      joinId: d.text('join_id').notNull(),
      createdAt: createdAt(),
    },
    (t) => [
      d.primaryKey({ columns: [t.integrationId, t.conversationId, t.userId] }),
      d
        .foreignKey({
          columns: [t.integrationId, t.conversationId],
          foreignColumns: [conversations.integrationId, conversations.id],
        })
        .onDelete('cascade'),
      d.foreignKey({ columns: [t.integrationId, t.userId], foreignColumns: [users.integrationId, users.id] }).onDelete('cascade'),
      d.index('participants_page_idx').on(t.integrationId, t.conversationId, t.createdAt, t.joinId),
      d.index('participants_user_idx').on(t.integrationId, t.userId),
    ],
  )

  /**
   * What users post in a conversation (its messages and its events): by integration and id, listed
   * newest first in their conversation, found by author; they go with either.
   */
  const posted = <C extends Record<string, SQLiteColumnBuilderBase>>(name: string, columns: C) =>
    d.table(
      name,
      {
        integrationId: d.text('integration_id').notNull(),
        id: d.text('id').notNull(),
        conversationId: d.text('conversation_id').notNull(),
        userId: d.text('user_id').notNull(),
        ...columns,
        createdAt: createdAt(),
      },
      (t) => [
        d.primaryKey({ columns: [t.integrationId, t.id] }),
        d
          .foreignKey({
            columns: [t.integrationId, t.conversationId],
            foreignColumns: [conversations.integrationId, conversations.id],
          })
          .onDelete('cascade'),
        d.foreignKey({ columns: [t.integrationId, t.userId], foreignColumns: [users.integrationId, users.id] }).onDelete('cascade'),
        d.index(`${name}_page_idx`).on(t.integrationId, t.conversationId, t.createdAt, t.id),
        // A deleted user's rows go with it. (Retention prunes by age through the page index, a
        // conversation at a time: an index on age alone would be one more entry per row written.)
        d.index(`${name}_user_idx`).on(t.integrationId, t.userId),
      ],
    )

  const messages = posted('messages', {
    payload: d.json<Record<string, unknown>>('payload').notNull(),
    metadata: d.json<Record<string, unknown>>('metadata'),
    /** A user's feedback on the message (the web chat's thumbs up or down). */
    feedback: d.json<MessageFeedback>('feedback'),
  })

  /**
   * A file a user uploads (the web chat's attachments): its bytes are on disk, named by its id, once
   * uploaded; the row goes with its user or conversation, and the bytes with it.
   */
  const files = d.table(
    'files',
    {
      integrationId: d.text('integration_id').notNull(),
      id: d.text('id').notNull(),
      userId: d.text('user_id').notNull(),
      conversationId: d.text('conversation_id'),
      key: d.text('key').notNull(),
      contentType: d.text('content_type').notNull(),
      size: d.integer('size').notNull(),
      uploadedAt: d.text('uploaded_at'),
      createdAt: createdAt(),
    },
    (t) => [
      d.primaryKey({ columns: [t.integrationId, t.id] }),
      d.foreignKey({ columns: [t.integrationId, t.userId], foreignColumns: [users.integrationId, users.id] }).onDelete('cascade'),
      d
        .foreignKey({
          columns: [t.integrationId, t.conversationId],
          foreignColumns: [conversations.integrationId, conversations.id],
        })
        .onDelete('cascade'),
      d.index('files_user_idx').on(t.integrationId, t.userId),
      d.index('files_conversation_idx').on(t.integrationId, t.conversationId),
      ...d.fileIndexes(t),
    ],
  )

  const events = posted('events', {
    payload: d.json<Record<string, unknown>>('payload').notNull(),
  })

  /**
   * The persisted signals of each conversation, in order (its `id`, a monotonic ULID, is the SSE
   * `id:` and the `since` cursor of a listener that resumes: src/domain/signal-log.ts). Written in the
   * unit of the change it tells; kept for SIGNAL_LOG_HOURS. A message's rows go with it (deleted or
   * erased), the rest with their conversation or user.
   */
  const conversationSignals = d.table(
    'conversation_signals',
    {
      integrationId: d.text('integration_id').notNull(),
      id: d.text('id').notNull(),
      conversationId: d.text('conversation_id').notNull(),
      /** Whom the signal is about (the author, the participant): an erased user's rows go with it. */
      userId: d.text('user_id').notNull(),
      /** The message it tells of, if any: its rows go when it is deleted. */
      messageId: d.text('message_id'),
      type: d.text('type').notNull(),
      /** The signal as the listeners got it (less its conversation id and its own id). */
      signal: d.json<Record<string, unknown>>('signal').notNull(),
      createdAt: createdAt(),
    },
    (t) => [
      d.primaryKey({ columns: [t.integrationId, t.id] }),
      d.foreignKey({ columns: [t.integrationId, t.conversationId], foreignColumns: [conversations.integrationId, conversations.id] }).onDelete('cascade'),
      d.foreignKey({ columns: [t.integrationId, t.userId], foreignColumns: [users.integrationId, users.id] }).onDelete('cascade'),
      d.index('conversation_signals_log_idx').on(t.integrationId, t.conversationId, t.id),
      d.index('conversation_signals_user_idx').on(t.integrationId, t.userId),
    ],
  )

  /**
   * What the bot runtime saw and did (spec part 6): an `incoming` row for each user message or custom
   * event handed to a bot, an `outgoing` row for each message or event the bot sent back.
   */
  const botEvents = d.table(
    'bot_events',
    {
      id: d.text('id').primaryKey(),
      botId: d
        .text('bot_id')
        .notNull()
        .references(() => bots.id, { onDelete: 'cascade' }),
      integrationId: d
        .text('integration_id')
        .notNull()
        .references(() => chatIntegrations.id, { onDelete: 'cascade' }),
      conversationId: d.text('conversation_id').notNull(),
      userId: d.text('user_id').notNull(),
      messageId: d.text('message_id'),
      type: d.text('type').notNull(),
      direction: d.oneOf('direction', ['incoming', 'outgoing']).notNull(),
      /** The event's payload and preview; null for a message's event: they are the message's (`message_id`), stored once. */
      payload: d.json<Record<string, unknown>>('payload'),
      preview: d.text('preview'),
      createdAt: createdAt(),
    },
    (t) => [
      d.index('bot_events_conversation_idx').on(t.integrationId, t.conversationId, t.createdAt, t.id),
      // A deleted user's events go with it (retention prunes by age through the conversation's index).
      d.index('bot_events_user_idx').on(t.integrationId, t.userId),
    ],
  )

  /**
   * The outbox of events for bots: a row is written in the unit of work of the message or event that
   * causes it, and removed once the bot took it (2xx) or it died. A conversation's rows are
   * delivered one at a time, in `seq` order.
   */
  const botDeliveries = d.table(
    'bot_deliveries',
    {
      seq: d.serial('seq'),
      /** The `webhook-id`: the same on every attempt, so that a receiver can dedupe. */
      id: d.text('id').notNull().unique(),
      botId: d
        .text('bot_id')
        .notNull()
        .references(() => bots.id, { onDelete: 'cascade' }),
      integrationId: d
        .text('integration_id')
        .notNull()
        .references(() => chatIntegrations.id, { onDelete: 'cascade' }),
      conversationId: d.text('conversation_id').notNull(),
      userId: d.text('user_id').notNull(),
      /** The spec's event object (without its state, read when the attempt is made). */
      event: d.json<Record<string, unknown>>('event').notNull(),
      messageId: d.text('message_id'),
      attempts: d.integer('attempts').notNull().default(0),
      nextAttemptAt: d.text('next_attempt_at').notNull(),
      createdAt: createdAt(),
      ...d.deliveryLease(),
    },
    (t) => [
      // A deleted conversation takes its pending deliveries with it.
      d
        .foreignKey({
          columns: [t.integrationId, t.conversationId],
          foreignColumns: [conversations.integrationId, conversations.id],
        })
        .onDelete('cascade'),
      d.index('bot_deliveries_conversation_idx').on(t.integrationId, t.conversationId, t.seq),
      ...d.deliveryIndexes(t),
    ],
  )

  /**
   * The outbox of integration webhooks: each signal of a chat integration that has a `webhookUrl`,
   * written in the unit of the change it tells, POSTed in `seq` order per integration, retried on
   * the bots' schedule. `leasedUntil`: until when the instance that claimed it holds it.
   */
  const integrationWebhookDeliveries = d.table(
    'integration_webhook_deliveries',
    {
      seq: d.serial('seq'),
      /** The `webhook-id`: the same on every attempt, so that a receiver can dedupe. */
      id: d.text('id').notNull().unique(),
      integrationId: d
        .text('integration_id')
        .notNull()
        .references(() => chatIntegrations.id, { onDelete: 'cascade' }),
      /** The signal as the listeners heard it (domain/signals.ts), rendered in the Chat API's shape when sent. */
      signal: d.json<Record<string, unknown>>('signal').notNull(),
      attempts: d.integer('attempts').notNull().default(0),
      nextAttemptAt: d.text('next_attempt_at').notNull(),
      createdAt: createdAt(),
      leasedUntil: d.text('leased_until'),
    },
    (t) => [d.index('integration_webhook_deliveries_order_idx').on(t.integrationId, t.seq)],
  )

  /**
   * The tags a bot set on a conversation (the bot API's updateConversation), one row a tag; the
   * chat integration's own (`chat:owner`, `chat:fid`) are read from the conversation, never stored.
   */
  const conversationTags = d.table(
    'conversation_tags',
    {
      integrationId: d.text('integration_id').notNull(),
      conversationId: d.text('conversation_id').notNull(),
      key: d.text('key').notNull(),
      value: d.text('value').notNull(),
    },
    (t) => [
      d.primaryKey({ columns: [t.integrationId, t.conversationId, t.key] }),
      d
        .foreignKey({
          columns: [t.integrationId, t.conversationId],
          foreignColumns: [conversations.integrationId, conversations.id],
        })
        .onDelete('cascade'),
      // listTagValues: a key's distinct values in order.
      d.index('conversation_tags_values_idx').on(t.integrationId, t.key, t.value),
    ],
  )

  /** What happened to a bot's events (deliveries, refusals, failures), as getBotLogs reads it. */
  const botLogs = d.table(
    'bot_logs',
    {
      id: d.text('id').primaryKey(),
      botId: d
        .text('bot_id')
        .notNull()
        .references(() => bots.id, { onDelete: 'cascade' }),
      timestamp: d.text('timestamp').notNull(),
      level: d.oneOf('level', ['debug', 'info', 'warn', 'error']).notNull(),
      message: d.text('message').notNull(),
      conversationId: d.text('conversation_id'),
      userId: d.text('user_id'),
    },
    (t) => [
      // Retention prunes by age through it too, a bot at a time.
      d.index('bot_logs_bot_time_idx').on(t.botId, t.timestamp, t.id),
      // A deleted user's or conversation's lines go with it.
      d.index('bot_logs_user_idx').on(t.botId, t.userId),
      d.index('bot_logs_conversation_idx').on(t.botId, t.conversationId),
    ],
  )

  /** What a bot stored for a conversation, a user (across conversations) or itself (`scope_id` '') */
  const botStates = d.table(
    'bot_states',
    {
      botId: d
        .text('bot_id')
        .notNull()
        .references(() => bots.id, { onDelete: 'cascade' }),
      scope: d.oneOf('scope', ['conversation', 'user', 'bot']).notNull(),
      scopeId: d.text('scope_id').notNull(),
      value: d.json<Record<string, unknown>>('value').notNull(),
      updatedAt: updatedAt(),
      /** The named states that expire once idle (the bot API's `expiry`), by name. */
      expiries: d.json<Record<string, StateExpiry>>('expiries'),
      /** When the first of them expires: what a sweep finds the rows to clean by. */
      expiresAt: d.text('expires_at'),
    },
    (t) => [d.primaryKey({ columns: [t.botId, t.scope, t.scopeId] }), d.index('bot_states_expires_idx').on(t.expiresAt)],
  )

  /**
   * A person who answers users in place of the bots of a workspace (issue 52): made by an
   * administrator, acting with its own key (`agk_…`, stored as a SHA-256 digest) on the agent API.
   * A `supervisor` sees all of the workspace's handed-off conversations; an `agent` the queue and its own.
   */
  const agents = d.table(
    'agents',
    {
      id: d.text('id').primaryKey(),
      workspaceId: d
        .text('workspace_id')
        .notNull()
        .references(() => workspaces.id, { onDelete: 'cascade' }),
      name: d.text('name').notNull(),
      role: d.oneOf('role', ['agent', 'supervisor']).notNull().default('agent'),
      keyHash: d.text('key_hash').notNull().unique(),
      createdAt: createdAt(),
      updatedAt: updatedAt(),
    },
    (t) => [d.index('agents_workspace_created_idx').on(t.workspaceId, t.createdAt, t.id)],
  )

  /** What an agent writes about a conversation for other agents: never shown to its user nor its bot. */
  const conversationNotes = d.table(
    'conversation_notes',
    {
      integrationId: d.text('integration_id').notNull(),
      id: d.text('id').notNull(),
      conversationId: d.text('conversation_id').notNull(),
      agentId: d.text('agent_id').notNull(),
      text: d.text('text').notNull(),
      createdAt: createdAt(),
    },
    (t) => [
      d.primaryKey({ columns: [t.integrationId, t.id] }),
      d
        .foreignKey({
          columns: [t.integrationId, t.conversationId],
          foreignColumns: [conversations.integrationId, conversations.id],
        })
        .onDelete('cascade'),
      d.index('conversation_notes_page_idx').on(t.integrationId, t.conversationId, t.createdAt, t.id),
    ],
  )

  /**
   * What the bot handed a waiting or held conversation over with (hitl:startHitl's `description` and
   * `messageHistory`), for its agents: one row per conversation, from the request to the end of the
   * handoff (released, closed or stopped). Apart from the conversation's row, which every message
   * reads: the history may be large. `firstReplyAt`: when an agent first answered (the metric).
   */
  const handoffRequests = d.table(
    'handoff_requests',
    {
      integrationId: d.text('integration_id').notNull(),
      conversationId: d.text('conversation_id').notNull(),
      description: d.text('description'),
      messageHistory: d.json<Record<string, unknown>[]>('message_history'),
      requestedAt: d.text('requested_at').notNull(),
      firstReplyAt: d.text('first_reply_at'),
    },
    (t) => [
      d.primaryKey({ columns: [t.integrationId, t.conversationId] }),
      d
        .foreignKey({
          columns: [t.integrationId, t.conversationId],
          foreignColumns: [conversations.integrationId, conversations.id],
        })
        .onDelete('cascade'),
    ],
  )

  /**
   * Users deleted (see docs/reference/decisions.md, "A deleted user stays deleted"): a key that still
   * names one re-creates nothing. The id is kept as a SHA-256 digest only (an id may itself be personal,
   * an email): enough to recognise it, not to read it back. They go with their chat integration.
   */
  const deletedUsers = d.table(
    'deleted_users',
    {
      integrationId: d
        .text('integration_id')
        .notNull()
        .references(() => chatIntegrations.id, { onDelete: 'cascade' }),
      /** base64url of SHA-256 of the user id. */
      userDigest: d.text('user_digest').notNull(),
      deletedAt: d.text('deleted_at').notNull(),
    },
    (t) => [d.primaryKey({ columns: [t.integrationId, t.userDigest] })],
  )

  return {
    workspaces,
    adminTokens,
    bots,
    botApiKeys,
    chatIntegrations,
    users,
    userStorage,
    conversations,
    participants,
    messages,
    files,
    events,
    conversationSignals,
    botEvents,
    botDeliveries,
    integrationWebhookDeliveries,
    conversationTags,
    botLogs,
    botStates,
    agents,
    conversationNotes,
    handoffRequests,
    deletedUsers,
  }
}

export type Tables = ReturnType<typeof defineTables>

export type WorkspaceRow = Tables['workspaces']['$inferSelect']
export type BotRow = Tables['bots']['$inferSelect']
export type ChatIntegrationRow = Tables['chatIntegrations']['$inferSelect']
export type UserRow = Tables['users']['$inferSelect']
export type ConversationRow = Tables['conversations']['$inferSelect']
export type ParticipantRow = Tables['participants']['$inferSelect']
export type MessageRow = Tables['messages']['$inferSelect']
export type EventRow = Tables['events']['$inferSelect']
export type ConversationSignalRow = Tables['conversationSignals']['$inferSelect']
export type FileRow = Tables['files']['$inferSelect']
export type BotEventRow = Tables['botEvents']['$inferSelect']
export type BotLogRow = Tables['botLogs']['$inferSelect']
export type AdminTokenRow = Tables['adminTokens']['$inferSelect']
export type BotDeliveryRow = Tables['botDeliveries']['$inferSelect']
export type IntegrationWebhookDeliveryRow = Tables['integrationWebhookDeliveries']['$inferSelect']
export type ConversationTagRow = Tables['conversationTags']['$inferSelect']
export type BotStateRow = Tables['botStates']['$inferSelect']
export type BotApiKeyRow = Tables['botApiKeys']['$inferSelect']
export type DeletedUserRow = Tables['deletedUsers']['$inferSelect']
export type AgentRow = Tables['agents']['$inferSelect']
export type ConversationNoteRow = Tables['conversationNotes']['$inferSelect']
export type HandoffRequestRow = Tables['handoffRequests']['$inferSelect']
