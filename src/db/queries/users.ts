import { and, eq, inArray } from 'drizzle-orm'
import { alias } from 'drizzle-orm/sqlite-core'
import { columnsKey, fixedLimit, query, rowValues, type Run, setOf } from '../query.ts'
import type { UserRow } from '../schema.ts'
import type { ProfileChanges, UserQueries } from '../store.ts'

/** Lists of ids up to this long run one statement per length (a page's authors); longer ones, one per call. */
export const maxListedIds = 32

/** The key of a list of ids: its length while short; longer lists are each their own (see maxListedIds). */
export const idsKey = (ids: readonly unknown[]) => (ids.length <= maxListedIds ? ids.length : null)

const find = query(({ db, t: { users } }, v: { integrationId: string; id: string }) =>
  db
    .select()
    .from(users)
    .where(and(eq(users.integrationId, v.integrationId), eq(users.id, v.id))),
)

const findMany = query(
  ({ db, t: { users } }, v: { integrationId: string; ids: string[] }) =>
    db
      .select()
      .from(users)
      .where(and(eq(users.integrationId, v.integrationId), inArray(users.id, v.ids))),
  (v) => idsKey(v.ids),
)

const insert = query(({ db, t: { users } }, row: UserRow) => db.insert(users).values(rowValues(users, row)).onConflictDoNothing().returning())

const update = query(
  ({ db, t: { users } }, v: ProfileChanges & { integrationId: string; id: string }, key) =>
    db
      .update(users)
      .set(rowValues(users, setOf(v, key)))
      .where(and(eq(users.integrationId, v.integrationId), eq(users.id, v.id)))
      .returning(),
  ({ integrationId: _i, id: _id, ...changes }) => columnsKey(changes),
)

const remove = query(({ db, t: { users } }, v: { integrationId: string; id: string }) =>
  db.delete(users).where(and(eq(users.integrationId, v.integrationId), eq(users.id, v.id))),
)

const storedBytes = query(({ db, t: { userStorage } }, v: { integrationId: string; id: string }) =>
  db
    .select({ bytes: userStorage.bytes })
    .from(userStorage)
    .where(and(eq(userStorage.integrationId, v.integrationId), eq(userStorage.userId, v.id))),
)

const shareAConversation = query(({ db, t: { participants } }, v: { integrationId: string; userId: string; otherId: string }) => {
  const theirs = alias(participants, 'theirs')
  return db
    .select({ conversationId: participants.conversationId })
    .from(participants)
    .innerJoin(theirs, and(eq(theirs.integrationId, participants.integrationId), eq(theirs.conversationId, participants.conversationId)))
    .where(and(eq(participants.integrationId, v.integrationId), eq(participants.userId, v.userId), eq(theirs.userId, v.otherId)))
    .limit(fixedLimit(1))
})

export const userQueries = (run: Run): UserQueries => ({
  find: (integrationId, id) => run.one(find, { integrationId, id }),
  findMany: async (integrationId, ids) => (ids.length === 0 ? [] : run.all(findMany, { integrationId, ids: [...ids] })),
  insert: (row) => run.one(insert, row),
  update: (integrationId, id, changes) => run.one(update, { ...changes, integrationId, id }),
  delete: (integrationId, id) => run.run(remove, { integrationId, id }),
  storedBytes: async (integrationId, id) => Number((await run.one(storedBytes, { integrationId, id }))?.bytes ?? 0),
  shareAConversation: async (integrationId, userId, otherId) => (await run.one(shareAConversation, { integrationId, userId, otherId })) !== undefined,
})
