import type { UserRow } from '../../db/schema.ts'
import { getOrCreateUser, getVisibleUser, requireCaller } from '../../domain/users.ts'
import { builder } from '../builder.ts'
import { chatScope } from '../context.ts'
import { visibleOrNull } from '../nodes.ts'

export const User = builder.node(builder.objectRef<UserRow>('User'), {
  subGraphs: ['chat'],
  description: 'Someone talking to the bot through one chat integration.',
  id: { resolve: (user) => user.id },
  loadOne: (id, ctx) => visibleOrNull(() => getVisibleUser(chatScope(ctx), id)),
  fields: (t) => ({
    userId: t.exposeString('id', { description: 'The user id of the Chat API (what x-user-key names).' }),
    name: t.exposeString('name', { nullable: true }),
    pictureUrl: t.exposeString('pictureUrl', { nullable: true }),
    profile: t.exposeString('profile', { nullable: true, description: 'Custom profile data, encoded as a string.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
})

builder.queryField('me', (t) =>
  t.field({
    subGraphs: ['chat'],
    type: User,
    description: 'The user the x-user-key names.',
    resolve: (_root, _args, ctx) => requireCaller(chatScope(ctx)),
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
    resolve: (_root, { input }, ctx) => ({ user: getOrCreateUser({ ctx: chatScope(ctx), input }) }),
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ user: t.expose('user', { type: User }) }) },
)
