import {
  CreateConversationDocument,
  DeleteConversationDocument,
  GetConversationDocument,
  GetOrCreateConversationDocument,
  ListConversationsDocument,
  StartTypingDocument,
  StopTypingDocument,
} from '../../__generated__/chat-operations.ts'
import { compact, compactMessage, toMeta } from '../bodies.ts'
import { route } from '../route.ts'
import { Conversation, ConversationWithLastMessage, Empty, Meta } from './resources.ts'
import { z } from 'zod'

export const conversationRoutes = [
  route({
    operation: 'createConversation',
    summary: 'Creates a conversation the caller owns.',
    returns: z.object({ conversation: Conversation }),
    method: 'POST',
    path: '/conversations',
    document: CreateConversationDocument,
    response: (d) => ({ conversation: d.createConversation.conversation }),
  }),
  route({
    operation: 'getConversation',
    summary: 'A conversation the caller takes part in.',
    returns: z.object({ conversation: Conversation }),
    method: 'GET',
    path: '/conversations/{id}',
    document: GetConversationDocument,
    response: (d) => ({ conversation: d.conversation }),
  }),
  route({
    operation: 'getOrCreateConversation',
    summary: 'The conversation with this id, created if it does not exist.',
    returns: z.object({ conversation: Conversation }),
    method: 'POST',
    path: '/conversations/get-or-create',
    document: GetOrCreateConversationDocument,
    response: (d) => ({ conversation: d.getOrCreateConversation.conversation }),
  }),
  route({
    operation: 'listConversations',
    summary: 'The conversations the caller takes part in, a page at a time.',
    query: { nextToken: 'after' },
    returns: z.object({ conversations: z.array(ConversationWithLastMessage), meta: Meta }),
    method: 'GET',
    path: '/conversations',
    document: ListConversationsDocument,
    response: (d) => ({
      conversations: d.conversations.edges.map(({ node: { lastMessage, ...conversation } }) =>
        compact({ ...conversation, lastMessage: lastMessage && compactMessage(lastMessage) }),
      ),
      meta: toMeta(d.conversations),
    }),
  }),
  route({
    operation: 'deleteConversation',
    summary: 'Deletes a conversation the caller owns.',
    returns: Empty,
    method: 'DELETE',
    path: '/conversations/{id}',
    document: DeleteConversationDocument,
    response: () => ({}),
  }),
  route({
    operation: 'startTyping',
    summary: 'Tells the other participants the caller is typing.',
    returns: Empty,
    method: 'POST',
    path: '/conversations/{id}/typing',
    document: StartTypingDocument,
    response: () => ({}),
  }),
  route({
    operation: 'stopTyping',
    summary: 'Tells the other participants the caller stopped typing.',
    returns: Empty,
    method: 'DELETE',
    path: '/conversations/{id}/typing',
    document: StopTypingDocument,
    response: () => ({}),
  }),
]
