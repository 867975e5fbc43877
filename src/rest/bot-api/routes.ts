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
import { z } from 'zod'
import { botApiInputs } from '../../contracts/bot-api-inputs.ts'
import { BotConversation, BotEvent, BotMessage, BotState, BotUser } from './resources.ts'

const resources: Record<string, z.ZodType> = { Conversation: BotConversation, User: BotUser, Message: BotMessage, Event: BotEvent, State: BotState }
const resource = (name: string) => resources[name] as z.ZodType
const one = (name: string) => z.looseObject({ [name.toLowerCase()]: resource(name) })
const page = (name: string, key: string) => z.looseObject({ [key]: z.array(resource(name)), meta: z.object({ nextToken: z.string().optional() }) })
const nothing = z.object({})

/**
 * An operation of the bot API as @botpress/client calls it: its input is the path parameters,
 * the query parameters and the JSON body together, and its response body is the operation's result.
 */
const botApiRoute = <TName extends keyof typeof botApiInputs>(
  operation: TName,
  method: Method,
  path: string,
  document: TypedDocumentNode<{ [K in TName]: Record<string, unknown> }, { input: Record<string, unknown> }>,
  summary: string,
  returns: z.ZodType,
) =>
  route({
    operation,
    summary,
    returns,
    method,
    path,
    document,
    body: z.looseObject({}),
    input: botApiInputs[operation],
    variables: ({ params, query, body }) => ({ input: { ...body, ...Object.fromEntries(query), ...params } }),
    response: (d) => d[operation],
  })

/** Every bot API operation, relative to /v1/chat. */
export const botApiRoutes = [
  botApiRoute(
    'createConversation',
    'POST',
    '/conversations',
    CreateConversationDocument,
    'Creates a conversation (its id may be chosen by `tags.id`).',
    one('Conversation'),
  ),
  botApiRoute(
    'getOrCreateConversation',
    'POST',
    '/conversations/get-or-create',
    GetOrCreateConversationDocument,
    'The conversation `tags.id` names, created if it does not exist.',
    one('Conversation'),
  ),
  botApiRoute(
    'listConversations',
    'GET',
    '/conversations',
    ListConversationsDocument,
    'The conversations of the bot, a page at a time.',
    page('Conversation', 'conversations'),
  ),
  botApiRoute('getConversation', 'GET', '/conversations/{id}', GetConversationDocument, 'A conversation of the bot.', one('Conversation')),
  botApiRoute('createUser', 'POST', '/users', CreateUserDocument, 'Creates a user (its id may be chosen by `tags.id`).', one('User')),
  botApiRoute(
    'getOrCreateUser',
    'POST',
    '/users/get-or-create',
    GetOrCreateUserDocument,
    'The user `tags.id` names, created if it does not exist.',
    one('User'),
  ),
  botApiRoute('getUser', 'GET', '/users/{id}', GetUserDocument, 'A user of the bot.', one('User')),
  botApiRoute('updateUser', 'PUT', '/users/{id}', UpdateUserDocument, 'Updates a user.', one('User')),
  botApiRoute(
    'listParticipants',
    'GET',
    '/conversations/{id}/participants',
    ListParticipantsDocument,
    'The participants of a conversation, a page at a time.',
    page('User', 'participants'),
  ),
  botApiRoute(
    'addParticipant',
    'POST',
    '/conversations/{id}/participants',
    AddParticipantDocument,
    'Adds a user to a conversation.',
    z.looseObject({ participant: resource('User') }),
  ),
  botApiRoute(
    'removeParticipant',
    'DELETE',
    '/conversations/{id}/participants/{userId}',
    RemoveParticipantDocument,
    'Removes a user from a conversation.',
    nothing,
  ),
  botApiRoute('createMessage', 'POST', '/messages', CreateMessageDocument, 'Posts a message as the bot.', one('Message')),
  botApiRoute('getMessage', 'GET', '/messages/{id}', GetMessageDocument, 'A message of the bot.', one('Message')),
  botApiRoute('listMessages', 'GET', '/messages', ListMessagesDocument, 'The messages of a conversation, a page at a time.', page('Message', 'messages')),
  botApiRoute('updateMessage', 'PUT', '/messages/{id}', UpdateMessageDocument, 'Updates a message of the bot.', one('Message')),
  botApiRoute('deleteMessage', 'DELETE', '/messages/{id}', DeleteMessageDocument, 'Deletes a message.', nothing),
  botApiRoute('createEvent', 'POST', '/events', CreateEventDocument, 'Creates an event in a conversation.', one('Event')),
  botApiRoute('getEvent', 'GET', '/events/{id}', GetEventDocument, 'An event of the bot.', one('Event')),
  botApiRoute('getState', 'GET', '/states/{type}/{id}/{name}', GetStateDocument, 'A state of a conversation, a user or the bot.', one('State')),
  botApiRoute('setState', 'POST', '/states/{type}/{id}/{name}', SetStateDocument, 'Sets a state.', one('State')),
  botApiRoute(
    'getOrSetState',
    'POST',
    '/states/{type}/{id}/{name}/get-or-set',
    GetOrSetStateDocument,
    'A state, set to the payload sent if it does not exist.',
    z.looseObject({ state: resource('State'), meta: z.record(z.string(), z.unknown()).optional() }),
  ),
  botApiRoute('patchState', 'PATCH', '/states/{type}/{id}/{name}', PatchStateDocument, 'Merges the payload sent into a state.', one('State')),
  botApiRoute('deleteState', 'DELETE', '/states/{type}/{id}/{name}', DeleteStateDocument, 'Deletes a state.', nothing),
  botApiRoute(
    'callAction',
    'POST',
    '/actions',
    CallActionDocument,
    'Calls an action of an integration: `chat:sendEvent` sends an event to the chat users.',
    z.looseObject({ output: z.record(z.string(), z.unknown()), meta: z.record(z.string(), z.unknown()).optional() }),
  ),
]
