import { and, eq, isNull, sql } from 'drizzle-orm'
import { type On, query, rowValues, type Run } from '../query.ts'
import type { FileRow } from '../schema.ts'
import type { FileQueries } from '../store.ts'

type Id = { integrationId: string; id: string }

const byId = ({ t: { files } }: On, v: Id) => and(eq(files.integrationId, v.integrationId), eq(files.id, v.id))

const insert = query(({ db, t: { files } }, row: FileRow) => db.insert(files).values(rowValues(files, row)))

const find = query((on, v: Id) => on.db.select().from(on.t.files).where(byId(on, v)))

const markUploaded = query((on, v: Id & { at: string }) =>
  on.db
    .update(on.t.files)
    .set({ uploadedAt: v.at })
    .where(and(byId(on, v), isNull(on.t.files.uploadedAt)))
    .returning({ id: on.t.files.id }),
)

const sizeOfUser = query(({ db, t: { files } }, v: { integrationId: string; userId: string }) =>
  db
    .select({ total: sql<number | string>`coalesce(sum(${files.size}), 0)` })
    .from(files)
    .where(and(eq(files.integrationId, v.integrationId), eq(files.userId, v.userId))),
)

const idsOfUser = query(({ db, t: { files } }, v: { integrationId: string; userId: string }) =>
  db
    .select({ id: files.id })
    .from(files)
    .where(and(eq(files.integrationId, v.integrationId), eq(files.userId, v.userId))),
)

const idsOfConversation = query(({ db, t: { files } }, v: { integrationId: string; conversationId: string }) =>
  db
    .select({ id: files.id })
    .from(files)
    .where(and(eq(files.integrationId, v.integrationId), eq(files.conversationId, v.conversationId))),
)

const idsOfIntegration = query(({ db, t: { files } }, v: { integrationId: string }) =>
  db.select({ id: files.id }).from(files).where(eq(files.integrationId, v.integrationId)),
)

const ids = (rows: { id: string }[]) => rows.map((row) => row.id)

export const fileQueries = (run: Run): FileQueries => ({
  insert: (row) => run.run(insert, row),
  find: (integrationId, id) => run.one(find, { integrationId, id }),
  markUploaded: async (integrationId, id, at) => (await run.one(markUploaded, { integrationId, id, at })) !== undefined,
  // A sum is a bigint on PostgreSQL, which node-postgres hands over as text.
  sizeOfUser: async (integrationId, userId) => Number((await run.one(sizeOfUser, { integrationId, userId }))?.total ?? 0),
  idsOfUser: async (integrationId, userId) => ids(await run.all(idsOfUser, { integrationId, userId })),
  idsOfConversation: async (integrationId, conversationId) => ids(await run.all(idsOfConversation, { integrationId, conversationId })),
  idsOfIntegration: async (integrationId) => ids(await run.all(idsOfIntegration, { integrationId })),
})
