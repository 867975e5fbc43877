import { createBotApiKey, deleteBotApiKey, listBotApiKeys } from '../../domain/bots/admin/api-keys.ts'
import { builder } from '../builder.ts'
import { adminScope } from '../context.ts'

const BotApiKey = builder.objectRef<{ id: string; createdAt: string; note: string | null; value: string }>('BotApiKey').implement({
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

builder.relayMutationField(
  'createBotApiKey',
  {
    subGraphs: ['admin'],
    inputFields: (t) => ({ botId: t.string({ required: true }), note: t.string() }),
  },
  {
    description: 'A new API key of a bot; its value is shown this once.',
    resolve: async (_root, { input }, ctx) => ({ botApiKey: await createBotApiKey({ ctx: adminScope(ctx), input }) }),
  },
  { subGraphs: ['admin'], outputFields: (t) => ({ botApiKey: t.expose('botApiKey', { type: BotApiKey }) }) },
)

builder.relayMutationField(
  'deleteBotApiKey',
  { subGraphs: ['admin'], inputFields: (t) => ({ id: t.string({ required: true }) }) },
  {
    description: 'Deletes a bot API key.',
    resolve: async (_root, { input: { id } }, ctx) => {
      await deleteBotApiKey({ ctx: adminScope(ctx), id })
      return { botApiKeyId: id }
    },
  },
  { subGraphs: ['admin'], outputFields: (t) => ({ botApiKeyId: t.exposeString('botApiKeyId') }) },
)
