import type { ConversationRow, UserRow } from '../../db/schema.ts'
import { deleteBotUser, exportBotUser, listBotConversations, listBotUsers } from '../../domain/bots/admin/users.ts'
import { builder } from '../builder.ts'
import { adminScope } from '../context.ts'
import { pageConnection } from '../paging.ts'
import { HandledBy } from './conversation.ts'

const BotUser = builder.objectRef<UserRow>('BotUser').implement({
  subGraphs: ['admin'],
  description: 'A user of a bot’s chat integration, as its administrator sees it.',
  fields: (t) => ({
    userId: t.exposeString('id'),
    name: t.exposeString('name', { nullable: true }),
    pictureUrl: t.exposeString('pictureUrl', { nullable: true }),
    profile: t.exposeString('profile', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
})

const BotConversation = builder.objectRef<ConversationRow>('BotConversation').implement({
  subGraphs: ['admin'],
  description: 'A conversation of a bot’s chat integration, as its administrator sees it.',
  fields: (t) => ({
    conversationId: t.exposeString('id'),
    ownerId: t.exposeString('ownerId', { description: 'The user who created it (deleting that user deletes it).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    handledBy: t.expose('handledBy', { type: HandledBy }),
    agentId: t.exposeString('agentId', { nullable: true, description: 'The agent who holds the conversation (or closed it).' }),
  }),
})

const botArg = { description: 'The bot id.' } as const

builder.queryField('botUsers', (t) =>
  t.connection({
    subGraphs: ['admin'],
    type: BotUser,
    description: 'The users of the bot’s chat integration (its own user aside), newest first.',
    args: { id: t.arg.string({ required: true, ...botArg }) },
    resolve: (_root, { id, ...args }, ctx) => pageConnection(args, (window) => listBotUsers({ ctx: adminScope(ctx), botId: id, window })),
  }),
)

builder.queryField('botConversations', (t) =>
  t.connection({
    subGraphs: ['admin'],
    type: BotConversation,
    description: 'The conversations of the bot’s chat integration, newest first.',
    args: { id: t.arg.string({ required: true, ...botArg }) },
    resolve: (_root, { id, ...args }, ctx) => pageConnection(args, (window) => listBotConversations({ ctx: adminScope(ctx), botId: id, window })),
  }),
)

builder.queryField('botUserExport', (t) =>
  t.field({
    subGraphs: ['admin'],
    type: 'JSONObject',
    description:
      'Everything Confab holds about one user of the bot, as JSON: its profile, the conversations it participates in ' +
      '(participants, messages, events), its files (without their bytes) and the bot’s state about it.',
    args: { id: t.arg.string({ required: true, ...botArg }), userId: t.arg.string({ required: true }) },
    resolve: (_root, { id, userId }, ctx) => exportBotUser({ ctx: adminScope(ctx), botId: id, userId }),
  }),
)

builder.relayMutationField(
  'deleteBotUser',
  { subGraphs: ['admin'], inputFields: (t) => ({ id: t.string({ required: true, ...botArg }), userId: t.string({ required: true }) }) },
  {
    description:
      'Deletes one user of the bot with everything that holds its content (conversations it owns, messages, events, ' +
      'files, bot events, logs, deliveries, state); its id cannot be used again.',
    resolve: async (_root, { input: { id, userId } }, ctx) => {
      await deleteBotUser({ ctx: adminScope(ctx), botId: id, userId })
      return { userId }
    },
  },
  { subGraphs: ['admin'], outputFields: (t) => ({ userId: t.exposeString('userId') }) },
)
