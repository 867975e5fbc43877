import { and, eq } from 'drizzle-orm'
import { alias } from 'drizzle-orm/sqlite-core'
import { conversations, participants, users, type UserRow } from '../db/schema.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { alreadyExists, forbidden, notFound, unauthorized } from './errors.ts'
import { assertClientId, newId } from './ids.ts'

export interface UserProfileInput {
  name?: string | null
  pictureUrl?: string | null
  profile?: string | null
}

export function findUser(ctx: ChatContext, id: string): UserRow | undefined {
  return ctx.db
    .select()
    .from(users)
    .where(and(eq(users.integrationId, ctx.integration.id), eq(users.id, id)))
    .get()
}

export function getUser(ctx: ChatContext, id: string): UserRow {
  const user = findUser(ctx, id)
  if (!user) throw notFound('User', id)
  return user
}

/** The id the request's user key names; 401 without a key. The user need not exist yet. */
export function requireCallerId(ctx: ChatContext): string {
  if (ctx.callerId === undefined) throw unauthorized('the x-user-key header is required')
  return ctx.callerId
}

// The caller's row, read once per request (context); a verb that changes the caller forgets it.
const callers = new WeakMap<ChatContext, UserRow>()

/** The user the request's key names, which must exist: a key outlives a deleted user but opens nothing. */
export function requireCaller(ctx: ChatContext): UserRow {
  const known = callers.get(ctx)
  if (known) return known
  const id = requireCallerId(ctx)
  const user = findUser(ctx, id)
  if (!user) throw unauthorized(`user "${id}" of this user key does not exist; call getOrCreateUser first`)
  callers.set(ctx, user)
  return user
}

/** Inserts a user unless its id is taken; returns the new row, or undefined when it was taken. */
function insertUser(ctx: ChatContext, id: string, input: UserProfileInput): UserRow | undefined {
  const at = now()
  return ctx.db
    .insert(users)
    .values({
      integrationId: ctx.integration.id,
      id,
      name: input.name ?? null,
      pictureUrl: input.pictureUrl ?? null,
      profile: input.profile ?? null,
      createdAt: at,
      updatedAt: at,
    })
    .onConflictDoNothing()
    .returning()
    .get()
}

/** A user of the caller's choosing (or a generated id); no key is needed to create one. */
export function createUser({
  ctx,
  input,
}: {
  ctx: ChatContext
  input: UserProfileInput & { id?: string | null }
}): UserRow {
  const id = input.id == null ? newId() : assertClientId(input.id, 'user id')
  const inserted = insertUser(ctx, id, input)
  if (!inserted) throw alreadyExists('User', id)
  return inserted
}

/** Sets the profile fields given (null clears one); fields left out keep their value. */
export function updateUser({ ctx, input }: { ctx: ChatContext; input: UserProfileInput }): UserRow {
  const caller = requireCaller(ctx)
  callers.delete(ctx)
  const changes = Object.fromEntries(
    (['name', 'pictureUrl', 'profile'] as const).filter((key) => input[key] !== undefined).map((key) => [key, input[key]]),
  )
  return ctx.db
    .update(users)
    .set({ ...changes, updatedAt: now() })
    .where(and(eq(users.integrationId, ctx.integration.id), eq(users.id, caller.id)))
    .returning()
    .get() as UserRow
}

/**
 * Deletes the caller with everything that is theirs: the conversations they own (with their
 * messages and events), their participations and their messages. Listeners of the conversations
 * they own are closed; the others learn that the user left.
 */
export function deleteUser({ ctx }: { ctx: ChatContext }): void {
  const caller = requireCaller(ctx)
  const joined = ctx.db
    .select({ conversationId: participants.conversationId, ownerId: conversations.ownerId })
    .from(participants)
    .innerJoin(
      conversations,
      and(eq(conversations.integrationId, participants.integrationId), eq(conversations.id, participants.conversationId)),
    )
    .where(and(eq(participants.integrationId, ctx.integration.id), eq(participants.userId, caller.id)))
    .all()
  ctx.db
    .delete(users)
    .where(and(eq(users.integrationId, ctx.integration.id), eq(users.id, caller.id)))
    .run()
  callers.delete(ctx)
  for (const { conversationId, ownerId } of joined) {
    ctx.signals.publish(
      ctx.integration.id,
      ownerId === caller.id
        ? { type: 'conversation_deleted', conversationId }
        : { type: 'participant_removed', conversationId, participantId: caller.id },
    )
  }
}

/**
 * The key names the user: an existing user is returned unchanged, a missing one is created with
 * the given profile. Concurrent first calls with the same key create one user.
 */
export function getOrCreateUser({ ctx, input }: { ctx: ChatContext; input: UserProfileInput }): UserRow {
  const id = requireCallerId(ctx)
  return findUser(ctx, id) ?? insertUser(ctx, id, input) ?? getUser(ctx, id)
}

/** A user's profile is visible to the user and to the users it shares a conversation with. */
export function getVisibleUser(ctx: ChatContext, id: string): UserRow {
  const caller = requireCaller(ctx)
  if (id === caller.id) return caller
  const user = getUser(ctx, id)
  const theirs = alias(participants, 'theirs')
  const shared = ctx.db
    .select({ conversationId: participants.conversationId })
    .from(participants)
    .innerJoin(
      theirs,
      and(eq(theirs.integrationId, participants.integrationId), eq(theirs.conversationId, participants.conversationId)),
    )
    .where(
      and(eq(participants.integrationId, ctx.integration.id), eq(participants.userId, caller.id), eq(theirs.userId, id)),
    )
    .limit(1)
    .get()
  if (!shared) throw forbidden(`user "${id}" shares no conversation with user "${caller.id}"`)
  return user
}
