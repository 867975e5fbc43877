import type { BotLogRow, BotRow } from '../../db/schema.ts'
import { getBotLogs } from '../../domain/bots/logs.ts'
import { rotateBotSigningSecrets } from '../../domain/bots/secrets.ts'
import { createBotApiKey, deleteBotApiKey, listBotApiKeys } from '../../domain/bots/api-keys.ts'
import { createBot, deleteBot, getBot, getBotSetup, listBots, updateBot } from '../../domain/bots/admin.ts'
import { builder } from '../builder.ts'
import { adminScope, type GraphQLContext } from '../context.ts'
import { visibleOrNull } from '../nodes.ts'
import { pageConnection } from '../paging.ts'

const setupOf = (bot: BotRow, ctx: GraphQLContext) => getBotSetup({ ctx: adminScope(ctx), id: bot.id })

const ChatConfiguration = builder.objectRef<{ encryptionKey: string }>('ChatIntegrationConfiguration').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    encryptionKey: t.exposeString('encryptionKey', {
      description: 'The key user keys of this integration are signed with (HS256).',
    }),
  }),
})

const ChatIntegration = builder.objectRef<BotRow>('ChatIntegration').implement({
  subGraphs: ['admin'],
  description: "The bot's own chat integration: where @botpress/chat clients talk to it.",
  fields: (t) => ({
    enabled: t.boolean({ resolve: () => true }),
    webhookId: t.string({ resolve: async (bot, _args, ctx) => (await setupOf(bot, ctx)).integration.webhookId }),
    webhookUrl: t.string({
      description: 'The apiUrl of a @botpress/chat client for this bot: the base URL the request reached, then the webhook id.',
      resolve: async (bot, _args, ctx) => `${ctx.baseUrl?.() ?? ''}/${(await setupOf(bot, ctx)).integration.webhookId}`,
    }),
    configuration: t.field({
      type: ChatConfiguration,
      resolve: async (bot, _args, ctx) => ({ encryptionKey: (await setupOf(bot, ctx)).integration.encryptionKey }),
    }),
  }),
})

const BotIntegrations = builder.objectRef<BotRow>('BotIntegrations').implement({
  subGraphs: ['admin'],
  fields: (t) => ({ chat: t.field({ type: ChatIntegration, resolve: (bot) => bot }) }),
})

const BotProtocol = builder.enumType('BotProtocol', {
  subGraphs: ['admin'],
  description: 'How events are POSTed to the bot\'s url.',
  values: {
    webhook: { description: 'The signed event object of Confab (the default).' },
    botpress: { description: 'The headers and body an @botpress/sdk bot reads (event_received).' },
  },
})

export const Bot = builder.node(builder.objectRef<BotRow>('Bot'), {
  subGraphs: ['admin'],
  description: 'A bot of the workspace.',
  id: { resolve: (bot) => bot.id },
  loadOne: (id, ctx) => visibleOrNull(() => getBot({ ctx: adminScope(ctx), id })),
  fields: (t) => ({
    botId: t.exposeString('id', { description: 'The bot id of the administration API.' }),
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    deployedAt: t.expose('deployedAt', { type: 'DateTime', nullable: true }),
    tags: t.expose('tags', { type: 'JSONObject' }),
    url: t.exposeString('url', {
      nullable: true,
      description: 'Where the bot receives its events; without one it runs in process (the echo bot by default).',
    }),
    signingSecret: t.string({
      description: 'The current Standard Webhooks secret (whsec_…) its deliveries are signed with.',
      resolve: async (bot, _args, ctx) => (await setupOf(bot, ctx)).signingSecret,
    }),
    protocol: t.expose('protocol', { type: BotProtocol }),
    integrations: t.field({ type: BotIntegrations, resolve: (bot) => bot }),
  }),
})

const BotSortField = builder.enumType('BotSortField', {
  subGraphs: ['admin'],
  values: ['createdAt', 'updatedAt'] as const,
})

const SortDirection = builder.enumType('SortDirection', {
  subGraphs: ['admin'],
  values: ['asc', 'desc'] as const,
})

builder.queryField('bots', (t) =>
  t.connection({
    subGraphs: ['admin'],
    type: Bot,
    description: 'The bots of the workspace.',
    args: {
      sortField: t.arg({ type: BotSortField, defaultValue: 'createdAt' }),
      sortDirection: t.arg({ type: SortDirection, defaultValue: 'asc' }),
    },
    resolve: (_root, args, ctx) =>
      pageConnection(args, (window) =>
        listBots({
          ctx: adminScope(ctx),
          sort: { field: args.sortField ?? 'createdAt', direction: args.sortDirection ?? 'asc' },
          window,
        }),
      ),
  }),
)

builder.queryField('bot', (t) =>
  t.field({
    subGraphs: ['admin'],
    type: Bot,
    description: 'A bot of the workspace by its bot id (ResourceNotFound for any other).',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, { id }, ctx) => getBot({ ctx: adminScope(ctx), id }),
  }),
)


builder.relayMutationField(
  'createBot',
  {
    subGraphs: ['admin'],
    inputFields: (t) => ({
      name: t.string({ description: 'Generated when absent.' }),
      url: t.string({ description: 'An http or https URL to deliver events to; without one the echo bot answers.' }),
      tags: t.field({ type: 'JSONObject', description: 'An object of strings.' }),
      protocol: t.field({ type: BotProtocol, description: 'webhook by default.' }),
    }),
  },
  {
    description: 'Creates a bot with its own chat integration (webhook id, encryption key) and signing secret.',
    resolve: async (_root, { input }, ctx) => ({ bot: await createBot({ ctx: adminScope(ctx), input }) }),
  },
  { subGraphs: ['admin'], outputFields: (t) => ({ bot: t.expose('bot', { type: Bot }) }) },
)

builder.relayMutationField(
  'updateBot',
  {
    subGraphs: ['admin'],
    inputFields: (t) => ({
      id: t.string({ required: true }),
      name: t.string(),
      url: t.string({ description: 'null removes the url (the bot then runs in process).' }),
      tags: t.field({ type: 'JSONObject', description: "Merged into the bot's tags; a tag set to null or '' is removed." }),
      protocol: t.field({ type: BotProtocol }),
    }),
  },
  {
    description: 'Changes the fields given.',
    resolve: async (_root, { input: { id, ...input } }, ctx) => ({ bot: await updateBot({ ctx: adminScope(ctx), id, input }) }),
  },
  { subGraphs: ['admin'], outputFields: (t) => ({ bot: t.expose('bot', { type: Bot }) }) },
)

builder.mutationField('deleteBot', (t) =>
  t.field({
    subGraphs: ['admin'],
    type: 'String',
    description: 'Deletes the bot with its chat integration, users, conversations and logs; returns its bot id.',
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      await deleteBot({ ctx: adminScope(ctx), id })
      return id
    },
  }),
)

builder.relayMutationField(
  'rotateBotSigningSecrets',
  { subGraphs: ['admin'], inputFields: (t) => ({ id: t.string({ required: true }) }) },
  {
    description: 'A new signing secret; the previous one keeps signing beside it for 24 hours.',
    resolve: async (_root, { input }, ctx) => ({
      newSigningSecret: await rotateBotSigningSecrets({ ctx: adminScope(ctx), id: input.id }),
    }),
  },
  { subGraphs: ['admin'], outputFields: (t) => ({ newSigningSecret: t.exposeString('newSigningSecret') }) },
)

const BotApiKey = builder
  .objectRef<{ id: string; createdAt: string; note: string | null; value: string }>('BotApiKey')
  .implement({
    subGraphs: ['admin'],
    description: 'A key that acts for its bot on the runtime API (/v1/chat/…); its value is shown once.',
    fields: (t) => ({
      id: t.exposeString('id'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      note: t.exposeString('note', { nullable: true }),
      value: t.exposeString('value', { description: 'Authorization: Bearer <value>, with x-bot-id: <bot id>.' }),
    }),
  })

const BotApiKeySummary = builder.objectRef<{ id: string; createdAt: string; note: string | null }>('BotApiKeySummary').implement({
  subGraphs: ['admin'],
  description: 'A bot API key as listed: its value is never shown again.',
  fields: (t) => ({
    id: t.exposeString('id'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    note: t.exposeString('note', { nullable: true }),
  }),
})

builder.queryField('botApiKeys', (t) =>
  t.field({
    subGraphs: ['admin'],
    type: [BotApiKeySummary],
    description: 'The API keys of a bot, oldest first.',
    args: { botId: t.arg.string({ required: true }) },
    resolve: (_root, { botId }, ctx) => listBotApiKeys({ ctx: adminScope(ctx), botId }),
  }),
)

builder.mutationField('createBotApiKey', (t) =>
  t.field({
    subGraphs: ['admin'],
    type: BotApiKey,
    args: { botId: t.arg.string({ required: true }), note: t.arg.string() },
    resolve: (_root, input, ctx) => createBotApiKey({ ctx: adminScope(ctx), input }),
  }),
)

builder.mutationField('deleteBotApiKey', (t) =>
  t.field({
    subGraphs: ['admin'],
    type: 'String',
    description: 'Deletes a bot API key; returns its id.',
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      await deleteBotApiKey({ ctx: adminScope(ctx), id })
      return id
    },
  }),
)

const BotLog = builder.objectRef<BotLogRow>('BotLog').implement({
  subGraphs: ['admin'],
  description: 'One line of what happened to a bot’s events.',
  fields: (t) => ({
    timestamp: t.expose('timestamp', { type: 'DateTime' }),
    level: t.exposeString('level', { description: 'debug, info, warn or error.' }),
    message: t.exposeString('message'),
    conversationId: t.exposeString('conversationId', { nullable: true }),
    userId: t.exposeString('userId', { nullable: true }),
  }),
})

builder.queryField('botLogs', (t) =>
  t.connection({
    subGraphs: ['admin'],
    type: BotLog,
    description: 'The logs of a bot from timeStart to timeEnd (both inclusive, ISO 8601), newest first.',
    args: {
      id: t.arg.string({ required: true, description: 'The bot id.' }),
      timeStart: t.arg.string({ required: true }),
      timeEnd: t.arg.string(),
      conversationId: t.arg.string(),
      userId: t.arg.string(),
      level: t.arg.string({ description: 'debug, info, warn or error.' }),
    },
    resolve: (_root, { id, timeStart, timeEnd, conversationId, userId, level, ...args }, ctx) =>
      pageConnection(args, (window) =>
        getBotLogs({ ctx: adminScope(ctx), id, query: { timeStart, timeEnd, conversationId, userId, level }, window }),
      ),
  }),
)
