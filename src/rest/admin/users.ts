import { DeleteBotUserDocument, ExportBotUserDocument, ListBotConversationsDocument, ListBotUsersDocument } from '../../__generated__/admin-operations.ts'
import { nodes, toMeta } from '../bodies.ts'
import { Empty } from '../chat/resources.ts'
import { route } from '../route.ts'
import { BotConversationList, BotUserExport, BotUserList } from './resources.ts'

/** A bot's users and conversations, as its administrator reads, exports and deletes them. */
export const botUserRoutes = [
  route({
    operation: 'listBotUsers',
    summary: "The users of a bot's chat integration (its own user aside), newest first, a page at a time.",
    query: { nextToken: 'after', pageSize: 'first' },
    returns: BotUserList,
    method: 'GET',
    path: '/bots/{id}/users',
    document: ListBotUsersDocument,
    response: (d) => ({ users: nodes(d.botUsers), meta: toMeta(d.botUsers) }),
  }),
  route({
    operation: 'listBotConversations',
    summary: "The conversations of a bot's chat integration, newest first, a page at a time.",
    query: { nextToken: 'after', pageSize: 'first' },
    returns: BotConversationList,
    method: 'GET',
    path: '/bots/{id}/conversations',
    document: ListBotConversationsDocument,
    response: (d) => ({ conversations: nodes(d.botConversations), meta: toMeta(d.botConversations) }),
  }),
  route({
    operation: 'exportBotUser',
    summary: 'Everything Confab holds about one user of the bot, as JSON.',
    returns: BotUserExport,
    method: 'GET',
    path: '/bots/{id}/users/{userId}/export',
    document: ExportBotUserDocument,
    response: (d) => d.botUserExport,
  }),
  route({
    operation: 'deleteBotUser',
    summary: 'Deletes a user of the bot with every row that holds its content; its id cannot be used again.',
    returns: Empty,
    method: 'DELETE',
    path: '/bots/{id}/users/{userId}',
    document: DeleteBotUserDocument,
    response: () => ({}),
  }),
]
