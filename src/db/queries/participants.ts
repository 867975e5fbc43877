import { and, eq } from 'drizzle-orm'
import {
  byShape,
  columnsOf,
  decodeAs,
  groupBy,
  keyset,
  limitOf,
  named,
  type On,
  query,
  rowValues,
  type Run,
  selectAs,
  unionOfPages,
  type WindowValues,
  windowValues,
} from '../query.ts'
import type { ParticipantRow, UserRow } from '../schema.ts'
import type { ParticipantEntry, ParticipantQueries } from '../store.ts'

type Membership = { integrationId: string; conversationId: string; userId: string }

const membership = ({ t: { participants } }: On, v: Membership) =>
  and(eq(participants.integrationId, v.integrationId), eq(participants.conversationId, v.conversationId), eq(participants.userId, v.userId))

const insert = query(({ db, t: { participants } }, row: ParticipantRow) =>
  db.insert(participants).values(rowValues(participants, row)).onConflictDoNothing().returning({ userId: participants.userId }),
)

const exists = query((on, v: Membership) => on.db.select({ userId: on.t.participants.userId }).from(on.t.participants).where(membership(on, v)))

const remove = query((on, v: Membership) => on.db.delete(on.t.participants).where(membership(on, v)).returning({ userId: on.t.participants.userId }))

const conversationsOf = query(({ db, t: { participants, conversations } }, v: { integrationId: string; userId: string }) =>
  db
    .select({ conversationId: participants.conversationId, ownerId: conversations.ownerId })
    .from(participants)
    .innerJoin(conversations, and(eq(conversations.integrationId, participants.integrationId), eq(conversations.id, participants.conversationId)))
    .where(and(eq(participants.integrationId, v.integrationId), eq(participants.userId, v.userId))),
)

/** A row of a page: the user, with the conversation, when and in what order it joined. */
type PageRow = UserRow & { conversationId: string; joinedAt: string; joinId: string }

/** One conversation's page of participants, in the order they joined. */
type Page = { integrationId: string; conversationId: string } & WindowValues

const pageOf = ({ db, t: { participants, users } }: On, v: Page, key: number) => {
  const page = keyset([participants.createdAt, participants.joinId], 'asc', v, key)
  return db
    .select({
      ...selectAs(columnsOf(users)),
      conversationId: named(participants.conversationId, 'conversationId'),
      joinedAt: named(participants.createdAt, 'joinedAt'),
      joinId: named(participants.joinId, 'joinId'),
    })
    .from(participants)
    .innerJoin(users, and(eq(users.integrationId, participants.integrationId), eq(users.id, participants.userId)))
    .where(and(eq(participants.integrationId, v.integrationId), eq(participants.conversationId, v.conversationId), page.where))
    .orderBy(...page.orderBy)
    .limit(limitOf(v.limit))
}

const page = query((on, v: Page, key) => pageOf(on, v, Number(key)), byShape)

const entryOf = ({ conversationId: _c, joinedAt, joinId, ...user }: PageRow): ParticipantEntry => ({ user, joinedAt, joinId })

export const participantQueries = (run: Run): ParticipantQueries => {
  const { users, participants } = run.on.t
  const decode = decodeAs<PageRow>({
    ...columnsOf(users),
    conversationId: participants.conversationId,
    joinedAt: participants.createdAt,
    joinId: participants.joinId,
  })
  return {
    insert: async (row) => (await run.one(insert, row)) !== undefined,
    exists: async (integrationId, conversationId, userId) => (await run.one(exists, { integrationId, conversationId, userId })) !== undefined,
    delete: async (integrationId, conversationId, userId) => (await run.one(remove, { integrationId, conversationId, userId })) !== undefined,
    conversationsOf: (integrationId, userId) => run.all(conversationsOf, { integrationId, userId }),
    pages: async (integrationId, conversationIds, window) => {
      if (conversationIds.length === 0) return new Map()
      const values = windowValues(window)
      let rows: PageRow[]
      if (conversationIds.length === 1) {
        rows = (await run.all(page, { integrationId, conversationId: conversationIds[0] as string, ...values })) as PageRow[]
      } else {
        const raw = await run.raw(unionOfPages(conversationIds, (conversationId) => pageOf(run.on, { integrationId, conversationId, ...values }, values.shape)))
        rows = raw.map(decode)
      }
      const groups = groupBy(conversationIds, rows, (row) => row.conversationId)
      return new Map([...groups].map(([id, group]) => [id, group.map(entryOf)]))
    },
  }
}
