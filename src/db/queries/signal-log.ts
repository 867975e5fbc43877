import { and, asc, eq, gte, inArray } from 'drizzle-orm'
import { fixedLimit, query, type Run, rowValues } from '../query.ts'
import type { ConversationSignalRow } from '../schema.ts'
import type { SignalLogQueries } from '../store.ts'

type From = { integrationId: string; conversationId: string; from: string }

const insert = query(({ db, t: { conversationSignals } }, row: ConversationSignalRow) =>
  db.insert(conversationSignals).values(rowValues(conversationSignals, row)),
)

/** The most rows one read of the log returns (a resume asks for its cap and one more). */
export const SIGNAL_LOG_READ_MAX = 202

/** A conversation's signals from `from` on (itself included, when it is there), oldest first. */
const from = query(({ db, t: { conversationSignals: s } }, v: From) =>
  db
    .select()
    .from(s)
    .where(and(eq(s.integrationId, v.integrationId), eq(s.conversationId, v.conversationId), gte(s.id, v.from)))
    .orderBy(asc(s.id))
    .limit(fixedLimit(SIGNAL_LOG_READ_MAX)),
)

/** A conversation's messages from `from` on, created at `notBefore` or later, oldest first, with their authors' isBot (page index). */
const messagesFrom = query(({ db, t: { messages: m, users: u } }, v: From & { notBefore: string }) =>
  db
    .select({ message: m, isBot: u.isBot })
    .from(m)
    .leftJoin(u, and(eq(u.integrationId, m.integrationId), eq(u.id, m.userId)))
    .where(and(eq(m.integrationId, v.integrationId), eq(m.conversationId, v.conversationId), gte(m.createdAt, v.notBefore), gte(m.id, v.from)))
    .orderBy(asc(m.createdAt), asc(m.id))
    .limit(fixedLimit(SIGNAL_LOG_READ_MAX)),
)

const ofMessage = query(({ db, t: { conversationSignals: s } }, v: { integrationId: string; conversationId: string; messageId: string }) =>
  db.delete(s).where(and(eq(s.integrationId, v.integrationId), eq(s.conversationId, v.conversationId), eq(s.messageId, v.messageId))),
)

const participantOf = query(({ db, t: { conversationSignals: s, chatIntegrations: i, bots: b } }, v: { workspaceId: string; userId: string }) =>
  db
    .delete(s)
    .where(
      and(
        eq(s.userId, v.userId),
        eq(s.type, 'participant_added'),
        inArray(s.integrationId, db.select({ id: i.id }).from(i).innerJoin(b, eq(b.id, i.botId)).where(eq(b.workspaceId, v.workspaceId))),
      ),
    ),
)

export const signalLogQueries = (run: Run): SignalLogQueries => ({
  insert: (row) => run.run(insert, row),
  from: async (integrationId, conversationId, id, limit) =>
    (await run.all(from, { integrationId, conversationId, from: id })).slice(0, Math.min(limit, SIGNAL_LOG_READ_MAX)),
  messagesFrom: async (integrationId, conversationId, id, notBefore, limit) =>
    (await run.all(messagesFrom, { integrationId, conversationId, from: id, notBefore })).slice(0, Math.min(limit, SIGNAL_LOG_READ_MAX)).map((row) => ({
      message: row.message,
      isBot: row.isBot ?? false,
    })),
  forgetMessage: (integrationId, conversationId, messageId) => run.run(ofMessage, { integrationId, conversationId, messageId }),
  forgetParticipant: (workspaceId, userId) => run.run(participantOf, { workspaceId, userId }),
})
