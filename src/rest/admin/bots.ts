import {
  type BotSortField,
  CreateBotApiKeyDocument,
  CreateBotDocument,
  DeleteBotApiKeyDocument,
  DeleteBotDocument,
  GetBotDocument,
  GetBotLogsDocument,
  type GetBotQuery,
  ListBotApiKeysDocument,
  ListBotsDocument,
  RotateBotSigningSecretsDocument,
  type SortDirection,
  UpdateBotDocument,
} from '../../__generated__/admin-operations.ts'
import { compact, intParam, nodes, stringParam, toMeta } from '../bodies.ts'
import { route } from '../route.ts'

type BotBody = GetBotQuery['bot']

/**
 * A bot as @botpress/client reads it: its chat integration carries `configuration` as Botpress'
 * does, always empty here (neither the shared nor a personal encryption key is ever shown), and
 * `encryptionMode` says which one signs its user keys.
 */
const botBody = (bot: BotBody) => {
  const chat = bot.integrations.chat
  return compact({ ...bot, integrations: { chat: { ...chat, configuration: {} } } })
}

export const botRoutes = [
  route({
    operation: 'listBots',
    method: 'GET',
    path: '/bots',
    document: ListBotsDocument,
    variables: ({ query }) => ({
      after: stringParam(query, 'nextToken'),
      first: intParam(query, 'pageSize'),
      sortField: stringParam(query, 'sortField') as BotSortField | undefined,
      sortDirection: stringParam(query, 'sortDirection') as SortDirection | undefined,
    }),
    response: (d) => ({ bots: nodes(d.bots), meta: toMeta(d.bots) }),
  }),
  route({
    operation: 'createBot',
    method: 'POST',
    path: '/bots',
    document: CreateBotDocument,
    response: (d) => ({ bot: botBody(d.createBot.bot) }),
  }),
  route({
    operation: 'listBotApiKeys',
    method: 'GET',
    path: '/bots/baks',
    document: ListBotApiKeysDocument,
    variables: ({ query }) => ({ botId: stringParam(query, 'botId') as string }),
    response: (d) => ({ baks: d.botApiKeys.map(compact) }),
  }),
  route({
    operation: 'createBotApiKey',
    method: 'POST',
    path: '/bots/baks',
    document: CreateBotApiKeyDocument,
    response: (d) => compact(d.createBotApiKey.botApiKey),
  }),
  route({
    operation: 'deleteBotApiKey',
    method: 'DELETE',
    path: '/bots/baks/{id}',
    document: DeleteBotApiKeyDocument,
    response: () => ({}),
  }),
  route({
    operation: 'getBot',
    method: 'GET',
    path: '/bots/{id}',
    document: GetBotDocument,
    response: (d) => ({ bot: botBody(d.bot) }),
  }),
  route({
    operation: 'updateBot',
    method: 'PUT',
    path: '/bots/{id}',
    document: UpdateBotDocument,
    response: (d) => ({ bot: botBody(d.updateBot.bot) }),
  }),
  route({
    operation: 'deleteBot',
    method: 'DELETE',
    path: '/bots/{id}',
    document: DeleteBotDocument,
    response: () => ({}),
  }),
  route({
    operation: 'rotateBotSigningSecrets',
    method: 'POST',
    path: '/bots/{id}/signing-secrets/rotate',
    document: RotateBotSigningSecretsDocument,
    response: (d) => d.rotateBotSigningSecrets,
  }),
  route({
    operation: 'getBotLogs',
    method: 'GET',
    path: '/bots/{id}/logs',
    document: GetBotLogsDocument,
    variables: ({ params, query }) => ({
      id: params.id ?? '',
      timeStart: stringParam(query, 'timeStart') as string,
      timeEnd: stringParam(query, 'timeEnd'),
      conversationId: stringParam(query, 'conversationId'),
      userId: stringParam(query, 'userId'),
      level: stringParam(query, 'level'),
      after: stringParam(query, 'nextToken'),
    }),
    response: (d) => ({ logs: nodes(d.botLogs), ...toMeta(d.botLogs) }),
  }),
]
