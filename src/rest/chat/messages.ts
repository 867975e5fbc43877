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
import { compactMessage, toMeta } from '../bodies.ts'
import { route } from '../route.ts'
import { Empty, Message, Meta } from './resources.ts'
import { z } from 'zod'

export const messageRoutes = [
  route({
    operation: 'createMessage',
    summary: 'Posts a message in a conversation.',
    returns: z.object({ message: Message }),
    method: 'POST',
    path: '/messages',
    document: CreateMessageDocument,
    mapBody: (body) => ('payload' in body ? { ...body, payload: payloadToInput(body.payload) } : body),
    response: (d) => ({ message: compactMessage(d.createMessage.message) }),
  }),
  route({
    operation: 'getMessage',
    summary: 'A message of a conversation the caller takes part in.',
    returns: z.object({ message: Message }),
    method: 'GET',
    path: '/messages/{id}',
    document: GetMessageDocument,
    response: (d) => ({ message: compactMessage(d.message) }),
  }),
  route({
    operation: 'updateMessage',
    summary: 'Replaces the payload (and metadata) of a message the caller posted.',
    returns: z.object({ message: Message }),
    method: 'PUT',
    path: '/messages/{id}',
    document: UpdateMessageDocument,
    mapBody: (body) => ('payload' in body ? { ...body, payload: payloadToInput(body.payload) } : body),
    response: (d) => ({ message: compactMessage(d.updateMessage.message) }),
  }),
  route({
    operation: 'addMessageFeedback',
    summary: 'Gives feedback on a message.',
    returns: Empty,
    method: 'PUT',
    path: '/messages/{id}/feedback',
    document: AddMessageFeedbackDocument,
    response: () => ({}),
  }),
  route({
    operation: 'removeMessageFeedback',
    summary: 'Withdraws the feedback given on a message.',
    returns: Empty,
    method: 'DELETE',
    path: '/messages/{id}/feedback',
    document: RemoveMessageFeedbackDocument,
    response: () => ({}),
  }),
  route({
    operation: 'deleteMessage',
    summary: 'Deletes a message the caller posted.',
    returns: Empty,
    method: 'DELETE',
    path: '/messages/{id}',
    document: DeleteMessageDocument,
    response: () => ({}),
  }),
  route({
    operation: 'listMessages',
    summary: 'The messages of a conversation, newest first, a page at a time.',
    query: { nextToken: 'after' },
    returns: z.object({ messages: z.array(Message), meta: Meta }),
    method: 'GET',
    path: '/conversations/{conversationId}/messages',
    document: ListMessagesDocument,
    response: (d) => ({ messages: d.conversation.messages.edges.map((edge) => compactMessage(edge.node)), meta: toMeta(d.conversation.messages) }),
  }),
]
