import {
  AddParticipantDocument,
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
} from '../../__generated__/runtime-operations.ts'
import { type Method, route } from '../route.ts'
import type { TypedDocumentNode } from '@graphql-typed-document-node/core'

/**
 * An operation of the runtime API as @botpress/client calls it: its input is the path parameters,
 * the query parameters and the JSON body together, and its response body is the operation's result.
 */
const runtimeRoute = <TName extends string>(
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

/** Every runtime operation, relative to /v1/chat. */
export const runtimeRoutes = [
  runtimeRoute('createConversation', 'POST', '/conversations', CreateConversationDocument),
  runtimeRoute('getOrCreateConversation', 'POST', '/conversations/get-or-create', GetOrCreateConversationDocument),
  runtimeRoute('listConversations', 'GET', '/conversations', ListConversationsDocument),
  runtimeRoute('getConversation', 'GET', '/conversations/{id}', GetConversationDocument),
  runtimeRoute('createUser', 'POST', '/users', CreateUserDocument),
  runtimeRoute('getOrCreateUser', 'POST', '/users/get-or-create', GetOrCreateUserDocument),
  runtimeRoute('getUser', 'GET', '/users/{id}', GetUserDocument),
  runtimeRoute('updateUser', 'PUT', '/users/{id}', UpdateUserDocument),
  runtimeRoute('listParticipants', 'GET', '/conversations/{id}/participants', ListParticipantsDocument),
  runtimeRoute('addParticipant', 'POST', '/conversations/{id}/participants', AddParticipantDocument),
  runtimeRoute('removeParticipant', 'DELETE', '/conversations/{id}/participants/{userId}', RemoveParticipantDocument),
  runtimeRoute('createMessage', 'POST', '/messages', CreateMessageDocument),
  runtimeRoute('getMessage', 'GET', '/messages/{id}', GetMessageDocument),
  runtimeRoute('listMessages', 'GET', '/messages', ListMessagesDocument),
  runtimeRoute('updateMessage', 'PUT', '/messages/{id}', UpdateMessageDocument),
  runtimeRoute('deleteMessage', 'DELETE', '/messages/{id}', DeleteMessageDocument),
  runtimeRoute('createEvent', 'POST', '/events', CreateEventDocument),
  runtimeRoute('getEvent', 'GET', '/events/{id}', GetEventDocument),
  runtimeRoute('getState', 'GET', '/states/{type}/{id}/{name}', GetStateDocument),
  runtimeRoute('setState', 'POST', '/states/{type}/{id}/{name}', SetStateDocument),
  runtimeRoute('getOrSetState', 'POST', '/states/{type}/{id}/{name}/get-or-set', GetOrSetStateDocument),
  runtimeRoute('patchState', 'PATCH', '/states/{type}/{id}/{name}', PatchStateDocument),
  runtimeRoute('deleteState', 'DELETE', '/states/{type}/{id}/{name}', DeleteStateDocument),
]
