import { createHash } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { fixedLimit, query, type Run } from '../query.ts'
import type { ErasureQueries, ErasureScope } from '../store.ts'

/** A deleted user's id as the tombstone keeps it: recognisable, not readable back. */
const digestOf = (userId: string) => createHash('sha256').update(userId).digest('base64url')

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
const userBotLogs = query(({ db, t: { botLogs } }, v: UserOf) =>
  db.delete(botLogs).where(and(eq(botLogs.botId, v.botId), eq(botLogs.userId, v.userId))),
)
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
  db
    .delete(botStates)
    .where(and(eq(botStates.botId, v.botId), eq(botStates.scope, 'conversation'), eq(botStates.scopeId, v.conversationId))),
)

// Through the conversation's index: the message's events are among its conversation's.
const messageBotEvents = query(({ db, t: { botEvents } }, v: { integrationId: string; conversationId: string; messageId: string }) =>
  db
    .delete(botEvents)
    .where(
      and(
        eq(botEvents.integrationId, v.integrationId),
        eq(botEvents.conversationId, v.conversationId),
        eq(botEvents.messageId, v.messageId),
      ),
    ),
)

const bury = query(({ db, t: { deletedUsers } }, v: { integrationId: string; userDigest: string; deletedAt: string }) =>
  db.insert(deletedUsers).values(v).onConflictDoNothing(),
)

const burial = query(({ db, t: { deletedUsers } }, v: { integrationId: string; userDigest: string }) =>
  db
    .select({ deletedAt: deletedUsers.deletedAt })
    .from(deletedUsers)
    .where(and(eq(deletedUsers.integrationId, v.integrationId), eq(deletedUsers.userDigest, v.userDigest)))
    .limit(fixedLimit(1)),
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
  bury: (integrationId, userId, at) => run.run(bury, { integrationId, userDigest: digestOf(userId), deletedAt: at }),
  burial: (integrationId, userId) => run.one(burial, { integrationId, userDigest: digestOf(userId) }),
})
