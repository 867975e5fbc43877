import {
  CreateMessageDocument,
  DeleteMessageDocument,
  GetMessageDocument,
  ListMessagesDocument,
} from '../../__generated__/chat-operations.ts'
import { payloadToInput } from '../../graphql/types/payload-input.ts'
import { compact, nodes, stringParam, toMeta } from '../bodies.ts'
import { route } from '../route.ts'

export const messageRoutes = [
  route({
    operation: 'createMessage',
    method: 'POST',
    path: '/messages',
    document: CreateMessageDocument,
    mapBody: (body) => ('payload' in body ? { ...body, payload: payloadToInput(body.payload) } : body),
    response: (d) => ({ message: compact(d.createMessage.message) }),
  }),
  route({
    operation: 'getMessage',
    method: 'GET',
    path: '/messages/{id}',
    document: GetMessageDocument,
    response: (d) => ({ message: compact(d.message) }),
  }),
  route({
    operation: 'deleteMessage',
    method: 'DELETE',
    path: '/messages/{id}',
    document: DeleteMessageDocument,
    response: () => ({}),
  }),
  route({
    operation: 'listMessages',
    method: 'GET',
    path: '/conversations/{conversationId}/messages',
    document: ListMessagesDocument,
    variables: ({ params, query }) => ({
      conversationId: params.conversationId ?? '',
      after: stringParam(query, 'nextToken'),
    }),
    response: (d) => ({ messages: nodes(d.conversation.messages), meta: toMeta(d.conversation.messages) }),
  }),
]
