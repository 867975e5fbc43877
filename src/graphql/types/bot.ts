import type { BotRow } from '../../db/schema.ts'
import { createBot, deleteBot, getBot, listBots, updateBot } from '../../domain/bots/admin/bots.ts'
import { rotateBotSigningSecrets } from '../../domain/bots/admin/secrets.ts'
import { redactedUrl } from '../../domain/bots/redacted-url.ts'
import { builder } from '../builder.ts'
import { botNameBounds, botTagsBounds, botUrlBounds } from '../input-bounds.ts'
import { adminScope } from '../context.ts'
import { visibleOrNull } from '../nodes.ts'
import { pageConnection } from '../paging.ts'
import { BotIntegrations, BotIntegrationsInput } from './chat-integration.ts'

const BotProtocol = builder.enumType('BotProtocol', {
  subGraphs: ['admin'],
  description: "How events are POSTed to the bot's url.",
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
    url: t.string({
      nullable: true,
      description:
        'Where the bot receives its events, its credentials (user:password@) shown as ***; without one it runs in process (the echo bot by default).',
      resolve: (bot) => (bot.url === null ? null : redactedUrl(bot.url)),
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
      name: t.string({ description: 'Generated when absent.', extensions: botNameBounds }),
      url: t.string({ description: 'An http or https URL to deliver events to; without one the echo bot answers.', extensions: botUrlBounds }),
      tags: t.field({ type: 'JSONObject', description: 'An object of strings.', extensions: botTagsBounds(false) }),
      protocol: t.field({ type: BotProtocol, description: 'webhook by default.' }),
      integrations: t.field({ type: BotIntegrationsInput, description: 'A personal encryption key from the start.' }),
    }),
  },
  {
    description: 'Creates a bot with its own chat integration (webhook id, encryption key) and signing secret.',
    resolve: async (_root, { input }, ctx) => {
      const bot = await createBot({ ctx: adminScope(ctx), input })
      return { bot, signingSecret: bot.signingSecret as string }
    },
  },
  {
    subGraphs: ['admin'],
    outputFields: (t) => ({
      bot: t.expose('bot', { type: Bot }),
      // Shown here and by rotateBotSigningSecrets only, never by a read (bot, bots): a secret is shown once.
      signingSecret: t.exposeString('signingSecret', {
        description: 'The Standard Webhooks secret (whsec_…) its deliveries are signed with: shown this once.',
      }),
    }),
  },
)

builder.relayMutationField(
  'updateBot',
  {
    subGraphs: ['admin'],
    inputFields: (t) => ({
      id: t.string({ required: true }),
      name: t.string({ extensions: botNameBounds }),
      url: t.string({ description: 'null removes the url (the bot then runs in process).', extensions: botUrlBounds }),
      tags: t.field({ type: 'JSONObject', description: "Merged into the bot's tags; a tag set to null or '' is removed.", extensions: botTagsBounds(true) }),
      protocol: t.field({ type: BotProtocol }),
      integrations: t.field({
        type: BotIntegrationsInput,
        description: 'integrations.chat.configuration.encryptionKey sets the personal encryption key; null goes back to the shared key.',
      }),
    }),
  },
  {
    description: 'Changes the fields given.',
    resolve: async (_root, { input: { id, ...input } }, ctx) => ({ bot: await updateBot({ ctx: adminScope(ctx), id, input }) }),
  },
  { subGraphs: ['admin'], outputFields: (t) => ({ bot: t.expose('bot', { type: Bot }) }) },
)

builder.relayMutationField(
  'deleteBot',
  { subGraphs: ['admin'], inputFields: (t) => ({ id: t.string({ required: true }) }) },
  {
    description: 'Deletes the bot with its chat integration, users, conversations and logs.',
    resolve: async (_root, { input: { id } }, ctx) => {
      await deleteBot({ ctx: adminScope(ctx), id })
      return { botId: id }
    },
  },
  { subGraphs: ['admin'], outputFields: (t) => ({ botId: t.exposeString('botId') }) },
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
