import {
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
  UpdateBotDocument,
} from '../../__generated__/admin-operations.ts'
import { compact, nodes, toMeta } from '../bodies.ts'
import { Empty } from '../chat/resources.ts'
import { route } from '../route.ts'
import { Bot, BotApiKey, BotList, BotLogPage, CreatedBot } from './resources.ts'
import { z } from 'zod'

type BotBody = GetBotQuery['bot']

/**
 * A bot as @botpress/client reads it: its chat integration carries `configuration` as Botpress'
 * does, with what may be shown of it (its webhookUrl, whether a webhookSecret is set: neither the
 * shared nor a personal encryption key, nor the secret, is ever shown), and `encryptionMode` says
 * which key signs its user keys.
 */
const botBody = (bot: BotBody) => {
  const chat = bot.integrations.chat
  return compact({ ...bot, integrations: { chat: { ...chat, configuration: compact(chat.configuration) } } })
}

export const botRoutes = [
  route({
    operation: 'listBots',
    summary: 'The bots of the workspace, a page at a time.',
    query: { nextToken: 'after', pageSize: 'first', sortField: 'sortField', sortDirection: 'sortDirection' },
    returns: BotList,
    method: 'GET',
    path: '/bots',
    document: ListBotsDocument,
    response: (d) => ({ bots: nodes(d.bots), meta: toMeta(d.bots) }),
  }),
  route({
    operation: 'createBot',
    summary: 'Creates a bot with its chat integration; its signing secret is in this answer only (rotateBotSigningSecrets makes a new one).',
    returns: z.object({ bot: CreatedBot }),
    method: 'POST',
    path: '/bots',
    document: CreateBotDocument,
    response: (d) => ({ bot: { ...botBody(d.createBot.bot), signingSecret: d.createBot.signingSecret } }),
  }),
  route({
    operation: 'listBotApiKeys',
    summary: 'The API keys of a bot (never their values).',
    query: { botId: 'botId' },
    returns: z.object({ baks: z.array(BotApiKey) }),
    method: 'GET',
    path: '/bots/baks',
    document: ListBotApiKeysDocument,
    response: (d) => ({ baks: d.botApiKeys.map(compact) }),
  }),
  route({
    operation: 'createBotApiKey',
    summary: 'Creates an API key for a bot; its value is shown this once.',
    returns: BotApiKey.extend({ value: z.string() }),
    method: 'POST',
    path: '/bots/baks',
    document: CreateBotApiKeyDocument,
    response: (d) => compact(d.createBotApiKey.botApiKey),
  }),
  route({
    operation: 'deleteBotApiKey',
    summary: 'Revokes a bot API key.',
    returns: Empty,
    method: 'DELETE',
    path: '/bots/baks/{id}',
    document: DeleteBotApiKeyDocument,
    response: () => ({}),
  }),
  route({
    operation: 'getBot',
    summary: 'A bot of the workspace (never its signing secret; its url without credentials).',
    returns: z.object({ bot: Bot }),
    method: 'GET',
    path: '/bots/{id}',
    document: GetBotDocument,
    response: (d) => ({ bot: botBody(d.bot) }),
  }),
  route({
    operation: 'updateBot',
    summary: 'Updates a bot.',
    returns: z.object({ bot: Bot }),
    method: 'PUT',
    path: '/bots/{id}',
    document: UpdateBotDocument,
    response: (d) => ({ bot: botBody(d.updateBot.bot) }),
  }),
  route({
    operation: 'deleteBot',
    summary: 'Deletes a bot and its chat integration.',
    returns: Empty,
    method: 'DELETE',
    path: '/bots/{id}',
    document: DeleteBotDocument,
    response: () => ({}),
  }),
  route({
    operation: 'rotateBotSigningSecrets',
    summary: 'A new signing secret; the old one stays valid for an overlap.',
    returns: z.object({ newSigningSecret: z.string() }),
    method: 'POST',
    path: '/bots/{id}/signing-secrets/rotate',
    document: RotateBotSigningSecretsDocument,
    response: (d) => d.rotateBotSigningSecrets,
  }),
  route({
    operation: 'getBotLogs',
    summary: 'The log lines of a bot between two times, a page at a time.',
    query: { timeStart: 'timeStart', timeEnd: 'timeEnd', conversationId: 'conversationId', userId: 'userId', level: 'level', nextToken: 'after' },
    returns: BotLogPage,
    method: 'GET',
    path: '/bots/{id}/logs',
    document: GetBotLogsDocument,
    response: (d) => ({ logs: nodes(d.botLogs), ...toMeta(d.botLogs) }),
  }),
]
