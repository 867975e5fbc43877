import { eq, getTableColumns, type SQL, sql, type Table } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import { byShape, keyset, limitOf, type On, query, type Run, type WindowValues, windowValues } from '../query.ts'
import type { ConversationRow, MessageRow, UserRow } from '../schema.ts'
import type { ConversationQueries, KeysetWindow, MessageQueries, Participation, ParticipationWithPage } from '../store.ts'
import { participationOf } from './conversations.ts'
import { messagesPageOf, pageIds } from './messages.ts'

/**
 * `conversations.participationWithPage` as two statements, the participation then the page, in
 * the caller's read (SQLite, where a statement is a call; PostgreSQL reads both in one:
 * participationAndPageInOne, below).
 */
export const participationThenPage = (
  conversations: Omit<ConversationQueries, 'participationWithPage'>,
  messages: MessageQueries,
): Pick<ConversationQueries, 'participationWithPage'> => ({
  participationWithPage: async (integrationId, conversationId, userId, window) => {
    const participation = await conversations.participation(integrationId, conversationId, userId)
    if (!participation.participant) return { participation, page: [] }
    const pages = await messages.pages(integrationId, [conversationId], window)
    return { participation, page: pages.get(conversationId) ?? [] }
  },
})

/*
 * A REST list of messages reads its gate (is the caller a participant?) and then its page: two
 * statements, two round trips on PostgreSQL. Here they are one: a left join of the page (a subquery
 * that walks the conversation's index to its LIMIT, as a page alone does) on the participant found,
 * so that the page's rows come only where the caller participates. The participation's columns are
 * read on one row of the join, null on the others: on each of them they cost as much to decode as
 * the round trip saved. PostgreSQL runs it (src/db/postgres/queries.ts); SQLite runs the two
 * statements (participationThenPage, above): it has no round trip to save.
 */

type PageOfParticipant = { integrationId: string; conversationId: string; userId: string } & WindowValues

/** The statement, with columns read beside (PostgreSQL's integration version: src/db/postgres/queries.ts). */
function participationWithPageOf(on: On, v: PageOfParticipant, key: number, beside: Record<string, SQL> = {}) {
  const { where, orderBy } = messagesPageOf(on, v, key)
  const page = on.db
    .select(pageIds.selected<Record<string, SQLiteColumn>>(on.t))
    .from(on.t.messages)
    .where(where)
    .orderBy(...orderBy)
    .limit(limitOf(v.limit))
    .as('page')
  const columns = page as unknown as Record<string, SQLiteColumn>
  const message = Object.fromEntries(Object.keys(pageIds.selected(on.t)).map((name) => [name, columns[name] as SQLiteColumn]))
  // A joined object among the columns beside (their type names expressions only).
  return participationOf(on, v, (id) => eq(id, v.conversationId), { ...beside, message } as unknown as Record<string, SQL>, onFirstRow)
    .leftJoin(page, sql`${on.t.participants.userId} is not null`)
    .orderBy(...keyset([columns.createdAt as SQLiteColumn, columns.id as SQLiteColumn], 'desc', v, key).orderBy)
}

/** A table's columns, each read on the join's first row only (the row it makes first, whatever its place in the order). */
const onFirstRow = (table: Table): Record<string, SQL> =>
  Object.fromEntries(
    Object.entries(getTableColumns(table)).map(([name, column]) => [name, sql`case when row_number() over () = 1 then ${column} end`.mapWith(column)]),
  )

/**
 * Its rows (none when the conversation does not exist): the participation's columns on one of them
 * (each column null on the others; the participant's all null when the caller does not
 * participate), a message on each but when the page is empty.
 */
type ParticipationPageRow = {
  conversation: Nullable<ConversationRow>
  participant: Nullable<UserRow>
  message: Record<string, unknown> | null
}

type Nullable<T> = { [K in keyof T]: T[K] | null }

/** The participation and the page its rows hold, each message made whole from the call's ids. */
function participationAndPage(on: On, rows: readonly ParticipationPageRow[], v: PageOfParticipant): ParticipationWithPage {
  const page: MessageRow[] = []
  let participation: Participation = { conversation: undefined, participant: undefined }
  for (const { conversation, participant, message } of rows) {
    if (message) page.push(pageIds.whole(on.t, message, v) as MessageRow)
    if (conversation.id !== null) {
      participation = { conversation: conversation as ConversationRow, participant: participant.id === null ? undefined : (participant as UserRow) }
    }
  }
  return { participation, page }
}

/** The statement, with the columns `beside` names read on its rows too (PostgreSQL's integration version). */
export const participationWithPage = (beside?: (on: On, v: PageOfParticipant) => Record<string, SQL>) =>
  query((on, v: PageOfParticipant, key) => participationWithPageOf(on, v, Number(key), beside?.(on, v)), byShape)

const alone = participationWithPage()

/** `conversations.participationWithPage` in one statement (`shape`: participationWithPage's), with what `more` reads of its first row (the columns read beside). */
export const participationAndPageInOne =
  <M extends object>(run: Run, shape = alone, more: (first: Record<string, unknown> | undefined) => M = () => ({}) as M) =>
  async (integrationId: string, conversationId: string, userId: string, window: KeysetWindow): Promise<ParticipationWithPage & M> => {
    const values: PageOfParticipant = { integrationId, conversationId, userId, ...windowValues(window) }
    const rows = (await run.all(shape, values)) as ParticipationPageRow[]
    return { ...participationAndPage(run.on, rows, values), ...more(rows[0]) }
  }
