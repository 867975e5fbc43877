import { and, asc, count, eq, inArray, min } from 'drizzle-orm'
import { limitOf, query, type Run } from '../query.ts'
import type { HandoffQueries } from '../store.ts'
import type { ConversationRow } from '../schema.ts'

type Change = Pick<ConversationRow, 'integrationId' | 'id' | 'handledBy' | 'agentId' | 'handoffTitle' | 'handoffAt' | 'updatedAt'> & {
  from: ConversationRow['handledBy'][]
}

/** Who handles a conversation, changed only from one of `from`: of two agents claiming it at once, one does. */
const change = query(
  ({ db, t: { conversations } }, v: Change) =>
    db
      .update(conversations)
      .set({ handledBy: v.handledBy, agentId: v.agentId, handoffTitle: v.handoffTitle, handoffAt: v.handoffAt, updatedAt: v.updatedAt })
      .where(and(eq(conversations.integrationId, v.integrationId), eq(conversations.id, v.id), inArray(conversations.handledBy, v.from)))
      .returning(),
  (v) => v.from.join(),
)

type OfWorkspace = { workspaceId: string; handledBy: ConversationRow['handledBy']; agentId?: string; limit: number }

/** A workspace's conversations handled so (of one agent, when `agentId` is given), the longest handed off first. */
const ofWorkspace = query(
  ({ db, t: { conversations: c, chatIntegrations: i, bots: b, handoffRequests: r } }, v: OfWorkspace, key) =>
    db
      .select({ conversation: c, botId: b.id, description: r.description })
      .from(c)
      .innerJoin(i, eq(i.id, c.integrationId))
      .innerJoin(b, eq(b.id, i.botId))
      .leftJoin(r, and(eq(r.integrationId, c.integrationId), eq(r.conversationId, c.id)))
      .where(and(eq(c.handledBy, v.handledBy), eq(b.workspaceId, v.workspaceId), key === 'one' ? eq(c.agentId, v.agentId as string) : undefined))
      .orderBy(asc(c.handoffAt), asc(c.id))
      .limit(limitOf(v.limit)),
  (v) => (v.agentId === undefined ? 'all' : 'one'),
)

/** Through the handoff index: the conversations handed off (the bot's, every other one, are not read). */
const census = query(({ db, t: { conversations: c } }, _: object) =>
  db
    .select({ handledBy: c.handledBy, conversations: count(), oldestHandoffAt: min(c.handoffAt) })
    .from(c)
    .where(inArray(c.handledBy, ['waiting', 'agent', 'closed']))
    .groupBy(c.handledBy),
)

export const handoffQueries = (run: Run): HandoffQueries => ({
  change: ({ from, ...row }) => run.one(change, { ...row, from: [...from] }),
  ofWorkspace: (workspaceId, handledBy, agentId, limit) =>
    run.all(ofWorkspace, { workspaceId, handledBy, limit, ...(agentId === undefined ? {} : { agentId }) }),
  census: async () =>
    (await run.all(census, {})).map((row) => ({
      handledBy: row.handledBy,
      conversations: Number(row.conversations),
      oldestHandoffAt: row.oldestHandoffAt ?? undefined,
    })),
})
