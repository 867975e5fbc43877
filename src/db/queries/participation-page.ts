import { eq, type SQL, sql } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import { byShape, keyset, limitOf, type On, query, type Run, type WindowValues, windowValues } from '../query.ts'
import type { ConversationRow, MessageRow, UserRow } from '../schema.ts'
import type { KeysetWindow, ParticipationWithPage } from '../store.ts'
import { participationOf, toParticipation } from './conversations.ts'
import { messagesPageOf, pageIds } from './messages.ts'

/*
 * A REST list of messages reads its gate (is the caller a participant?) and then its page: two
 * statements, two round trips on PostgreSQL. Read together, the participation's columns come on
 * every row and the page's only where the caller participates: a left join of the page (a subquery
 * that walks the conversation's index to its LIMIT, as a page alone does) on the participant found.
 */

export type PageOfParticipant = { integrationId: string; conversationId: string; userId: string } & WindowValues

/** The statement, with columns read beside (PostgreSQL's integration version: src/db/postgres/integration-versions.ts). */
export function participationWithPageOf(on: On, v: PageOfParticipant, key: number, beside: Record<string, SQL> = {}) {
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
  return participationOf(on, v, (id) => eq(id, v.conversationId), { ...beside, message } as unknown as Record<string, SQL>)
    .leftJoin(page, sql`${on.t.participants.userId} is not null`)
    .orderBy(...keyset([columns.createdAt as SQLiteColumn, columns.id as SQLiteColumn], 'desc', v, key).orderBy)
}

const participationWithPage = query((on, v: PageOfParticipant, key) => participationWithPageOf(on, v, Number(key)), byShape)

/** Its rows: the participation on each (none when the conversation does not exist), a message on each but when the page is empty. */
export type ParticipationPageRow = { conversation: ConversationRow; participant: UserRow | null; message: Record<string, unknown> | null }

/** The participation and the page its rows hold, each message made whole from the call's ids. */
export function participationAndPage(on: On, rows: readonly ParticipationPageRow[], v: PageOfParticipant): ParticipationWithPage {
  const page: MessageRow[] = []
  for (const { message } of rows) if (message) page.push(pageIds.whole(on.t, message, v) as MessageRow)
  return { participation: toParticipation(rows[0]), page }
}

export const participationPageValues = (integrationId: string, conversationId: string, userId: string, window: KeysetWindow): PageOfParticipant => ({
  integrationId,
  conversationId,
  userId,
  ...windowValues(window),
})

export const participationPageQueries = (run: Run) => ({
  participationWithPage: async (integrationId: string, conversationId: string, userId: string, window: KeysetWindow) => {
    const values = participationPageValues(integrationId, conversationId, userId, window)
    return participationAndPage(run.on, (await run.all(participationWithPage, values)) as ParticipationPageRow[], values)
  },
})
