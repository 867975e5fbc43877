import type { UserRow } from '../db/schema.ts'
import type { After, Queries } from '../db/store.ts'
import type { Participant } from './chat-loaders.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { requireParticipation } from './conversations.ts'
import { forbidden, invalidPayload, notFound } from './errors.ts'
import { newId } from './ids.ts'
import { tell } from './integration-webhooks.ts'
import { loadParticipantsPage, loadParticipation } from './loaders.ts'
import type { Cursored, PageWindow } from './paging.ts'
import { getUserIn } from './users.ts'

/**
 * Inside a unit: makes a user a participant, telling the conversation's listeners once committed
 * when that is new. The caller's right to do so is the verb's business, not this one's.
 */
export async function joinConversation(ctx: ChatContext, q: Queries, after: After, conversationId: string, userId: string): Promise<void> {
  const joined = await q.participants.insert({
    integrationId: ctx.integration.id,
    conversationId,
    userId,
    joinId: newId(),
    createdAt: now(),
  })
  if (joined) {
    const participant = await getUserIn(ctx, q, userId)
    await tell(ctx, q, after, { type: 'participant_added', conversationId, participantId: userId, participant })
  }
}

/** Adding a user who already participates changes nothing and returns that participant. */
export function addParticipant({ ctx, input }: { ctx: ChatContext; input: { conversationId: string; userId: string } }): Promise<UserRow> {
  return ctx.store.write(async (q, after) => {
    await requireParticipation(ctx, q, input.conversationId)
    const user = await getUserIn(ctx, q, input.userId)
    await joinConversation(ctx, q, after, input.conversationId, user.id)
    return user
  })
}

/** A participant of a conversation the caller participates in; 404 for a user who is not one. */
export async function getParticipant({ ctx, input }: { ctx: ChatContext; input: { conversationId: string; userId: string } }): Promise<UserRow> {
  await loadParticipation(ctx, input.conversationId)
  return ctx.store.read(async (q) => {
    const user = await q.users.find(ctx.integration.id, input.userId)
    if (!user || !(await q.participants.exists(ctx.integration.id, input.conversationId, user.id))) {
      throw notFound(`Participant of conversation "${input.conversationId}"`, input.userId)
    }
    return user
  })
}

/**
 * A participant may remove itself and the owner may remove anyone but itself: the owner stays in
 * the conversation it owns (delete the conversation instead).
 */
export function removeParticipant({ ctx, input }: { ctx: ChatContext; input: { conversationId: string; userId: string } }): Promise<void> {
  return ctx.store.write(async (q, after) => {
    const { conversation, caller } = await requireParticipation(ctx, q, input.conversationId)
    if (input.userId === conversation.ownerId) {
      throw invalidPayload(`user "${input.userId}" owns conversation "${input.conversationId}" and cannot be removed`)
    }
    if (input.userId !== caller.id && caller.id !== conversation.ownerId) {
      throw forbidden('only the owner may remove another participant')
    }
    if (!(await q.participants.delete(ctx.integration.id, input.conversationId, input.userId))) {
      throw notFound(`Participant of conversation "${input.conversationId}"`, input.userId)
    }
    await tell(ctx, q, after, { type: 'participant_removed', conversationId: input.conversationId, participantId: input.userId })
  })
}

/** Participants in the order they joined, each with when (batched across conversations within a request). */
export function listParticipants({
  ctx,
  conversationId,
  window,
}: {
  ctx: ChatContext
  conversationId: string
  window: PageWindow
}): Promise<Cursored<Participant>[]> {
  return loadParticipantsPage(ctx, conversationId, window)
}
