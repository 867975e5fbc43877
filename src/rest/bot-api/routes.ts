import {
  AddParticipantDocument,
  CallActionDocument,
  CreateConversationDocument,
  CreateEventDocument,
  CreateMessageDocument,
  CreateUserDocument,
  DeleteMessageDocument,
  DeleteStateDocument,
  GetConversationDocument,
  GetEventDocument,
  GetMessageDocument,
  GetOrCreateConversationDocument,
  GetOrCreateUserDocument,
  GetOrSetStateDocument,
  GetStateDocument,
  GetUserDocument,
  ListConversationsDocument,
  ListMessagesDocument,
  ListParticipantsDocument,
  PatchStateDocument,
  RemoveParticipantDocument,
  SetStateDocument,
  UpdateMessageDocument,
  UpdateUserDocument,
} from '../../__generated__/bot-api-operations.ts'
import { type Method, route } from '../route.ts'
import type { TypedDocumentNode } from '@graphql-typed-document-node/core'

/**
 * An operation of the bot API as @botpress/client calls it: its input is the path parameters,
 * the query parameters and the JSON body together, and its response body is the operation's result.
 */
const botApiRoute = <TName extends string>(
  operation: TName,
  method: Method,
  path: string,
  document: TypedDocumentNode<{ [K in TName]: Record<string, unknown> }, { input: Record<string, unknown> }>,
) =>
  route({
    operation,
    method,
    path,
    document,
    variables: ({ params, query, body }) => ({ input: { ...body, ...Object.fromEntries(query), ...params } }),
    response: (d) => d[operation],
  })

/** Every bot API operation, relative to /v1/chat. */
export const botApiRoutes = [
  botApiRoute('createConversation', 'POST', '/conversations', CreateConversationDocument),
  botApiRoute('getOrCreateConversation', 'POST', '/conversations/get-or-create', GetOrCreateConversationDocument),
  botApiRoute('listConversations', 'GET', '/conversations', ListConversationsDocument),
  botApiRoute('getConversation', 'GET', '/conversations/{id}', GetConversationDocument),
  botApiRoute('createUser', 'POST', '/users', CreateUserDocument),
  botApiRoute('getOrCreateUser', 'POST', '/users/get-or-create', GetOrCreateUserDocument),
  botApiRoute('getUser', 'GET', '/users/{id}', GetUserDocument),
  botApiRoute('updateUser', 'PUT', '/users/{id}', UpdateUserDocument),
  botApiRoute('listParticipants', 'GET', '/conversations/{id}/participants', ListParticipantsDocument),
  botApiRoute('addParticipant', 'POST', '/conversations/{id}/participants', AddParticipantDocument),
  botApiRoute('removeParticipant', 'DELETE', '/conversations/{id}/participants/{userId}', RemoveParticipantDocument),
  botApiRoute('createMessage', 'POST', '/messages', CreateMessageDocument),
  botApiRoute('getMessage', 'GET', '/messages/{id}', GetMessageDocument),
  botApiRoute('listMessages', 'GET', '/messages', ListMessagesDocument),
  botApiRoute('updateMessage', 'PUT', '/messages/{id}', UpdateMessageDocument),
  botApiRoute('deleteMessage', 'DELETE', '/messages/{id}', DeleteMessageDocument),
  botApiRoute('createEvent', 'POST', '/events', CreateEventDocument),
  botApiRoute('getEvent', 'GET', '/events/{id}', GetEventDocument),
  botApiRoute('getState', 'GET', '/states/{type}/{id}/{name}', GetStateDocument),
  botApiRoute('setState', 'POST', '/states/{type}/{id}/{name}', SetStateDocument),
  botApiRoute('getOrSetState', 'POST', '/states/{type}/{id}/{name}/get-or-set', GetOrSetStateDocument),
  botApiRoute('patchState', 'PATCH', '/states/{type}/{id}/{name}', PatchStateDocument),
  botApiRoute('deleteState', 'DELETE', '/states/{type}/{id}/{name}', DeleteStateDocument),
  botApiRoute('callAction', 'POST', '/actions', CallActionDocument),
]
