import type { EventRow } from '../../db/schema.ts'
import { createEvent, getEvent } from '../../domain/events.ts'
import { getConversation } from '../../domain/conversations.ts'
import { loadUser } from '../../domain/loaders.ts'
import { builder } from '../builder.ts'
import { chatScope } from '../context.ts'
import { visibleOrNull } from '../nodes.ts'
import { Conversation } from './conversation.ts'
import { User } from './user.ts'

export const Event = builder.node(builder.objectRef<EventRow>('Event'), {
  subGraphs: ['chat'],
  description: 'A custom event: a free-form payload posted in a conversation.',
  id: { resolve: (event) => event.id },
  loadOne: (id, ctx) => visibleOrNull(() => getEvent({ ctx: chatScope(ctx), id })),
  fields: (t) => ({
    eventId: t.exposeString('id', { description: 'The event id of the Chat API.' }),
    conversationId: t.exposeString('conversationId'),
    userId: t.exposeString('userId'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    payload: t.expose('payload', { type: 'JSONObject' }),
    user: t.field({ type: User, resolve: (event, _args, ctx) => loadUser(chatScope(ctx), event.userId) }),
    conversation: t.field({
      type: Conversation,
      resolve: (event, _args, ctx) => getConversation({ ctx: chatScope(ctx), id: event.conversationId }),
    }),
  }),
})

builder.queryField('event', (t) =>
  t.field({
    subGraphs: ['chat'],
    type: Event,
    args: { id: t.arg.string({ required: true, description: 'The event id of the Chat API.' }) },
    resolve: (_root, { id }, ctx) => getEvent({ ctx: chatScope(ctx), id }),
  }),
)

builder.relayMutationField(
  'createEvent',
  {
    subGraphs: ['chat'],
    inputFields: (t) => ({
      conversationId: t.string({ required: true }),
      payload: t.field({ type: 'JSONObject', required: true }),
      bindConversation: t.boolean({ description: "The official web chat's flag; accepted, events are always of their conversation." }),
      bindUser: t.boolean({ description: "The official web chat's flag; accepted, events are always of their user." }),
    }),
  },
  {
    description: 'Posts a custom event in a conversation the caller participates in.',
    resolve: async (_root, { input: { conversationId, payload } }, ctx) => ({
      event: await createEvent({ ctx: chatScope(ctx), input: { conversationId, payload } }),
    }),
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ event: t.expose('event', { type: Event }) }) },
)
