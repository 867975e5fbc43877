import { sql } from 'drizzle-orm'
import { keysetWhere, rowsOf, type SqlEngine } from './sql-engine.ts'
import type { UserRecordQueries } from './store.ts'

/** What the administration reads of a chat integration's users: pages of them, and all one user has. */
export function userRecordQueries({ tables: t, all }: SqlEngine): UserRecordQueries {
  return {
    async usersPage(integrationId, window) {
      const { where, orderBy } = keysetWhere([t.users.createdAt, t.users.id], 'desc', window)
      const records = await all(
        sql`select * from ${t.users} where ${t.users.integrationId} = ${integrationId} and not ${t.users.isBot} and ${where}
            order by ${orderBy} limit ${window.limit}`,
      )
      return rowsOf(t.users, records)
    },
    async conversationsPage(integrationId, window) {
      const { where, orderBy } = keysetWhere([t.conversations.createdAt, t.conversations.id], 'desc', window)
      const records = await all(
        sql`select * from ${t.conversations} where ${t.conversations.integrationId} = ${integrationId} and ${where}
            order by ${orderBy} limit ${window.limit}`,
      )
      return rowsOf(t.conversations, records)
    },
    async conversationsOf(integrationId, userId) {
      const joined = rowsOf(
        t.conversations,
        await all(
          sql`select ${t.conversations}.* from ${t.conversations} join ${t.participants}
                on ${t.participants.integrationId} = ${t.conversations.integrationId} and ${t.participants.conversationId} = ${t.conversations.id}
              where ${t.participants.integrationId} = ${integrationId} and ${t.participants.userId} = ${userId}
              order by ${t.conversations.createdAt}, ${t.conversations.id}`,
        ),
      )
      const records = []
      for (const conversation of joined) {
        const inIt = (table: typeof t.messages | typeof t.events | typeof t.participants) =>
          sql`${table.integrationId} = ${integrationId} and ${table.conversationId} = ${conversation.id}`
        const participants = rowsOf(
          t.participants,
          await all(sql`select * from ${t.participants} where ${inIt(t.participants)} order by ${t.participants.createdAt}, ${t.participants.joinId}`),
        )
        const messages = rowsOf(
          t.messages,
          await all(sql`select * from ${t.messages} where ${inIt(t.messages)} order by ${t.messages.createdAt}, ${t.messages.id}`),
        )
        const events = rowsOf(
          t.events,
          await all(sql`select * from ${t.events} where ${inIt(t.events)} order by ${t.events.createdAt}, ${t.events.id}`),
        )
        records.push({ conversation, participantIds: participants.map((p) => p.userId), messages, events })
      }
      return records
    },
    async filesOf(integrationId, userId) {
      const records = await all(
        sql`select * from ${t.files} where ${t.files.integrationId} = ${integrationId} and ${t.files.userId} = ${userId}
            order by ${t.files.createdAt}, ${t.files.id}`,
      )
      return rowsOf(t.files, records)
    },
  }
}
