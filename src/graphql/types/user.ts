import type { UserRow } from '../../db/schema.ts'
import { signUserKey } from '../../auth/user-key.ts'
import { signingKeyOf } from '../../domain/key-modes.ts'
import { loadUser } from '../../domain/loaders.ts'
import { authorizeUserKey, createUser, deleteUser, getCaller, getOrCreateUser, getVisibleUser, profileSeenBy, updateUser } from '../../domain/users.ts'
import { builder } from '../builder.ts'
import { clientIdBounds } from '../input-bounds.ts'
import { chatScope, type GraphQLContext } from '../context.ts'
import { visibleOrNull } from '../nodes.ts'

/**
 * A user as the schema resolves it: its row, or only its id where that is all the parent holds (a
 * message's author). A field that needs more than the id loads the row then (batched per request),
 * so that `author { userId }` reads nothing.
 */
export type UserSource = UserRow | { id: string }

/** A field of the user's row: read at once when the row is in hand, else once it is loaded. */
const fromRow =
  <K extends keyof UserRow>(key: K) =>
  (user: UserSource, _args: unknown, ctx: GraphQLContext): UserRow[K] | Promise<UserRow[K]> =>
    'createdAt' in user ? user[key] : loadUser(chatScope(ctx), user.id).then((row) => row[key])

export const User = builder.node(builder.objectRef<UserSource>('User'), {
  subGraphs: ['chat'],
  description: 'Someone talking to the bot through one chat integration.',
  id: { resolve: (user) => user.id },
  loadOne: (id, ctx) => visibleOrNull(() => getVisibleUser(chatScope(ctx), id)),
  fields: (t) => ({
    userId: t.exposeString('id', { description: 'The user id of the Chat API (what x-user-key names).' }),
    name: t.string({ nullable: true, resolve: fromRow('name') }),
    pictureUrl: t.string({ nullable: true, resolve: fromRow('pictureUrl') }),
    profile: t.string({
      nullable: true,
      description: "Custom profile data, encoded as a string: the user's own, shown to that user only (and the bot's to everyone).",
      resolve: (user, _args, ctx) =>
        'createdAt' in user ? profileSeenBy(chatScope(ctx), user) : loadUser(chatScope(ctx), user.id).then((row) => profileSeenBy(chatScope(ctx), row)),
    }),
    isBot: t.boolean({ description: "Whether this is the bot's own user.", resolve: fromRow('isBot') }),
    createdAt: t.field({ type: 'DateTime', resolve: fromRow('createdAt') }),
    updatedAt: t.field({ type: 'DateTime', resolve: fromRow('updatedAt') }),
  }),
})

builder.queryField('me', (t) =>
  t.field({
    subGraphs: ['chat'],
    type: User,
    description: 'The user the x-user-key names.',
    resolve: (_root, _args, ctx) => getCaller({ ctx: chatScope(ctx) }),
  }),
)

builder.relayMutationField(
  'getOrCreateUser',
  {
    subGraphs: ['chat'],
    inputFields: (t) => ({
      name: t.string(),
      pictureUrl: t.string(),
      profile: t.string(),
    }),
  },
  {
    description: 'Returns the user the x-user-key names, creating it with this profile if it does not exist.',
    resolve: async (_root, { input }, ctx) => ({ user: await getOrCreateUser({ ctx: chatScope(ctx), input }) }),
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ user: t.expose('user', { type: User }) }) },
)

builder.relayMutationField(
  'createUser',
  {
    subGraphs: ['chat'],
    inputFields: (t) => ({
      id: t.string({ description: 'A chosen id (1-64 of [A-Za-z0-9._:-]); generated when absent.', extensions: clientIdBounds }),
      name: t.string(),
      pictureUrl: t.string(),
      profile: t.string(),
    }),
  },
  {
    description:
      'Creates a user and returns it with a user key signed by the server. Needs no x-user-key; refused (Unauthorized) when the integration has a personal encryption key.',
    resolve: async (_root, { input }, ctx) => {
      const chat = chatScope(ctx)
      const user = await createUser({ ctx: chat, input })
      return { user, key: await signUserKey(user.id, signingKeyOf(chat.integration)) }
    },
  },
  {
    subGraphs: ['chat'],
    outputFields: (t) => ({
      user: t.expose('user', { type: User }),
      key: t.exposeString('key', { description: 'The x-user-key of the new user.' }),
    }),
  },
)

builder.relayMutationField(
  'updateUser',
  {
    subGraphs: ['chat'],
    inputFields: (t) => ({ name: t.string(), pictureUrl: t.string(), profile: t.string() }),
  },
  {
    description: 'Updates the profile fields given (null clears one) of the user the x-user-key names.',
    resolve: async (_root, { input }, ctx) => ({ user: await updateUser({ ctx: chatScope(ctx), input }) }),
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ user: t.expose('user', { type: User }) }) },
)

builder.relayMutationField(
  'deleteUser',
  null,
  {
    subGraphs: ['chat'],
    description: 'Deletes the user the x-user-key names, the conversations it owns and its messages.',
    resolve: async (_root, _args, ctx) => {
      const chat = chatScope(ctx)
      await deleteUser({ ctx: chat })
      return { userId: chat.callerId ?? '' }
    },
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ userId: t.exposeString('userId') }) },
)

builder.relayMutationField(
  'generateUserKey',
  {
    subGraphs: ['chat'],
    inputFields: (t) => ({
      id: t.string({ required: true, description: 'The user the key acts for.' }),
      expiresAt: t.float({ description: 'When the key expires, in milliseconds since the epoch; never when absent.' }),
    }),
  },
  {
    description: 'A user key for an existing user, for the holder of x-admin-secret (the key the integration signs user keys with).',
    resolve: async (_root, { input: { id, expiresAt } }, ctx) => {
      const chat = chatScope(ctx)
      const user = await authorizeUserKey({ ctx: chat, userId: id, expiresAt })
      return { key: await signUserKey(user.id, signingKeyOf(chat.integration), expiresAt ?? undefined) }
    },
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ key: t.exposeString('key') }) },
)
