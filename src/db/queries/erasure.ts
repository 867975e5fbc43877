import { createHash, createHmac, randomBytes } from 'node:crypto'
import { and, eq, inArray, like } from 'drizzle-orm'
import { fixedLimit, query, type Run } from '../query.ts'
import type { ErasureQueries, ErasureScope } from '../store.ts'

/*
 * A deleted user's id as its tombstone keeps it: an HMAC-SHA-256 of the id under a secret key of its
 * chat integration, recognisable by the server, not readable back, and not recoverable from a copy
 * of the database by trying likely ids (an email, `customer-123`) without the key. The key is kept in
 * the same table, as a row of its own (`hmac-key:` and the key in place of a digest): no table
 * changes, it goes with its integration, and it never rotates (unlike the encryption keys, whose
 * rotation would forget every tombstone). Two instances burying an integration's first user at once
 * may each make a key: every key of the integration is tried.
 * Tombstones of earlier versions are plain SHA-256 digests of the id: still recognised, and left as
 * they are (one cannot be turned into an HMAC without its id; docs/guides/running-on-the-internet.md).
 */
const keyPrefix = 'hmac-key:'
const hmacOf = (key: string, userId: string) => createHmac('sha256', key).update(userId).digest('base64url')
const legacyDigestOf = (userId: string) => createHash('sha256').update(userId).digest('base64url')

/*
 * The rows of bot events, bot logs, deliveries and states name users and conversations without a
 * foreign key (an event may have neither, a log line outlives a delivery): deleting a user or a
 * conversation deletes them here, in the same unit as the rows the foreign keys take along.
 */

type UserOf = ErasureScope & { userId: string }
type ConversationOf = ErasureScope & { conversationId: string }

const ownedConversations = query(({ db, t: { conversations } }, v: { integrationId: string; userId: string }) =>
  db
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.integrationId, v.integrationId), eq(conversations.ownerId, v.userId))),
)

const userBotEvents = query(({ db, t: { botEvents } }, v: UserOf) =>
  db.delete(botEvents).where(and(eq(botEvents.integrationId, v.integrationId), eq(botEvents.userId, v.userId))),
)
const userBotLogs = query(({ db, t: { botLogs } }, v: UserOf) => db.delete(botLogs).where(and(eq(botLogs.botId, v.botId), eq(botLogs.userId, v.userId))))
const userDeliveries = query(({ db, t: { botDeliveries } }, v: UserOf) =>
  db.delete(botDeliveries).where(and(eq(botDeliveries.integrationId, v.integrationId), eq(botDeliveries.userId, v.userId))),
)
const userBotStates = query(({ db, t: { botStates } }, v: UserOf) =>
  db.delete(botStates).where(and(eq(botStates.botId, v.botId), eq(botStates.scope, 'user'), eq(botStates.scopeId, v.userId))),
)

const conversationBotEvents = query(({ db, t: { botEvents } }, v: ConversationOf) =>
  db.delete(botEvents).where(and(eq(botEvents.integrationId, v.integrationId), eq(botEvents.conversationId, v.conversationId))),
)
const conversationBotLogs = query(({ db, t: { botLogs } }, v: ConversationOf) =>
  db.delete(botLogs).where(and(eq(botLogs.botId, v.botId), eq(botLogs.conversationId, v.conversationId))),
)
const conversationBotStates = query(({ db, t: { botStates } }, v: ConversationOf) =>
  db.delete(botStates).where(and(eq(botStates.botId, v.botId), eq(botStates.scope, 'conversation'), eq(botStates.scopeId, v.conversationId))),
)

// Through the conversation's index: the message's events are among its conversation's.
const messageBotEvents = query(({ db, t: { botEvents } }, v: { integrationId: string; conversationId: string; messageId: string }) =>
  db
    .delete(botEvents)
    .where(and(eq(botEvents.integrationId, v.integrationId), eq(botEvents.conversationId, v.conversationId), eq(botEvents.messageId, v.messageId))),
)

const bury = query(({ db, t: { deletedUsers } }, v: { integrationId: string; userDigest: string; deletedAt: string }) =>
  db.insert(deletedUsers).values(v).onConflictDoNothing(),
)

const burial = query(
  ({ db, t: { deletedUsers } }, v: { integrationId: string; userDigests: string[] }) =>
    db
      .select({ deletedAt: deletedUsers.deletedAt })
      .from(deletedUsers)
      .where(and(eq(deletedUsers.integrationId, v.integrationId), inArray(deletedUsers.userDigest, v.userDigests)))
      .limit(fixedLimit(1)),
  // One statement per number of digests (the integration's keys, and the legacy digest).
  (v) => v.userDigests.length,
)

const tombstoneKeys = query(({ db, t: { deletedUsers } }, v: { integrationId: string }) =>
  db
    .select({ userDigest: deletedUsers.userDigest })
    .from(deletedUsers)
    .where(and(eq(deletedUsers.integrationId, v.integrationId), like(deletedUsers.userDigest, `${keyPrefix}%`))),
)

export const erasureQueries = (run: Run): ErasureQueries => ({
  ownedConversations: async (integrationId, userId) => (await run.all(ownedConversations, { integrationId, userId })).map((row) => row.id),
  async userTraces(scope, userId) {
    const v = { ...scope, userId }
    for (const statement of [userBotEvents, userBotLogs, userDeliveries, userBotStates]) await run.run(statement, v)
  },
  async conversationTraces(scope, conversationId) {
    const v = { ...scope, conversationId }
    for (const statement of [conversationBotEvents, conversationBotLogs, conversationBotStates]) await run.run(statement, v)
  },
  messageTraces: (integrationId, conversationId, messageId) => run.run(messageBotEvents, { integrationId, conversationId, messageId }),
  async bury(integrationId, userId, at) {
    let [key] = await keysOf(run, integrationId)
    if (key === undefined) {
      key = randomBytes(32).toString('base64url')
      await run.run(bury, { integrationId, userDigest: `${keyPrefix}${key}`, deletedAt: at })
    }
    await run.run(bury, { integrationId, userDigest: hmacOf(key, userId), deletedAt: at })
  },
  async burial(integrationId, userId) {
    const keys = await keysOf(run, integrationId)
    return run.one(burial, { integrationId, userDigests: [...keys.map((key) => hmacOf(key, userId)), legacyDigestOf(userId)] })
  },
})

/** Every tombstone key of the integration (normally one), oldest-made first by their text. */
const keysOf = async (run: Run, integrationId: string) =>
  (await run.all(tombstoneKeys, { integrationId })).map((row) => row.userDigest.slice(keyPrefix.length)).sort()
