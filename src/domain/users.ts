import { timingSafeEqual } from 'node:crypto'
import type { UserRow } from '../db/schema.ts'
import type { Queries } from '../db/store.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { alreadyExists, DomainError, notFound, unauthorized } from './errors.ts'
import { eraseUser, refuseDeletedUserId } from './erasure.ts'
import { refuseAgentUserId } from './agent-users.ts'
import { assertClientId, newId } from './ids.ts'
import { refuseUnsignedUsers, signingKeyOf } from './key-modes.ts'
import { checkProfileFields } from './profile-caps.ts'

export interface UserProfileInput {
  name?: string | null
  pictureUrl?: string | null
  profile?: string | null
}

export async function getUserIn(ctx: ChatContext, q: Queries, id: string): Promise<UserRow> {
  const user = await q.users.find(ctx.integration.id, id)
  if (!user) throw notFound('User', id)
  return user
}

/** The id the request's user key names; 401 without a key. The user need not exist yet. */
export function requireCallerId(ctx: ChatContext): string {
  if (ctx.callerId === undefined) throw unauthorized('the x-user-key header is required')
  return ctx.callerId
}

/**
 * A user's `profile` is its own custom data (an e-mail, an account number…): the user itself reads it, and
 * everyone reads the bot's, but no other user does, not even one sharing a conversation with it. Else
 * adding any user id as a participant would read that user's profile (issue 49, M3).
 */
export const profileSeenBy = (ctx: ChatContext, user: UserRow): string | null =>
  user.isBot || user.id === ctx.callerId || user.id === ctx.memo.createdUserId ? user.profile : null

/** Keeps the caller's row that another query returned (a participation), sparing a look-up. */
export const rememberCaller = (ctx: ChatContext, user: UserRow): void => {
  ctx.memo.caller = user
}

/** The user the request's key names, which must exist: a key outlives a deleted user but opens nothing. */
export async function requireCaller(ctx: ChatContext, q: Queries): Promise<UserRow> {
  // Read once per request; a verb that changes the caller forgets it.
  const known = ctx.memo.caller
  if (known) return known
  const id = requireCallerId(ctx)
  const user = await q.users.find(ctx.integration.id, id)
  if (!user) throw unauthorized(`user "${id}" of this user key does not exist; call getOrCreateUser first`)
  ctx.memo.caller = user
  return user
}

/** The user the request's key names (`me`). */
export const getCaller = ({ ctx }: { ctx: ChatContext }): Promise<UserRow> => ctx.store.read((q) => requireCaller(ctx, q))

/** `idChosen`: the client chose the id (createUser), which Botpress' chat integration tags `fid` (getOrCreateUser does not). */
const newUser = (ctx: ChatContext, id: string, input: UserProfileInput, idChosen = false): UserRow => {
  const at = now()
  return {
    integrationId: ctx.integration.id,
    id,
    name: input.name ?? null,
    pictureUrl: input.pictureUrl ?? null,
    profile: input.profile ?? null,
    isBot: false,
    createdAt: at,
    updatedAt: at,
    idChosen,
  }
}

/**
 * A user of the caller's choosing (or a generated id); no key is needed to create one while the
 * integration signs with the shared key. With a personal key it is refused (401): the operator
 * signs the keys, and a user created by anyone could be a user id its owner has not claimed yet.
 */
export async function createUser({ ctx, input }: { ctx: ChatContext; input: UserProfileInput & { id?: string | null } }): Promise<UserRow> {
  refuseUnsignedUsers(ctx.integration)
  checkProfileFields(input)
  const id = input.id == null ? newId() : refuseAgentUserId(assertClientId(input.id, 'user id'))
  return ctx.store.write(async (q) => {
    const inserted = await q.users.insert(newUser(ctx, id, input, input.id != null))
    if (!inserted) throw alreadyExists('User', id)
    await refuseDeletedUserId(q, ctx.integration.id, id, (message) => new DomainError('AlreadyExists', message))
    ctx.memo.createdUserId = id
    return inserted
  })
}

/** Sets the profile fields given (null clears one); fields left out keep their value. */
export function updateUser({ ctx, input }: { ctx: ChatContext; input: UserProfileInput }): Promise<UserRow> {
  checkProfileFields(input)
  return ctx.store.write(async (q) => {
    const caller = await requireCaller(ctx, q)
    ctx.memo.caller = undefined
    const changes = Object.fromEntries((['name', 'pictureUrl', 'profile'] as const).filter((key) => input[key] !== undefined).map((key) => [key, input[key]]))
    return (await q.users.update(ctx.integration.id, caller.id, { ...changes, updatedAt: now() })) as UserRow
  })
}

/** Deletes the caller with everything that is theirs (see eraseUser); its keys then open nothing and re-create nothing. */
export function deleteUser({ ctx }: { ctx: ChatContext }): Promise<void> {
  return ctx.store.write(async (q, after) => {
    const caller = await requireCaller(ctx, q)
    await eraseUser(ctx, q, after, ctx.integration, caller.id)
    ctx.memo.caller = undefined
  })
}

/**
 * The key names the user: an existing user is returned unchanged, a missing one is created with
 * the given profile. Concurrent first calls with the same key create one user.
 */
export async function getOrCreateUser({ ctx, input }: { ctx: ChatContext; input: UserProfileInput }): Promise<UserRow> {
  const id = requireCallerId(ctx)
  checkProfileFields(input)
  const existing = await ctx.store.read((q) => q.users.find(ctx.integration.id, id))
  if (existing) return existing
  return ctx.store.write(async (q) => {
    const inserted = await q.users.insert(newUser(ctx, id, input))
    if (!inserted) return getUserIn(ctx, q, id)
    await refuseDeletedUserId(q, ctx.integration.id, id, unauthorized)
    return inserted
  })
}

/** A user's profile is visible to the user and to the users it shares a conversation with. */
export function getVisibleUser(ctx: ChatContext, id: string): Promise<UserRow> {
  return ctx.store.read(async (q) => {
    const caller = await requireCaller(ctx, q)
    if (id === caller.id) return caller
    const user = await getUserIn(ctx, q, id)
    // A user the caller may not see is answered as one that does not exist.
    if (!(await q.users.shareAConversation(ctx.integration.id, caller.id, id))) throw notFound('User', id)
    return user
  })
}

/**
 * generateUserKey's gate: the x-admin-secret must be the key the integration signs user keys with
 * now (the personal one when set, else the shared one: whoever holds it can sign user keys anyway),
 * and the user must exist. Returns the user.
 */
export async function authorizeUserKey({ ctx, userId, expiresAt }: { ctx: ChatContext; userId: string; expiresAt?: number | null }): Promise<UserRow> {
  const given = Buffer.from(ctx.adminSecret ?? '')
  const expected = Buffer.from(signingKeyOf(ctx.integration))
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw unauthorized('x-admin-secret must be the key this chat integration signs user keys with')
  }
  if (expiresAt != null && (!Number.isFinite(expiresAt) || expiresAt <= Date.now())) {
    throw new DomainError('InvalidPayload', 'expiresAt must be a time in the future, in milliseconds since the epoch')
  }
  return ctx.store.read((q) => getUserIn(ctx, q, userId))
}
