import DataLoader from 'dataloader'
import type { ConversationRow, MessageRow, UserRow } from '../db/schema.ts'
import type { KeysetWindow, Participation, Queries } from '../db/store.ts'
import type { ChatLoaders, PageKey, Participant } from './chat-loaders.ts'
import type { ChatContext } from './context.ts'
import { notFound } from './errors.ts'
import { nonParticipant } from './non-participant.ts'
import { type Cursored, encodeCursor, keysetWindow, type PageWindow, withCursors } from './paging.ts'
import { rememberCaller, requireCaller, requireCallerId } from './users.ts'

/*
 * Batched reads for nested GraphQL fields: whatever a request asks of many conversations at once
 * (their participants, their last messages, the authors of those) costs a fixed number of SQL
 * statements, however many conversations there are. Loaders live for one request and read
 * committed data (never inside a unit of work).
 */

/** A participant found is the caller; when the caller participates nowhere, it may not exist at all (401). */
async function knowCaller(ctx: ChatContext, q: Queries, found: readonly Participation[]): Promise<void> {
  const caller = found.find((p) => p.participant)?.participant
  if (caller) rememberCaller(ctx, caller)
  else await requireCaller(ctx, q)
}

/**
 * A window as a key: unambiguous whatever its tokens hold (each length-prefixed). JSON.stringify of
 * the key, made two or three times per page request, was a percent of a REST page's CPU.
 */
const windowKey = ({ after, before, limit, inverted }: PageWindow): string =>
  `${limit}${inverted ? 'i' : 'n'}${after === undefined ? '-' : `${after.length}:${after}`}${before === undefined ? '-' : `${before.length}:${before}`}`

const pageKey = ({ conversationId, window }: PageKey): string => `${conversationId.length}:${conversationId}${windowKey(window)}`

/** Groups page keys that ask for the same window, so that each group is one query. */
function byWindow(keys: readonly PageKey[]): Map<string, { window: PageWindow; ids: string[] }> {
  const groups = new Map<string, { window: PageWindow; ids: string[] }>()
  for (const { conversationId, window } of keys) {
    const id = windowKey(window)
    const group = groups.get(id) ?? { window, ids: [] }
    group.ids.push(conversationId)
    groups.set(id, group)
  }
  return groups
}

/** The storage API takes a batch of at most this many conversations' pages in one statement. */
const maxBatchSize = 200

/** A page loader: one storage query per group of keys asking for the same window. */
function pageLoader<T>(
  sort: string,
  pages: (ids: string[], window: KeysetWindow) => Promise<Map<string, Cursored<T>[]>>,
): DataLoader<PageKey, Cursored<T>[], string> {
  return new DataLoader<PageKey, Cursored<T>[], string>(
    async (keys) => {
      const found = new Map<string, Cursored<T>[]>()
      for (const { window, ids } of byWindow(keys).values()) {
        for (const [id, page] of await pages(ids, keysetWindow(sort, window))) {
          found.set(pageKey({ conversationId: id, window }), page)
        }
      }
      return keys.map((key) => found.get(pageKey(key)) ?? [])
    },
    { cacheKeyFn: pageKey, maxBatchSize },
  )
}

/** Messages list newest first, participants in the order they joined. */
const messagesSort = 'messages'
const participantsSort = 'participants'

const cursoredMessages = (rows: MessageRow[]) => withCursors(messagesSort, rows, (m) => [m.createdAt, m.id])

function createLoaders(ctx: ChatContext): ChatLoaders {
  const integrationId = ctx.integration.id
  const { store } = ctx

  const user = new DataLoader<string, UserRow | undefined>(async (ids) => {
    const rows = await store.read((q) => q.users.findMany(integrationId, ids))
    const byId = new Map(rows.map((row) => [row.id, row]))
    return ids.map((id) => byId.get(id))
  })

  const participation = new DataLoader<string, Participation>(async (ids) => {
    const callerId = requireCallerId(ctx)
    return store.read(async (q) => {
      const found = await q.conversations.participations(integrationId, ids, callerId)
      await knowCaller(ctx, q, [...found.values()])
      return ids.map((id) => found.get(id) ?? { conversation: undefined, participant: undefined })
    })
  })

  const participants = pageLoader<Participant>(participantsSort, (ids, window) =>
    store.read(async (q) => {
      const pages = await q.participants.pages(integrationId, ids, window)
      return new Map(
        [...pages].map(([id, entries]) => [
          id,
          entries.map(({ user, joinedAt, joinId }) => ({ ...user, joinedAt, cursor: encodeCursor(participantsSort, [joinedAt, joinId]) })),
        ]),
      )
    }),
  )

  const messages = pageLoader<MessageRow>(messagesSort, (ids, window) =>
    store.read(async (q) => {
      const pages = await q.messages.pages(integrationId, ids, window)
      return new Map([...pages].map(([id, rows]) => [id, cursoredMessages(rows)]))
    }),
  )

  return { user, participation, participants, messages }
}

export const loadersOf = (ctx: ChatContext): ChatLoaders => (ctx.memo.loaders ??= createLoaders(ctx))

/** The batched gate of conversation-scoped reads: 401 for no caller, 404 for no conversation, NON_PARTICIPANT_STATUS for a non-participant. */
export async function loadParticipation(ctx: ChatContext, conversationId: string): Promise<{ conversation: ConversationRow; caller: UserRow }> {
  return gate(ctx, conversationId, await loadersOf(ctx).participation.load(conversationId))
}

/**
 * loadParticipation, with the page of messages `window` asks for read in the same statement (a REST
 * list's gate and page: one round trip where they were two) and kept for loadMessagesPage. A window
 * whose cursor is not one this list issued is left to loadMessagesPage, which refuses it after the gate.
 */
export async function loadParticipationWithMessages(
  ctx: ChatContext,
  conversationId: string,
  window: PageWindow,
): Promise<{ conversation: ConversationRow; caller: UserRow }> {
  let keyset: KeysetWindow
  try {
    keyset = keysetWindow(messagesSort, window)
  } catch {
    return loadParticipation(ctx, conversationId)
  }
  const callerId = requireCallerId(ctx)
  const { participation, page } = await ctx.store.read(async (q) => {
    const found = await q.conversations.participationWithPage(ctx.integration.id, conversationId, callerId, keyset)
    await knowCaller(ctx, q, [found.participation])
    return found
  })
  const loaders = loadersOf(ctx)
  loaders.participation.prime(conversationId, participation)
  if (participation.participant) loaders.messages.prime({ conversationId, window }, cursoredMessages(page))
  return gate(ctx, conversationId, participation)
}

function gate(ctx: ChatContext, conversationId: string, { conversation, participant }: Participation) {
  if (!conversation) throw notFound('Conversation', conversationId)
  if (!participant) throw nonParticipant(ctx, conversationId)
  return { conversation, caller: participant }
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
