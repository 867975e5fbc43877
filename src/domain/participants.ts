import { and, eq } from 'drizzle-orm'
import { participants, users, type UserRow } from '../db/schema.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { requireParticipation } from './conversations.ts'
import { notFound } from './errors.ts'
import { type Cursored, keyset, type PageWindow, withCursors } from './paging.ts'
import { findUser } from './users.ts'

const sort = 'participants'

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
  ctx.db
    .insert(participants)
    .values({
      integrationId: ctx.integration.id,
      conversationId: input.conversationId,
      userId: user.id,
      createdAt: now(),
    })
    .onConflictDoNothing()
    .run()
  return user
}

/** Participants in the order they joined. */
export function listParticipants({
  ctx,
  conversationId,
  window,
}: {
  ctx: ChatContext
  conversationId: string
  window: PageWindow
}): Cursored<UserRow>[] {
  requireParticipation(ctx, conversationId)
  const page = keyset(sort, [participants.createdAt, participants.userId], window)
  const rows = ctx.db
    .select({ user: users, joinedAt: participants.createdAt })
    .from(participants)
    .innerJoin(users, and(eq(users.integrationId, participants.integrationId), eq(users.id, participants.userId)))
    .where(
      and(
        eq(participants.integrationId, ctx.integration.id),
        eq(participants.conversationId, conversationId),
        page.where,
      ),
    )
    .orderBy(...page.orderBy)
    .limit(window.limit)
    .all()
  return withCursors(sort, rows, (r) => [r.joinedAt, r.user.id]).map(({ user, cursor }) => ({ ...user, cursor }))
}
