import type { BotRow } from '../../db/schema.ts'
import { getBot, listBots } from '../../domain/bots.ts'
import { builder } from '../builder.ts'
import { adminScope } from '../context.ts'
import { visibleOrNull } from '../nodes.ts'
import { pageConnection } from '../paging.ts'

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
