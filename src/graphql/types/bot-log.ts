import type { BotLogRow } from '../../db/schema.ts'
import { getBotLogs } from '../../domain/bots/admin/logs.ts'
import { builder } from '../builder.ts'
import { adminScope } from '../context.ts'
import { pageConnection } from '../paging.ts'

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
      pageConnection(args, (window) => getBotLogs({ ctx: adminScope(ctx), id, query: { timeStart, timeEnd, conversationId, userId, level }, window })),
  }),
)
