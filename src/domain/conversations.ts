import { and, eq } from 'drizzle-orm'
import { conversations, participants, type ConversationRow } from '../db/schema.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { alreadyExists, forbidden, notFound } from './errors.ts'
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
export function createConversation({ ctx, input }: { ctx: ChatContext; input: { id?: string | null } }): ConversationRow {
  const caller = requireCaller(ctx)
  const id = input.id == null ? newId() : assertClientId(input.id, 'conversation id')
  const at = now()
  const row: ConversationRow = { integrationId: ctx.integration.id, id, ownerId: caller.id, createdAt: at, updatedAt: at }
  return ctx.db.transaction((tx) => {
    const inserted = tx.insert(conversations).values(row).onConflictDoNothing().returning().get()
    if (!inserted) throw alreadyExists('Conversation', id)
    tx.insert(participants)
      .values({ integrationId: ctx.integration.id, conversationId: id, userId: caller.id, createdAt: at })
      .run()
    return inserted
  })
}
