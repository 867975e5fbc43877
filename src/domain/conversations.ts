import { and, eq } from 'drizzle-orm'
import { conversations, participants, type ConversationRow } from '../db/schema.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { alreadyExists, DomainError, forbidden, notFound } from './errors.ts'
import { type Cursored, keyset, type PageWindow, withCursors } from './paging.ts'
import { assertClientId, newId } from './ids.ts'
import { requireCaller } from './users.ts'

export function findConversation(ctx: ChatContext, id: string): ConversationRow | undefined {
  return ctx.db
    .select()
    .from(conversations)
    .where(and(eq(conversations.integrationId, ctx.integration.id), eq(conversations.id, id)))
    .get()
}

export function isParticipant(ctx: ChatContext, conversationId: string, userId: string): boolean {
  const row = ctx.db
    .select({ userId: participants.userId })
    .from(participants)
    .where(
      and(
        eq(participants.integrationId, ctx.integration.id),
        eq(participants.conversationId, conversationId),
        eq(participants.userId, userId),
      ),
    )
    .get()
  return row !== undefined
}

/**
 * The gate of every conversation-scoped verb: 404 when the conversation does not exist, 403 when
 * the caller is not one of its participants. Returns the conversation and the caller's id.
 */
export function requireParticipation(ctx: ChatContext, conversationId: string) {
  const caller = requireCaller(ctx)
  const conversation = findConversation(ctx, conversationId)
  if (!conversation) throw notFound('Conversation', conversationId)
  if (!isParticipant(ctx, conversationId, caller.id)) {
    throw forbidden(`user "${caller.id}" is not a participant of conversation "${conversationId}"`)
  }
  return { conversation, caller }
}

export function getConversation({ ctx, id }: { ctx: ChatContext; id: string }): ConversationRow {
  return requireParticipation(ctx, id).conversation
}

/** The caller creates, owns and is the first participant of the conversation. */
export function createConversation({
  ctx,
  input,
}: {
  ctx: ChatContext
  input: { id?: string | null }
}): ConversationRow {
  const caller = requireCaller(ctx)
  const id = input.id == null ? newId() : assertClientId(input.id, 'conversation id')
  const at = now()
  const row: ConversationRow = { integrationId: ctx.integration.id, id, ownerId: caller.id, createdAt: at, updatedAt: at }
  return ctx.db.transaction((tx) => {
    const inserted = tx.insert(conversations).values(row).onConflictDoNothing().returning().get()
    if (!inserted) throw alreadyExists('Conversation', id)
    tx.insert(participants)
      .values({ integrationId: ctx.integration.id, conversationId: id, userId: caller.id, joinId: newId(), createdAt: at })
      .run()
    return inserted
  })
}

/** The conversation with this id if the caller participates in it, else a new one the caller owns. */
export function getOrCreateConversation({ ctx, input }: { ctx: ChatContext; input: { id: string } }): ConversationRow {
  const id = assertClientId(input.id, 'conversation id')
  if (findConversation(ctx, id)) return getConversation({ ctx, id })
  try {
    return createConversation({ ctx, input: { id } })
  } catch (error) {
    // Created by a concurrent call between the look-up and the insert: answer as if it had been found.
    if (error instanceof DomainError && error.type === 'AlreadyExists') return getConversation({ ctx, id })
    throw error
  }
}

const listSort = 'conversations'

/** The conversations the caller participates in, newest first. */
export function listConversations({ ctx, window }: { ctx: ChatContext; window: PageWindow }): Cursored<ConversationRow>[] {
  const caller = requireCaller(ctx)
  const page = keyset(listSort, [conversations.createdAt, conversations.id], window, 'desc')
  const rows = ctx.db
    .select({ conversation: conversations })
    .from(participants)
    .innerJoin(
      conversations,
      and(eq(conversations.integrationId, participants.integrationId), eq(conversations.id, participants.conversationId)),
    )
    .where(and(eq(participants.integrationId, ctx.integration.id), eq(participants.userId, caller.id), page.where))
    .orderBy(...page.orderBy)
    .limit(window.limit)
    .all()
    .map((r) => r.conversation)
  return withCursors(listSort, rows, (c) => [c.createdAt, c.id])
}

/** Only the owner deletes a conversation; its participants, messages and events go with it. */
export function deleteConversation({ ctx, id }: { ctx: ChatContext; id: string }): void {
  const { conversation, caller } = requireParticipation(ctx, id)
  if (conversation.ownerId !== caller.id) {
    throw forbidden(`only the owner of conversation "${id}" may delete it`)
  }
  ctx.db
    .delete(conversations)
    .where(and(eq(conversations.integrationId, ctx.integration.id), eq(conversations.id, id)))
    .run()
  ctx.signals.publish(ctx.integration.id, { type: 'conversation_deleted', conversationId: id })
}
