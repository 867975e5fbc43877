import type { BotRow } from '../../db/schema.ts'
import { getBotSetup } from '../../domain/bots/admin/bots.ts'
import { builder } from '../builder.ts'
import { adminScope, type GraphQLContext } from '../context.ts'

/** The bot's setup, read once per request whichever of its fields are asked for. */
export const setupOf = (bot: BotRow, ctx: GraphQLContext) => getBotSetup({ ctx: adminScope(ctx), id: bot.id })

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

export const BotIntegrations = builder.objectRef<BotRow>('BotIntegrations').implement({
  subGraphs: ['admin'],
  fields: (t) => ({ chat: t.field({ type: ChatIntegration, resolve: (bot) => bot }) }),
})
