import {
  DeleteBotUserDocument,
  ExportBotUserDocument,
  ListBotConversationsDocument,
  ListBotUsersDocument,
} from '../../__generated__/admin-operations.ts'
import { intParam, nodes, stringParam, toMeta } from '../bodies.ts'
import { route } from '../route.ts'

/** A bot's users and conversations, as its administrator reads, exports and deletes them. */
export const botUserRoutes = [
  route({
    operation: 'listBotUsers',
    method: 'GET',
    path: '/bots/{id}/users',
    document: ListBotUsersDocument,
    variables: ({ params, query }) => ({
      id: params.id ?? '',
      after: stringParam(query, 'nextToken'),
      first: intParam(query, 'pageSize'),
    }),
    response: (d) => ({ users: nodes(d.botUsers), meta: toMeta(d.botUsers) }),
  }),
  route({
    operation: 'listBotConversations',
    method: 'GET',
    path: '/bots/{id}/conversations',
    document: ListBotConversationsDocument,
    variables: ({ params, query }) => ({
      id: params.id ?? '',
      after: stringParam(query, 'nextToken'),
      first: intParam(query, 'pageSize'),
    }),
    response: (d) => ({ conversations: nodes(d.botConversations), meta: toMeta(d.botConversations) }),
  }),
  route({
    operation: 'exportBotUser',
    method: 'GET',
    path: '/bots/{id}/users/{userId}/export',
    document: ExportBotUserDocument,
    response: (d) => d.botUserExport,
  }),
  route({
    operation: 'deleteBotUser',
    method: 'DELETE',
    path: '/bots/{id}/users/{userId}',
    document: DeleteBotUserDocument,
    response: () => ({}),
  }),
]
