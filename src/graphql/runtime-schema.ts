import SchemaBuilder from '@pothos/core'
import { lexicographicSortSchema } from 'graphql'
import { JSONObjectResolver } from 'graphql-scalars'
import * as runtime from '../domain/runtime.ts'
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

type Verb = (ctx: runtime.RuntimeContext, input: Record<string, unknown>) => Promise<Record<string, unknown>>

const reads: Record<string, Verb> = {
  getConversation: runtime.getRuntimeConversation,
  listConversations: runtime.listRuntimeConversations,
  getUser: runtime.getRuntimeUser,
  listParticipants: runtime.listRuntimeParticipants,
  getMessage: runtime.getRuntimeMessage,
  listMessages: runtime.listRuntimeMessages,
  getEvent: runtime.getRuntimeEvent,
  getState: runtime.getRuntimeState,
}

const writes: Record<string, Verb> = {
  createConversation: runtime.createRuntimeConversation,
  getOrCreateConversation: runtime.getOrCreateRuntimeConversation,
  createUser: runtime.createRuntimeUser,
  getOrCreateUser: runtime.getOrCreateRuntimeUser,
  updateUser: runtime.updateRuntimeUser,
  updateMessage: runtime.updateRuntimeMessage,
  addParticipant: runtime.addRuntimeParticipant,
  removeParticipant: runtime.removeRuntimeParticipant,
  createMessage: runtime.createRuntimeMessage,
  deleteMessage: runtime.deleteRuntimeMessage,
  createEvent: runtime.createRuntimeEvent,
  setState: runtime.setRuntimeState,
  getOrSetState: runtime.getOrSetRuntimeState,
  patchState: runtime.patchRuntimeState,
  deleteState: runtime.deleteRuntimeState,
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
