import SchemaBuilder from '@pothos/core'
import { lexicographicSortSchema } from 'graphql'
import { JSONObjectResolver } from 'graphql-scalars'
import * as actions from '../domain/bot-api/actions.ts'
import * as analytics from '../domain/bot-api/analytics.ts'
import type { BotApiContext } from '../domain/bot-api/context.ts'
import * as conversations from '../domain/bot-api/conversations.ts'
import * as events from '../domain/bot-api/events.ts'
import * as messages from '../domain/bot-api/messages.ts'
import * as participants from '../domain/bot-api/participants.ts'
import * as states from '../domain/bot-api/states.ts'
import * as tags from '../domain/bot-api/tags.ts'
import * as users from '../domain/bot-api/users.ts'
import type { GraphQLContext } from './context.ts'
import { botApiScope } from './context.ts'

/*
 * The bot API scope (/v1/chat/…): the operations of @botpress/client a bot calls back with, served
 * as REST only. Each field takes the operation's input (path, query and body, as the client sends
 * them) and answers the client's response body; the shapes are Botpress's, checked in the domain.
 */
const builder = new SchemaBuilder<{
  Context: GraphQLContext
  DefaultFieldNullability: false
  Scalars: { JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> } }
}>({ defaultFieldNullability: false })

builder.addScalarType('JSONObject', JSONObjectResolver)

type Verb = (ctx: BotApiContext, input: Record<string, unknown>) => Promise<Record<string, unknown>>

const reads: Record<string, Verb> = {
  getConversation: conversations.getBotApiConversation,
  listConversations: conversations.listBotApiConversations,
  getUser: users.getBotApiUser,
  listParticipants: participants.listBotApiParticipants,
  getMessage: messages.getBotApiMessage,
  listMessages: messages.listBotApiMessages,
  getEvent: events.getBotApiEvent,
  getState: states.getBotApiState,
  getParticipant: participants.getBotApiParticipant,
  listUsers: users.listBotApiUsers,
  listEvents: events.listBotApiEvents,
  listTagValues: tags.listBotApiTagValues,
}

const writes: Record<string, Verb> = {
  createConversation: conversations.createBotApiConversation,
  getOrCreateConversation: conversations.getOrCreateBotApiConversation,
  createUser: users.createBotApiUser,
  getOrCreateUser: users.getOrCreateBotApiUser,
  updateUser: users.updateBotApiUser,
  updateMessage: messages.updateBotApiMessage,
  addParticipant: participants.addBotApiParticipant,
  removeParticipant: participants.removeBotApiParticipant,
  createMessage: messages.createBotApiMessage,
  deleteMessage: messages.deleteBotApiMessage,
  createEvent: events.createBotApiEvent,
  setState: states.setBotApiState,
  getOrSetState: states.getOrSetBotApiState,
  patchState: states.patchBotApiState,
  deleteState: states.deleteBotApiState,
  callAction: actions.callBotApiAction,
  setStateExpiry: states.setBotApiStateExpiry,
  updateConversation: conversations.updateBotApiConversation,
  deleteConversation: conversations.deleteBotApiConversation,
  deleteUser: users.deleteBotApiUser,
  getOrCreateMessage: messages.getOrCreateBotApiMessage,
  trackAnalytics: analytics.trackBotApiAnalytics,
}

builder.queryType()
builder.mutationType()

for (const [verbs, define] of [
  [reads, builder.queryField.bind(builder)],
  [writes, builder.mutationField.bind(builder)],
] as const) {
  for (const [name, verb] of Object.entries(verbs)) {
    define(name, (t) =>
      t.field({
        type: 'JSONObject',
        args: { input: t.arg({ type: 'JSONObject', required: true }) },
        resolve: (_root, { input }, ctx) => verb(botApiScope(ctx), input),
      }),
    )
  }
}

export const botApiSchema = lexicographicSortSchema(builder.toSchema())
