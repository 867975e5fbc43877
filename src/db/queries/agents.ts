import { and, asc, eq, inArray } from 'drizzle-orm'
import { limitOf, query, type Run, rowValues } from '../query.ts'
import type { AgentRow, ConversationNoteRow } from '../schema.ts'
import type { AgentQueries, ConversationNoteQueries } from '../store.ts'

const insert = query(({ db, t: { agents } }, row: AgentRow) => db.insert(agents).values(rowValues(agents, row)))

const byHash = query(({ db, t: { agents } }, v: { keyHash: string }) => db.select().from(agents).where(eq(agents.keyHash, v.keyHash)))

const find = query(({ db, t: { agents } }, v: { workspaceId: string; id: string }) =>
  db
    .select()
    .from(agents)
    .where(and(eq(agents.workspaceId, v.workspaceId), eq(agents.id, v.id))),
)

const list = query(({ db, t: { agents } }, v: { workspaceId: string; limit: number }) =>
  db.select().from(agents).where(eq(agents.workspaceId, v.workspaceId)).orderBy(asc(agents.createdAt), asc(agents.id)).limit(limitOf(v.limit)),
)

const remove = query(({ db, t: { agents } }, v: { workspaceId: string; id: string }) =>
  db
    .delete(agents)
    .where(and(eq(agents.workspaceId, v.workspaceId), eq(agents.id, v.id)))
    .returning({ id: agents.id }),
)

// The agent's user in each chat integration of the workspace's bots.
const renameUsers = query(({ db, t: { users, chatIntegrations: i, bots: b } }, v: { workspaceId: string; userId: string; name: string; at: string }) =>
  db
    .update(users)
    .set({ name: v.name, pictureUrl: null, profile: null, updatedAt: v.at })
    .where(
      and(
        eq(users.id, v.userId),
        inArray(users.integrationId, db.select({ id: i.id }).from(i).innerJoin(b, eq(b.id, i.botId)).where(eq(b.workspaceId, v.workspaceId))),
      ),
    ),
)

export const agentQueries = (run: Run): AgentQueries => ({
  insert: (row) => run.run(insert, row),
  byHash: (keyHash) => run.one(byHash, { keyHash }),
  find: (workspaceId, id) => run.one(find, { workspaceId, id }),
  list: (workspaceId, limit) => run.all(list, { workspaceId, limit }),
  delete: async (workspaceId, id) => (await run.one(remove, { workspaceId, id })) !== undefined,
  renameUsers: (workspaceId, userId, name, at) => run.run(renameUsers, { workspaceId, userId, name, at }),
})

const insertNote = query(({ db, t: { conversationNotes } }, row: ConversationNoteRow) => db.insert(conversationNotes).values(rowValues(conversationNotes, row)))

const notesOf = query(({ db, t: { conversationNotes: n } }, v: { integrationId: string; conversationId: string; limit: number }) =>
  db
    .select()
    .from(n)
    .where(and(eq(n.integrationId, v.integrationId), eq(n.conversationId, v.conversationId)))
    .orderBy(asc(n.createdAt), asc(n.id))
    .limit(limitOf(v.limit)),
)

export const conversationNoteQueries = (run: Run): ConversationNoteQueries => ({
  insert: (row) => run.run(insertNote, row),
  ofConversation: (integrationId, conversationId, limit) => run.all(notesOf, { integrationId, conversationId, limit }),
})
