import DataLoader from 'dataloader'
import { and, eq, inArray, type SQLWrapper, sql } from 'drizzle-orm'
import { type ConversationRow, conversations, type MessageRow, messages, participants, type UserRow, users } from '../db/schema.ts'
import type { ChatContext } from './context.ts'
import { forbidden, notFound } from './errors.ts'
import { type Cursored, keyset, type PageWindow, type SortDirection, withCursors } from './paging.ts'
import { requireCaller } from './users.ts'

/*
 * Batched reads for nested GraphQL fields: whatever a request asks of many conversations at once
 * (their participants, their last messages, the authors of those) costs a fixed number of SQL
 * statements, however many conversations there are. Loaders live for one request.
 */

interface PageKey {
  conversationId: string
  window: PageWindow
}

interface Participation {
  conversation: ConversationRow | undefined
  participates: boolean
}

export interface ChatLoaders {
  user: DataLoader<string, UserRow | undefined>
  participation: DataLoader<string, Participation>
  participants: DataLoader<PageKey, Cursored<UserRow>[], string>
  messages: DataLoader<PageKey, Cursored<MessageRow>[], string>
}

const loaders = new WeakMap<ChatContext, ChatLoaders>()

const pageKey = (key: PageKey) => JSON.stringify([key.conversationId, key.window])

/** Groups page keys that ask for the same window, so that each group is one ranked query. */
function byWindow(keys: readonly PageKey[]): Map<string, { window: PageWindow; ids: string[] }> {
  const groups = new Map<string, { window: PageWindow; ids: string[] }>()
  for (const { conversationId, window } of keys) {
    const id = JSON.stringify(window)
    const group = groups.get(id) ?? { window, ids: [] }
    group.ids.push(conversationId)
    groups.set(id, group)
  }
  return groups
}

/*
 * Many conversations' pages in one statement: a UNION ALL of one keyset query per conversation,
 * each walking its index to its LIMIT, so a page costs the same however long the conversation is.
 * (SQLite allows 500 terms in a compound select; batches stay below that.)
 */
const maxBatchSize = 200

const unionOfPages = (ids: string[], pageOf: (conversationId: string) => SQLWrapper) =>
  sql.join(
    ids.map((id) => sql`select * from (${pageOf(id)})`),
    sql` union all `,
  )

/** A column under the name a raw row should carry it by. */
const named = (column: SQLWrapper, name: string) => sql`${column}`.as(name)

/** A participant row as the page query returns it (SQLite has no booleans: is_bot comes back 0/1). */
interface ParticipantRecord extends Omit<UserRow, 'isBot'> {
  isBot: number
  conversationId: string
  joinedAt: string
  joinId: string
}

/** A messages row as SQLite returns it to a raw query. */
interface MessageRecord {
  integration_id: string
  id: string
  conversation_id: string
  user_id: string
  payload: string
  metadata: string | null
  created_at: string
}

function createLoaders(ctx: ChatContext): ChatLoaders {
  const integrationId = ctx.integration.id

  const user = new DataLoader<string, UserRow | undefined>(async (ids) => {
    const rows = ctx.db
      .select()
      .from(users)
      .where(and(eq(users.integrationId, integrationId), inArray(users.id, [...ids])))
      .all()
    const byId = new Map(rows.map((row) => [row.id, row]))
    return ids.map((id) => byId.get(id))
  })

  const participation = new DataLoader<string, Participation>(async (ids) => {
    const caller = requireCaller(ctx)
    const rows = ctx.db
      .select({ conversation: conversations, participant: participants.userId })
      .from(conversations)
      .leftJoin(
        participants,
        and(
          eq(participants.integrationId, conversations.integrationId),
          eq(participants.conversationId, conversations.id),
          eq(participants.userId, caller.id),
        ),
      )
      .where(and(eq(conversations.integrationId, integrationId), inArray(conversations.id, [...ids])))
      .all()
    const byId = new Map(rows.map((row) => [row.conversation.id, row]))
    return ids.map((id) => {
      const row = byId.get(id)
      return { conversation: row?.conversation, participates: row?.participant != null }
    })
  })

  const participantPages = new DataLoader<PageKey, Cursored<UserRow>[], string>(
    async (keys) => {
      const pages = new Map<string, Cursored<UserRow>[]>()
      for (const { window, ids } of byWindow(keys).values()) {
        const page = keyset('participants', [participants.createdAt, participants.joinId], window)
        const rows = ctx.db.all<ParticipantRecord>(
          unionOfPages(ids, (conversationId) =>
            ctx.db
              .select({
                integrationId: named(users.integrationId, 'integrationId'),
                id: named(users.id, 'id'),
                name: named(users.name, 'name'),
                pictureUrl: named(users.pictureUrl, 'pictureUrl'),
                profile: named(users.profile, 'profile'),
                isBot: named(users.isBot, 'isBot'),
                createdAt: named(users.createdAt, 'createdAt'),
                updatedAt: named(users.updatedAt, 'updatedAt'),
                conversationId: named(participants.conversationId, 'conversationId'),
                joinedAt: named(participants.createdAt, 'joinedAt'),
                joinId: named(participants.joinId, 'joinId'),
              })
              .from(participants)
              .innerJoin(users, and(eq(users.integrationId, participants.integrationId), eq(users.id, participants.userId)))
              .where(
                and(
                  eq(participants.integrationId, integrationId),
                  eq(participants.conversationId, conversationId),
                  page.where,
                ),
              )
              .orderBy(...page.orderBy)
              .limit(window.limit),
          ),
        )
        for (const id of ids) {
          const mine = rows.filter((row) => row.conversationId === id)
          pages.set(
            pageKey({ conversationId: id, window }),
            withCursors('participants', mine, (r) => [r.joinedAt, r.joinId]).map(
              ({ conversationId: _c, joinedAt: _j, joinId: _i, isBot, ...user }) => ({ ...user, isBot: Boolean(isBot) }),
            ),
          )
        }
      }
      return keys.map((key) => pages.get(pageKey(key)) ?? [])
    },
    { cacheKeyFn: pageKey, maxBatchSize },
  )

  const messagePages = new DataLoader<PageKey, Cursored<MessageRow>[], string>(
    async (keys) => {
      const pages = new Map<string, Cursored<MessageRow>[]>()
      for (const { window, ids } of byWindow(keys).values()) {
        const page = keyset('messages', [messages.createdAt, messages.id], window, messagesOrder)
        const rows = ctx.db.all<MessageRecord>(
          unionOfPages(ids, (conversationId) =>
            ctx.db
              .select()
              .from(messages)
              .where(
                and(eq(messages.integrationId, integrationId), eq(messages.conversationId, conversationId), page.where),
              )
              .orderBy(...page.orderBy)
              .limit(window.limit),
          ),
        )
        for (const id of ids) {
          const mine = rows
            .filter((row) => row.conversation_id === id)
            .map(
              (row): MessageRow => ({
                integrationId: row.integration_id,
                id: row.id,
                conversationId: row.conversation_id,
                userId: row.user_id,
                payload: JSON.parse(row.payload) as Record<string, unknown>,
                metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
                createdAt: row.created_at,
              }),
            )
          pages.set(pageKey({ conversationId: id, window }), withCursors('messages', mine, (m) => [m.createdAt, m.id]))
        }
      }
      return keys.map((key) => pages.get(pageKey(key)) ?? [])
    },
    { cacheKeyFn: pageKey, maxBatchSize },
  )

  return { user, participation, participants: participantPages, messages: messagePages }
}

/** Messages list newest first. */
export const messagesOrder: SortDirection = 'desc'

export function loadersOf(ctx: ChatContext): ChatLoaders {
  let mine = loaders.get(ctx)
  if (!mine) {
    mine = createLoaders(ctx)
    loaders.set(ctx, mine)
  }
  return mine
}

/** The batched form of requireParticipation: 404 for no conversation, 403 for a non-participant. */
export async function loadParticipation(ctx: ChatContext, conversationId: string): Promise<ConversationRow> {
  const { conversation, participates } = await loadersOf(ctx).participation.load(conversationId)
  if (!conversation) throw notFound('Conversation', conversationId)
  if (!participates) throw forbidden(`the caller is not a participant of conversation "${conversationId}"`)
  return conversation
}

export async function loadUser(ctx: ChatContext, id: string): Promise<UserRow> {
  const user = await loadersOf(ctx).user.load(id)
  if (!user) throw notFound('User', id)
  return user
}

export async function loadParticipantsPage(ctx: ChatContext, conversationId: string, window: PageWindow) {
  await loadParticipation(ctx, conversationId)
  return loadersOf(ctx).participants.load({ conversationId, window })
}

export async function loadMessagesPage(ctx: ChatContext, conversationId: string, window: PageWindow) {
  await loadParticipation(ctx, conversationId)
  return loadersOf(ctx).messages.load({ conversationId, window })
}
