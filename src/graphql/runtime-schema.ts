import SchemaBuilder from '@pothos/core'
import { lexicographicSortSchema } from 'graphql'
import { JSONObjectResolver } from 'graphql-scalars'
import type { RuntimeContext } from '../domain/runtime/context.ts'
import * as conversations from '../domain/runtime/conversations.ts'
import * as events from '../domain/runtime/events.ts'
import * as messages from '../domain/runtime/messages.ts'
import * as participants from '../domain/runtime/participants.ts'
import * as states from '../domain/runtime/states.ts'
import * as users from '../domain/runtime/users.ts'
import type { GraphQLContext } from './context.ts'
import { runtimeScope } from './context.ts'

/*
 * The runtime scope (/v1/chat/…): the operations of @botpress/client a bot calls back with, served
 * as REST only. Each field takes the operation's input (path, query and body, as the client sends
 * them) and answers the client's response body; the shapes are Botpress's, checked in the domain.
 */
const builder = new SchemaBuilder<{
  Context: GraphQLContext
  DefaultFieldNullability: false
  Scalars: { JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> } }
}>({ defaultFieldNullability: false })

builder.addScalarType('JSONObject', JSONObjectResolver)

type Verb = (ctx: RuntimeContext, input: Record<string, unknown>) => Promise<Record<string, unknown>>

const reads: Record<string, Verb> = {
  getConversation: conversations.getRuntimeConversation,
  listConversations: conversations.listRuntimeConversations,
  getUser: users.getRuntimeUser,
  listParticipants: participants.listRuntimeParticipants,
  getMessage: messages.getRuntimeMessage,
  listMessages: messages.listRuntimeMessages,
  getEvent: events.getRuntimeEvent,
  getState: states.getRuntimeState,
}

const writes: Record<string, Verb> = {
  createConversation: conversations.createRuntimeConversation,
  getOrCreateConversation: conversations.getOrCreateRuntimeConversation,
  createUser: users.createRuntimeUser,
  getOrCreateUser: users.getOrCreateRuntimeUser,
  updateUser: users.updateRuntimeUser,
  updateMessage: messages.updateRuntimeMessage,
  addParticipant: participants.addRuntimeParticipant,
  removeParticipant: participants.removeRuntimeParticipant,
  createMessage: messages.createRuntimeMessage,
  deleteMessage: messages.deleteRuntimeMessage,
  createEvent: events.createRuntimeEvent,
  setState: states.setRuntimeState,
  getOrSetState: states.getOrSetRuntimeState,
  patchState: states.patchRuntimeState,
  deleteState: states.deleteRuntimeState,
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
        resolve: (_root, { input }, ctx) => verb(runtimeScope(ctx), input),
      }),
    )
  }
}

export const runtimeSchema = lexicographicSortSchema(builder.toSchema())
