import {
  CreateConversationDocument,
  DeleteConversationDocument,
  GetConversationDocument,
  GetOrCreateConversationDocument,
  ListConversationsDocument,
  StartTypingDocument,
  StopTypingDocument,
} from '../../__generated__/chat-operations.ts'
import { nodes, stringParam, toMeta } from '../bodies.ts'
import { route } from '../route.ts'

export const conversationRoutes = [
  route({
    operation: 'createConversation',
    method: 'POST',
    path: '/conversations',
    document: CreateConversationDocument,
    response: (d) => ({ conversation: d.createConversation.conversation }),
  }),
  route({
    operation: 'getConversation',
    method: 'GET',
    path: '/conversations/{id}',
    document: GetConversationDocument,
    response: (d) => ({ conversation: d.conversation }),
  }),
  route({
    operation: 'getOrCreateConversation',
    method: 'POST',
    path: '/conversations/get-or-create',
    document: GetOrCreateConversationDocument,
    response: (d) => ({ conversation: d.getOrCreateConversation.conversation }),
  }),
  route({
    operation: 'listConversations',
    method: 'GET',
    path: '/conversations',
    document: ListConversationsDocument,
    variables: ({ query }) => ({ after: stringParam(query, 'nextToken') }),
    response: (d) => ({ conversations: nodes(d.conversations), meta: toMeta(d.conversations) }),
  }),
  route({
    operation: 'deleteConversation',
    method: 'DELETE',
    path: '/conversations/{id}',
    document: DeleteConversationDocument,
    response: () => ({}),
  }),
  route({
    operation: 'startTyping',
    method: 'POST',
    path: '/conversations/{id}/typing',
    document: StartTypingDocument,
    response: () => ({}),
  }),
  route({
    operation: 'stopTyping',
    method: 'DELETE',
    path: '/conversations/{id}/typing',
    document: StopTypingDocument,
    response: () => ({}),
  }),
]
