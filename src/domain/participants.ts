import { and, eq } from 'drizzle-orm'
import { participants, type UserRow } from '../db/schema.ts'
import { now } from './clock.ts'
import { newId } from './ids.ts'
import type { ChatContext } from './context.ts'
import { isParticipant, requireParticipation } from './conversations.ts'
import { forbidden, invalidPayload, notFound } from './errors.ts'
import { loadParticipantsPage } from './loaders.ts'
import type { Cursored, PageWindow } from './paging.ts'
import { findUser } from './users.ts'


/**
 * Makes a user a participant, telling the conversation's listeners when that is new. The caller's
 * right to do so is the verb's business, not this one's.
 */
export function joinConversation(ctx: ChatContext, conversationId: string, userId: string): void {
  const inserted = ctx.db
    .insert(participants)
    .values({ integrationId: ctx.integration.id, conversationId, userId, joinId: newId(), createdAt: now() })
    .onConflictDoNothing()
    .returning()
    .get()
  if (inserted) {
    ctx.signals.publish(ctx.integration.id, { type: 'participant_added', conversationId, participantId: userId })
  }
}

/** Adding a user who already participates changes nothing and returns that participant. */
export function addParticipant({
  ctx,
  input,
}: {
  ctx: ChatContext
  input: { conversationId: string; userId: string }
}): UserRow {
  requireParticipation(ctx, input.conversationId)
  const user = findUser(ctx, input.userId)
  if (!user) throw notFound('User', input.userId)
  joinConversation(ctx, input.conversationId, user.id)
  return user
}

/** A participant of a conversation the caller participates in; 404 for a user who is not one. */
export function getParticipant({
  ctx,
  input,
}: {
  ctx: ChatContext
  input: { conversationId: string; userId: string }
}): UserRow {
  requireParticipation(ctx, input.conversationId)
  const user = findUser(ctx, input.userId)
  if (!user || !isParticipant(ctx, input.conversationId, user.id)) {
    throw notFound(`Participant of conversation "${input.conversationId}"`, input.userId)
  }
  return user
}

/**
 * A participant may remove itself and the owner may remove anyone but itself: the owner stays in
 * the conversation it owns (delete the conversation instead).
 */
export function removeParticipant({
  ctx,
  input,
}: {
  ctx: ChatContext
  input: { conversationId: string; userId: string }
}): void {
  const { conversation, caller } = requireParticipation(ctx, input.conversationId)
  if (input.userId === conversation.ownerId) {
    throw invalidPayload(`user "${input.userId}" owns conversation "${input.conversationId}" and cannot be removed`)
  }
  if (input.userId !== caller.id && caller.id !== conversation.ownerId) {
    throw forbidden('only the owner may remove another participant')
  }
  const removed = ctx.db
    .delete(participants)
    .where(
      and(
        eq(participants.integrationId, ctx.integration.id),
        eq(participants.conversationId, input.conversationId),
        eq(participants.userId, input.userId),
      ),
    )
    .returning()
    .get()
  if (!removed) throw notFound(`Participant of conversation "${input.conversationId}"`, input.userId)
  ctx.signals.publish(ctx.integration.id, {
    type: 'participant_removed',
    conversationId: input.conversationId,
    participantId: input.userId,
  })
}

/** Participants in the order they joined (batched across conversations within a request). */
export function listParticipants({
  ctx,
  conversationId,
  window,
}: {
  ctx: ChatContext
  conversationId: string
  window: PageWindow
}): Promise<Cursored<UserRow>[]> {
  return loadParticipantsPage(ctx, conversationId, window)
}
