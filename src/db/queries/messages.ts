import { and, eq, inArray } from 'drizzle-orm'
import { idsKey } from './users.ts'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import {
  byShape,
  columnsKey,
  columnsOf,
  decodeAs,
  groupBy,
  keyset,
  Given,
  limitOf,
  type On,
  query,
  queryGiven,
  type Run,
  rowValues,
  setOf,
  selectAs,
  unionOfPages,
  type WindowValues,
  windowValues,
} from '../query.ts'
import type { MessageRow } from '../schema.ts'
import type { MessageQueries } from '../store.ts'

type Id = { integrationId: string; id: string }

const byId = ({ t: { messages } }: On, v: Id) => and(eq(messages.integrationId, v.integrationId), eq(messages.id, v.id))

const insert = query(({ db, t: { messages } }, row: MessageRow) => db.insert(messages).values(rowValues(messages, row)))

const find = query((on, v: Id) => on.db.select().from(on.t.messages).where(byId(on, v)))

const findMany = query(
  (on, v: { integrationId: string; ids: string[] }) =>
    on.db
      .select()
      .from(on.t.messages)
      .where(and(eq(on.t.messages.integrationId, v.integrationId), inArray(on.t.messages.id, v.ids))),
  (v) => idsKey(v.ids),
)

const remove = query((on, v: Id) => on.db.delete(on.t.messages).where(byId(on, v)))

/** Sets some of a message's columns (payload, metadata, feedback); the message as it now is. */
const update = query(
  (on, v: Id & Partial<Pick<MessageRow, 'payload' | 'metadata' | 'feedback'>>, key) =>
    on.db
      .update(on.t.messages)
      .set(rowValues(on.t.messages, setOf(v, key)))
      .where(byId(on, v))
      .returning(),
  ({ integrationId: _i, id: _id, ...changes }) => columnsKey(changes),
)

type Page = { integrationId: string; conversationId: string } & WindowValues

/** Where one conversation's page of messages is, newest first. */
export const messagesPageOf = ({ t: { messages } }: On, v: Page, key: number) => {
  const page = keyset([messages.createdAt, messages.id], 'desc', v, key)
  return {
    where: and(eq(messages.integrationId, v.integrationId), eq(messages.conversationId, v.conversationId), page.where),
    orderBy: page.orderBy,
  }
}

/** The ids a page is asked by, which its rows leave out (see Given). */
export const pageIds = new Given((t) => columnsOf(t.messages), ['integrationId', 'conversationId'])

/** The page of one conversation (every REST list). */
const page = queryGiven<Page, MessageRow>(
  pageIds,
  (on, v, key) => {
    const { where, orderBy } = messagesPageOf(on, v, Number(key))
    return on.db
      .select(pageIds.selected<Record<string, SQLiteColumn>>(on.t))
      .from(on.t.messages)
      .where(where)
      .orderBy(...orderBy)
      .limit(limitOf(v.limit))
  },
  byShape,
)

export const messageQueries = (run: Run): MessageQueries => {
  const columns = columnsOf(run.on.t.messages)
  const decode = decodeAs<MessageRow>(columns)
  return {
    insert: (row) => run.run(insert, row),
    find: (integrationId, id) => run.one(find, { integrationId, id }),
    findMany: async (integrationId, ids) => (ids.length === 0 ? [] : run.all(findMany, { integrationId, ids: [...ids] })),
    delete: (integrationId, id) => run.run(remove, { integrationId, id }),
    updatePayload: (integrationId, id, payload) => run.one(update, { integrationId, id, payload }),
    setFeedback: (integrationId, id, feedback) => run.one(update, { integrationId, id, feedback }),
    update: (integrationId, id, { payload, metadata }) => run.one(update, { integrationId, id, payload, metadata }),
    pages: async (integrationId, conversationIds, window) => {
      if (conversationIds.length === 0) return new Map()
      const values = windowValues(window)
      if (conversationIds.length === 1) {
        const conversationId = conversationIds[0] as string
        return new Map([[conversationId, await run.all(page, { integrationId, conversationId, ...values })]])
      }
      const { db, t } = run.on
      const raw = await run.raw(
        unionOfPages(conversationIds, (conversationId) => {
          const { where, orderBy } = messagesPageOf(run.on, { integrationId, conversationId, ...values }, values.shape)
          return db
            .select(selectAs(columns))
            .from(t.messages)
            .where(where)
            .orderBy(...orderBy)
            .limit(values.limit)
        }),
      )
      return groupBy(conversationIds, raw.map(decode), (row) => row.conversationId)
    },
  }
}
