import { createBotApiKey, deleteBotApiKey, listBotApiKeys } from '../../domain/bots/admin/api-keys.ts'
import { builder } from '../builder.ts'
import { adminScope } from '../context.ts'

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
