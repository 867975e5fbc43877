import type { ConversationRow, UserRow } from '../db/schema.ts'
import type { Queries } from '../db/store.ts'
import { botHandled } from './handoff.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { alreadyExists, forbidden, notFound } from './errors.ts'
import { eraseConversation } from './erasure.ts'
import { assertClientId, newId } from './ids.ts'
import { loadParticipation, loadParticipationWithMessages } from './loaders.ts'
import { nonParticipant } from './non-participant.ts'
import { type Cursored, keysetWindow, type PageWindow, withCursors } from './paging.ts'
import { rememberCaller, requireCaller, requireCallerId } from './users.ts'

/**
 * The gate of every conversation-scoped verb, inside a unit of work or a read: 401 when the
 * caller does not exist, 404 when the conversation does not, NON_PARTICIPANT_STATUS (404 unless set)
 * when the caller is not one of its participants. One look-up on the way in; the refusals cost a second.
 */
/** Who posts a message or an event: a participant, of whom only this much is needed. */
export type Poster = Pick<UserRow, 'id' | 'isBot'>

export async function requireParticipation(ctx: ChatContext, q: Queries, conversationId: string): Promise<{ conversation: ConversationRow; caller: UserRow }> {
  const { conversation, participant } = await q.conversations.participation(ctx.integration.id, conversationId, requireCallerId(ctx))
  if (conversation && participant) {
    rememberCaller(ctx, participant)
    return { conversation, caller: participant }
  }
  // An unknown caller is 401 first.
  await requireCaller(ctx, q)
  throw conversation ? nonParticipant(ctx, conversationId) : notFound('Conversation', conversationId)
}

/** `messages`: the window of the page of its messages that will be asked next, read with it. */
export async function getConversation({ ctx, id, messages }: { ctx: ChatContext; id: string; messages?: PageWindow }): Promise<ConversationRow> {
  return (await (messages ? loadParticipationWithMessages(ctx, id, messages) : loadParticipation(ctx, id))).conversation
}

/** The caller, checked to participate in the conversation (the gate of its listeners). */
export async function requireListener({ ctx, conversationId }: { ctx: ChatContext; conversationId: string }) {
  return (await loadParticipation(ctx, conversationId)).caller
}

/** Inside a unit: a conversation the caller owns and participates in, or undefined when the id is taken. */
/** `idChosen`: the client chose the id (createConversation), which the chat integration tags `fid` (getOrCreate does not). */
async function insertConversation(ctx: ChatContext, q: Queries, id: string, idChosen = false): Promise<ConversationRow | undefined> {
  const caller = await requireCaller(ctx, q)
  const at = now()
  const integrationId = ctx.integration.id
  const inserted = await q.conversations.insert({ integrationId, id, ownerId: caller.id, createdAt: at, updatedAt: at, idChosen, ...botHandled })
  if (inserted) {
    await q.participants.insert({ integrationId, conversationId: id, userId: caller.id, joinId: newId(), createdAt: at })
  }
  return inserted
}

/** The caller creates, owns and is the first participant of the conversation. */
export function createConversation({ ctx, input }: { ctx: ChatContext; input: { id?: string | null } }): Promise<ConversationRow> {
  return ctx.store.write(async (q) => {
    await requireCaller(ctx, q)
    const id = input.id == null ? newId() : assertClientId(input.id, 'conversation id')
    const inserted = await insertConversation(ctx, q, id, input.id != null)
    if (!inserted) throw alreadyExists('Conversation', id)
    return inserted
  })
}

/** The conversation with this id if the caller participates in it, else a new one the caller owns. */
export async function getOrCreateConversation({ ctx, input }: { ctx: ChatContext; input: { id: string } }): Promise<ConversationRow> {
  const id = assertClientId(input.id, 'conversation id')
  const existing = await ctx.store.read((q) => q.conversations.find(ctx.integration.id, id))
  if (existing) return getConversation({ ctx, id })
  // Created by a concurrent call since the look-up: answered as if it had been found.
  return ctx.store.write(async (q) => (await insertConversation(ctx, q, id)) ?? (await requireParticipation(ctx, q, id)).conversation)
}

const listSort = 'conversations'

/** The conversations the caller participates in, newest first. */
export function listConversations({ ctx, window }: { ctx: ChatContext; window: PageWindow }): Promise<Cursored<ConversationRow>[]> {
  return ctx.store.read(async (q) => {
    const caller = await requireCaller(ctx, q)
    const rows = await q.conversations.pageOfParticipant(ctx.integration.id, caller.id, keysetWindow(listSort, window))
    return withCursors(listSort, rows, (c) => [c.createdAt, c.id])
  })
}

/** Only the owner deletes a conversation; all it holds goes with it (see eraseConversation). */
export function deleteConversation({ ctx, id }: { ctx: ChatContext; id: string }): Promise<void> {
  return ctx.store.write(async (q, after) => {
    const { conversation, caller } = await requireParticipation(ctx, q, id)
    if (conversation.ownerId !== caller.id) {
      throw forbidden(`only the owner of conversation "${id}" may delete it`)
    }
    await eraseConversation(ctx, q, after, ctx.integration, id)
  })
}
