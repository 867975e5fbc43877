import { and, eq, isNull, sql } from 'drizzle-orm'
import { query, type Run, rowValues } from '../query.ts'
import type { HandoffRequestRow } from '../schema.ts'
import type { HandoffRequestQueries } from '../store.ts'

type Of = { integrationId: string; conversationId: string }

// A new request replaces the last one's: its description, history and time, not yet answered. Made
// for each call (key null): a kept statement binds a list item by item, and the history is one JSON value.
const put = query(
  ({ db, t: { handoffRequests: r } }, row: HandoffRequestRow) =>
    db
      .insert(r)
      .values(rowValues(r, row))
      .onConflictDoUpdate({
        target: [r.integrationId, r.conversationId],
        set: {
          description: sql`excluded.description`,
          messageHistory: sql`excluded.message_history`,
          requestedAt: sql`excluded.requested_at`,
          firstReplyAt: sql`excluded.first_reply_at`,
        },
      }),
  () => null,
)

export const handoffRequestOf = query(({ db, t: { handoffRequests: r } }, v: Of) =>
  db
    .select()
    .from(r)
    .where(and(eq(r.integrationId, v.integrationId), eq(r.conversationId, v.conversationId))),
)

const remove = query(({ db, t: { handoffRequests: r } }, v: Of) =>
  db.delete(r).where(and(eq(r.integrationId, v.integrationId), eq(r.conversationId, v.conversationId))),
)

/** The first answer only: of two replies at once (on two instances), one sets it. */
const answered = query(({ db, t: { handoffRequests: r } }, v: Of & { at: string }) =>
  db
    .update(r)
    .set({ firstReplyAt: v.at })
    .where(and(eq(r.integrationId, v.integrationId), eq(r.conversationId, v.conversationId), isNull(r.firstReplyAt)))
    .returning({ requestedAt: r.requestedAt }),
)

export const handoffRequestQueries = (run: Run): HandoffRequestQueries => ({
  put: (row) => run.run(put, row),
  find: (integrationId, conversationId) => run.one(handoffRequestOf, { integrationId, conversationId }),
  delete: (integrationId, conversationId) => run.run(remove, { integrationId, conversationId }),
  answered: async (integrationId, conversationId, at) => (await run.one(answered, { integrationId, conversationId, at }))?.requestedAt,
})
