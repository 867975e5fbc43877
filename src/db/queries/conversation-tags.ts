import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm'
import { limitOf, query, type Run } from '../query.ts'
import type { ConversationTagRow } from '../schema.ts'
import type { ConversationTagQueries } from '../store.ts'
import { idsKey } from './users.ts'

/* The tags a bot sets on conversations (the bot API's updateConversation), and their values across them (listTagValues). */

const ofConversations = query(
  ({ db, t: { conversationTags } }, v: { integrationId: string; conversationIds: string[] }) =>
    db
      .select()
      .from(conversationTags)
      .where(and(eq(conversationTags.integrationId, v.integrationId), inArray(conversationTags.conversationId, v.conversationIds))),
  (v) => idsKey(v.conversationIds),
)

const set = query(({ db, t: { conversationTags } }, row: ConversationTagRow) =>
  db
    .insert(conversationTags)
    .values(row)
    .onConflictDoUpdate({
      target: [conversationTags.integrationId, conversationTags.conversationId, conversationTags.key],
      set: { value: sql`excluded.value` },
    }),
)

const remove = query(({ db, t: { conversationTags } }, v: { integrationId: string; conversationId: string; key: string }) =>
  db
    .delete(conversationTags)
    .where(and(eq(conversationTags.integrationId, v.integrationId), eq(conversationTags.conversationId, v.conversationId), eq(conversationTags.key, v.key))),
)

// Distinct values walk the (integration, key, value) index in order: a page starts past the last value of the one before.
const values = query(
  ({ db, t: { conversationTags } }, v: { integrationId: string; key: string; after?: string; limit: number }, key) =>
    db
      .selectDistinct({ value: conversationTags.value })
      .from(conversationTags)
      .where(
        and(
          eq(conversationTags.integrationId, v.integrationId),
          eq(conversationTags.key, v.key),
          key === 1 ? gt(conversationTags.value, v.after as string) : undefined,
        ),
      )
      .orderBy(asc(conversationTags.value))
      .limit(limitOf(v.limit)),
  (v) => (v.after === undefined ? 0 : 1),
)

export const conversationTagQueries = (run: Run): ConversationTagQueries => ({
  ofConversations: (integrationId, conversationIds) =>
    conversationIds.length === 0 ? Promise.resolve([]) : run.all(ofConversations, { integrationId, conversationIds: [...conversationIds] }),
  set: (row) => run.run(set, row),
  remove: (integrationId, conversationId, key) => run.run(remove, { integrationId, conversationId, key }),
  values: async (integrationId, key, after, limit) => (await run.all(values, { integrationId, key, after, limit })).map((row) => row.value),
})
