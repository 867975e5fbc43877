import DataLoader from 'dataloader'
import { and, eq, inArray, lte, type SQL, sql } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
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

/** `row_number()` over each conversation's rows in the window's order: the top `limit` per conversation. */
const rankWithin = (partition: SQLiteColumn, orderBy: SQL[]) =>
  sql<number>`row_number() over (partition by ${partition} order by ${sql.join(orderBy, sql`, `)})`.as('rank')

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
        const ranked = ctx.db
          .select({
            integrationId: users.integrationId,
            id: users.id,
            name: users.name,
            pictureUrl: users.pictureUrl,
            profile: users.profile,
            isBot: users.isBot,
            createdAt: users.createdAt,
            updatedAt: users.updatedAt,
            conversationId: participants.conversationId,
            joinedAt: sql<string>`${participants.createdAt}`.as('joined_at'),
            joinId: participants.joinId,
            rank: rankWithin(participants.conversationId, page.orderBy),
          })
          .from(participants)
          .innerJoin(users, and(eq(users.integrationId, participants.integrationId), eq(users.id, participants.userId)))
          .where(and(eq(participants.integrationId, integrationId), inArray(participants.conversationId, ids), page.where))
          .as('ranked')
        const rows = ctx.db.select().from(ranked).where(lte(ranked.rank, window.limit)).orderBy(sql`${ranked.rank}`).all()
        for (const id of ids) {
          const mine = rows.filter((row) => row.conversationId === id)
          const cursored = withCursors('participants', mine, (r) => [r.joinedAt, r.joinId])
          pages.set(
            pageKey({ conversationId: id, window }),
            cursored.map(({ conversationId: _c, joinedAt: _j, joinId: _i, rank: _r, ...user }) => user),
          )
        }
      }
      return keys.map((key) => pages.get(pageKey(key)) ?? [])
    },
    { cacheKeyFn: pageKey },
  )

  const messagePages = new DataLoader<PageKey, Cursored<MessageRow>[], string>(
    async (keys) => {
      const pages = new Map<string, Cursored<MessageRow>[]>()
      for (const { window, ids } of byWindow(keys).values()) {
        const page = keyset('messages', [messages.createdAt, messages.id], window, messagesOrder)
        const ranked = ctx.db
          .select({
            integrationId: messages.integrationId,
            id: messages.id,
            conversationId: messages.conversationId,
            userId: messages.userId,
            payload: messages.payload,
            metadata: messages.metadata,
            createdAt: messages.createdAt,
            rank: rankWithin(messages.conversationId, page.orderBy),
          })
          .from(messages)
          .where(and(eq(messages.integrationId, integrationId), inArray(messages.conversationId, ids), page.where))
          .as('ranked')
        const rows = ctx.db.select().from(ranked).where(lte(ranked.rank, window.limit)).orderBy(sql`${ranked.rank}`).all()
        for (const id of ids) {
          const mine = rows.filter((row) => row.conversationId === id).map(({ rank: _r, ...message }) => message)
          pages.set(pageKey({ conversationId: id, window }), withCursors('messages', mine, (m) => [m.createdAt, m.id]))
        }
      }
      return keys.map((key) => pages.get(pageKey(key)) ?? [])
    },
    { cacheKeyFn: pageKey },
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
