import {
  AddMessageFeedbackDocument,
  CreateMessageDocument,
  DeleteMessageDocument,
  GetMessageDocument,
  ListMessagesDocument,
  RemoveMessageFeedbackDocument,
  UpdateMessageDocument,
} from '../../__generated__/chat-operations.ts'
import { payloadToInput } from '../../graphql/types/payload-input.ts'
import { compactMessage, stringParam, toMeta } from '../bodies.ts'
import { route } from '../route.ts'

export const messageRoutes = [
  route({
    operation: 'createMessage',
    method: 'POST',
    path: '/messages',
    document: CreateMessageDocument,
    mapBody: (body) => ('payload' in body ? { ...body, payload: payloadToInput(body.payload) } : body),
    response: (d) => ({ message: compactMessage(d.createMessage.message) }),
  }),
  route({
    operation: 'getMessage',
    method: 'GET',
    path: '/messages/{id}',
    document: GetMessageDocument,
    response: (d) => ({ message: compactMessage(d.message) }),
  }),
  route({
    operation: 'updateMessage',
    method: 'PUT',
    path: '/messages/{id}',
    document: UpdateMessageDocument,
    mapBody: (body) => ('payload' in body ? { ...body, payload: payloadToInput(body.payload) } : body),
    response: (d) => ({ message: compactMessage(d.updateMessage.message) }),
  }),
  route({
    operation: 'addMessageFeedback',
    method: 'PUT',
    path: '/messages/{id}/feedback',
    document: AddMessageFeedbackDocument,
    response: () => ({}),
  }),
  route({
    operation: 'removeMessageFeedback',
    method: 'DELETE',
    path: '/messages/{id}/feedback',
    document: RemoveMessageFeedbackDocument,
    response: () => ({}),
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
    response: (d) => ({ messages: d.conversation.messages.edges.map((edge) => compactMessage(edge.node)), meta: toMeta(d.conversation.messages) }),
  }),
]
