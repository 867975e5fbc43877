import { createHash } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { rowsOf, type SqlEngine } from './sql-engine.ts'
import type { ErasureQueries } from './store.ts'

/** A deleted user's id as the tombstone keeps it: recognisable, not readable back. */
const digestOf = (userId: string) => createHash('sha256').update(userId).digest('base64url')

/*
 * The rows of bot events, bot logs, deliveries and states name users and conversations without a
 * foreign key (an event may have neither, a log line outlives a delivery): deleting a user or a
 * conversation deletes them here, in the same unit as the rows the foreign keys take along.
 */
export function erasureQueries({ tables: t, all, run }: SqlEngine): ErasureQueries {
  return {
    async ownedConversations(integrationId, userId) {
      const records = await all(
        sql`select ${t.conversations.id} as id from ${t.conversations}
            where ${t.conversations.integrationId} = ${integrationId} and ${t.conversations.ownerId} = ${userId}`,
      )
      return records.map((record) => String(record.id))
    },
    async userTraces({ integrationId, botId }, userId) {
      await run(sql`delete from ${t.botEvents} where ${t.botEvents.integrationId} = ${integrationId} and ${t.botEvents.userId} = ${userId}`)
      await run(sql`delete from ${t.botLogs} where ${t.botLogs.botId} = ${botId} and ${t.botLogs.userId} = ${userId}`)
      await run(
        sql`delete from ${t.botDeliveries} where ${t.botDeliveries.integrationId} = ${integrationId} and ${t.botDeliveries.userId} = ${userId}`,
      )
      await run(
        sql`delete from ${t.botStates} where ${t.botStates.botId} = ${botId} and ${t.botStates.scope} = 'user' and ${t.botStates.scopeId} = ${userId}`,
      )
    },
    async conversationTraces({ integrationId, botId }, conversationId) {
      await run(
        sql`delete from ${t.botEvents} where ${t.botEvents.integrationId} = ${integrationId} and ${t.botEvents.conversationId} = ${conversationId}`,
      )
      await run(sql`delete from ${t.botLogs} where ${t.botLogs.botId} = ${botId} and ${t.botLogs.conversationId} = ${conversationId}`)
      await run(
        sql`delete from ${t.botStates} where ${t.botStates.botId} = ${botId} and ${t.botStates.scope} = 'conversation' and ${t.botStates.scopeId} = ${conversationId}`,
      )
    },
    async messageTraces(integrationId, conversationId, messageId) {
      // Through the conversation's index: the message's events are among its conversation's.
      await run(
        sql`delete from ${t.botEvents} where ${t.botEvents.integrationId} = ${integrationId}
            and ${t.botEvents.conversationId} = ${conversationId} and ${t.botEvents.messageId} = ${messageId}`,
      )
    },
    async bury(integrationId, userId, at) {
      const digest = digestOf(userId)
      await run(
        sql`insert into ${t.deletedUsers} (${sql.identifier('integration_id')}, ${sql.identifier('user_digest')}, ${sql.identifier('deleted_at')})
            values (${integrationId}, ${digest}, ${at}) on conflict do nothing`,
      )
    },
    async burial(integrationId, userId) {
      const records = await all(
        sql`select * from ${t.deletedUsers} where ${t.deletedUsers.integrationId} = ${integrationId} and ${t.deletedUsers.userDigest} = ${digestOf(userId)}`,
      )
      const [row] = rowsOf(t.deletedUsers, records)
      return row && { deletedAt: row.deletedAt }
    },
  }
}
