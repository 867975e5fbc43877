import type { BotRow } from '../../db/schema.ts'
import { getBotSetup } from '../../domain/bots/admin/bots.ts'
import { redactedUrl } from '../../domain/bots/redacted-url.ts'
import { encryptionModeOf } from '../../domain/key-modes.ts'
import { builder } from '../builder.ts'
import { adminScope, type GraphQLContext } from '../context.ts'

/** The bot's setup, read once per request whichever of its fields are asked for. */
export const setupOf = (bot: BotRow, ctx: GraphQLContext) => getBotSetup({ ctx: adminScope(ctx), id: bot.id })

const ChatEncryptionMode = builder.enumType('ChatEncryptionMode', {
  subGraphs: ['admin'],
  description: "How the chat integration's user keys are signed (HS256). No API ever shows either key.",
  values: {
    shared: { description: "With the server's shared key: createUser and the web chat's first visit create users." },
    personal: {
      description: 'With the personal encryption key its operator set and signs user keys with: createUser is refused.',
    },
  },
})

const ChatConfigurationInput = builder.inputType('ChatIntegrationConfigurationInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    encryptionKey: t.string({
      description: 'A personal encryption key (32-1024 characters) to sign user keys with; null or absent goes back to the shared key.',
    }),
    webhookUrl: t.string({
      description:
        "Where every stored signal of the integration is also POSTed (Botpress' webhookUrl); null or absent: none. Not ChatIntegration.webhookUrl, the chat API's base URL.",
    }),
    webhookSecret: t.string({
      description: 'Sent as x-secret-key with each POST to webhookUrl (1-1024 visible ASCII characters); kept sealed, never shown again.',
    }),
  }),
})

const ChatIntegrationConfiguration = builder.objectRef<BotRow>('ChatIntegrationConfiguration').implement({
  subGraphs: ['admin'],
  description: 'What the configuration set, as far as it may be shown: no key nor secret, only whether one is set.',
  fields: (t) => ({
    webhookUrl: t.string({
      nullable: true,
      description: 'Where every stored signal of the integration is also POSTed, its credentials (user:password@) shown as ***; null: none.',
      resolve: async (bot, _args, ctx) => {
        const url = (await setupOf(bot, ctx)).integration.webhookUrl
        return url === null ? null : redactedUrl(url)
      },
    }),
    hasWebhookSecret: t.boolean({
      description: 'Whether a webhookSecret is set (it is never shown).',
      resolve: async (bot, _args, ctx) => (await setupOf(bot, ctx)).integration.webhookSecret !== null,
    }),
  }),
})

const ChatIntegrationInput = builder.inputType('ChatIntegrationInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    enabled: t.boolean({ description: 'The chat integration is always enabled: false is refused.' }),
    configuration: t.field({
      type: ChatConfigurationInput,
      description:
        'Replaces the configuration: an encryptionKey sets personal mode, none goes back to shared; a webhookUrl (and webhookSecret) sets the webhook, none removes it.',
    }),
  }),
})

/** A bot's integrations as createBot and updateBot take them. */
export const BotIntegrationsInput = builder.inputType('BotIntegrationsInput', {
  subGraphs: ['admin'],
  description: "A bot's integrations as @botpress/client sends them: the chat integration only.",
  fields: (t) => ({ chat: t.field({ type: ChatIntegrationInput }) }),
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
    configuration: t.field({ type: ChatIntegrationConfiguration, resolve: (bot) => bot }),
    encryptionMode: t.field({
      type: ChatEncryptionMode,
      description: 'personal once updateBot set a personal encryption key, else shared (the key itself is never shown).',
      resolve: async (bot, _args, ctx) => encryptionModeOf((await setupOf(bot, ctx)).integration),
    }),
  }),
})

export const BotIntegrations = builder.objectRef<BotRow>('BotIntegrations').implement({
  subGraphs: ['admin'],
  fields: (t) => ({ chat: t.field({ type: ChatIntegration, resolve: (bot) => bot }) }),
})
