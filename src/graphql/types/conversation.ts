import type { ConversationRow } from '../../db/schema.ts'
import { createConversation, getConversation } from '../../domain/conversations.ts'
import { addParticipant, listParticipants } from '../../domain/participants.ts'
import { getUser } from '../../domain/users.ts'
import { builder } from '../builder.ts'
import { chatScope } from '../context.ts'
import { visibleOrNull } from '../nodes.ts'
import { pageConnection } from '../paging.ts'
import { User } from './user.ts'

export const Conversation = builder.node(builder.objectRef<ConversationRow>('Conversation'), {
  subGraphs: ['chat'],
  description: 'A conversation between users and the bot; only its participants can see it.',
  id: { resolve: (conversation) => conversation.id },
  loadOne: (id, ctx) => visibleOrNull(() => getConversation({ ctx: chatScope(ctx), id })),
  fields: (t) => ({
    conversationId: t.exposeString('id', { description: 'The conversation id of the Chat API.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    owner: t.field({
      type: User,
      description: 'The user who created the conversation.',
      resolve: (conversation, _args, ctx) => getUser(chatScope(ctx), conversation.ownerId),
    }),
    participants: t.connection({
      type: User,
      description: 'The participants, in the order they joined.',
      resolve: (conversation, args, ctx) =>
        pageConnection(args, (window) =>
          listParticipants({ ctx: chatScope(ctx), conversationId: conversation.id, window }),
        ),
    }),
  }),
})

builder.queryField('conversation', (t) =>
  t.field({
    subGraphs: ['chat'],
    type: Conversation,
    args: { id: t.arg.string({ required: true, description: 'The conversation id of the Chat API.' }) },
    resolve: (_root, { id }, ctx) => getConversation({ ctx: chatScope(ctx), id }),
  }),
)

builder.relayMutationField(
  'createConversation',
  {
    subGraphs: ['chat'],
    inputFields: (t) => ({
      id: t.string({ description: 'A chosen id (1-64 of [A-Za-z0-9._:-]); generated when absent.' }),
    }),
  },
  {
    description: 'Creates a conversation owned by the caller, who becomes its first participant.',
    resolve: (_root, args, ctx) => ({
      conversation: createConversation({ ctx: chatScope(ctx), input: args.input ?? {} }),
    }),
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ conversation: t.expose('conversation', { type: Conversation }) }) },
)

builder.relayMutationField(
  'addParticipant',
  {
    subGraphs: ['chat'],
    inputFields: (t) => ({
      conversationId: t.string({ required: true }),
      userId: t.string({ required: true }),
    }),
  },
  {
    description: 'Adds a user of this chat integration to a conversation the caller participates in.',
    resolve: (_root, { input }, ctx) => ({ participant: addParticipant({ ctx: chatScope(ctx), input }) }),
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ participant: t.expose('participant', { type: User }) }) },
)
