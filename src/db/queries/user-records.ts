import { and, asc, eq } from 'drizzle-orm'
import { byShape, keyset, limitOf, query, type Run, windowValues, type WindowValues } from '../query.ts'
import type { UserRecordQueries } from '../store.ts'
import { handoffRequestOf } from './handoff-requests.ts'

/** What the administration reads of a chat integration's users: pages of them, and all one user has. */

const usersPage = query(({ db, t: { users } }, v: { integrationId: string } & WindowValues, key) => {
  const page = keyset([users.createdAt, users.id], 'desc', v, key)
  return db
    .select()
    .from(users)
    .where(and(eq(users.integrationId, v.integrationId), eq(users.isBot, false), page.where))
    .orderBy(...page.orderBy)
    .limit(limitOf(v.limit))
}, byShape)

const conversationsPage = query(({ db, t: { conversations } }, v: { integrationId: string } & WindowValues, key) => {
  const page = keyset([conversations.createdAt, conversations.id], 'desc', v, key)
  return db
    .select()
    .from(conversations)
    .where(and(eq(conversations.integrationId, v.integrationId), page.where))
    .orderBy(...page.orderBy)
    .limit(limitOf(v.limit))
}, byShape)

type UserOf = { integrationId: string; userId: string }
type ConversationOf = { integrationId: string; conversationId: string }

const conversationsOf = query(({ db, t: { conversations, participants } }, v: UserOf) =>
  db
    .select({ conversation: conversations })
    .from(participants)
    .innerJoin(conversations, and(eq(conversations.integrationId, participants.integrationId), eq(conversations.id, participants.conversationId)))
    .where(and(eq(participants.integrationId, v.integrationId), eq(participants.userId, v.userId)))
    .orderBy(asc(conversations.createdAt), asc(conversations.id)),
)

const participantsIn = query(({ db, t: { participants: p } }, v: ConversationOf) =>
  db
    .select({ userId: p.userId })
    .from(p)
    .where(and(eq(p.integrationId, v.integrationId), eq(p.conversationId, v.conversationId)))
    .orderBy(asc(p.createdAt), asc(p.joinId)),
)

const messagesIn = query(({ db, t: { messages: m } }, v: ConversationOf) =>
  db
    .select()
    .from(m)
    .where(and(eq(m.integrationId, v.integrationId), eq(m.conversationId, v.conversationId)))
    .orderBy(asc(m.createdAt), asc(m.id)),
)

const eventsIn = query(({ db, t: { events: e } }, v: ConversationOf) =>
  db
    .select()
    .from(e)
    .where(and(eq(e.integrationId, v.integrationId), eq(e.conversationId, v.conversationId)))
    .orderBy(asc(e.createdAt), asc(e.id)),
)

const notesIn = query(({ db, t: { conversationNotes: n } }, v: ConversationOf) =>
  db
    .select()
    .from(n)
    .where(and(eq(n.integrationId, v.integrationId), eq(n.conversationId, v.conversationId)))
    .orderBy(asc(n.createdAt), asc(n.id)),
)

const filesOf = query(({ db, t: { files } }, v: UserOf) =>
  db
    .select()
    .from(files)
    .where(and(eq(files.integrationId, v.integrationId), eq(files.userId, v.userId)))
    .orderBy(asc(files.createdAt), asc(files.id)),
)

export const userRecordQueries = (run: Run): UserRecordQueries => ({
  usersPage: (integrationId, window) => run.all(usersPage, { integrationId, ...windowValues(window) }),
  conversationsPage: (integrationId, window) => run.all(conversationsPage, { integrationId, ...windowValues(window) }),
  async conversationsOf(integrationId, userId) {
    const records = []
    for (const { conversation } of await run.all(conversationsOf, { integrationId, userId })) {
      const of = { integrationId, conversationId: conversation.id }
      records.push({
        conversation,
        participantIds: (await run.all(participantsIn, of)).map((p) => p.userId),
        messages: await run.all(messagesIn, of),
        events: await run.all(eventsIn, of),
        notes: await run.all(notesIn, of),
        handoffRequest: await run.one(handoffRequestOf, of),
      })
    }
    return records
  },
  filesOf: (integrationId, userId) => run.all(filesOf, { integrationId, userId }),
})
