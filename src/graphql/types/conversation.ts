import type { ConversationRow } from '../../db/schema.ts'
import { createConversation, deleteConversation, getConversation, getOrCreateConversation, listConversations } from '../../domain/conversations.ts'
import { addParticipant, getParticipant, listParticipants, removeParticipant } from '../../domain/participants.ts'
import { loadUser } from '../../domain/loaders.ts'
import { setTyping } from '../../domain/typing.ts'
import { agentUserId } from '../../domain/agent-users.ts'
import { builder } from '../builder.ts'
import { clientIdBounds, typingTimeoutBounds } from '../input-bounds.ts'
import { chatScope } from '../context.ts'
import { visibleOrNull } from '../nodes.ts'
import { pageAsked, pageConnection } from '../paging.ts'
import { User } from './user.ts'

/** Who answers a conversation's user (docs/guides/handoff.md), on the chat, admin and agent schemas alike. */
export const handledByEnum = {
  description: 'Who answers the user of a conversation.',
  values: {
    bot: { description: 'The bot (the default).' },
    waiting: { description: 'Nobody yet: the conversation waits in the queue for an agent.' },
    agent: { description: 'A person (an agent) holds it; the user’s messages do not reach the bot.' },
    closed: { description: 'Closed by an agent; the bot answers again.' },
  },
} as const

export const HandledBy = builder.enumType('HandledBy', { subGraphs: ['chat', 'admin'], ...handledByEnum })

export const Conversation = builder.node(builder.objectRef<ConversationRow>('Conversation'), {
  subGraphs: ['chat'],
  description: 'A conversation between users and the bot; only its participants can see it.',
  id: { resolve: (conversation) => conversation.id },
  loadOne: (id, ctx) => visibleOrNull(() => getConversation({ ctx: chatScope(ctx), id })),
  fields: (t) => ({
    conversationId: t.exposeString('id', { description: 'The conversation id of the Chat API.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    handledBy: t.expose('handledBy', { type: HandledBy }),
    agentUserId: t.string({
      nullable: true,
      description: 'The participant the agent who holds the conversation posts as (its name is the agent’s); null unless handledBy is `agent`.',
      resolve: (conversation) => (conversation.handledBy === 'agent' && conversation.agentId !== null ? agentUserId(conversation.agentId) : null),
    }),
    owner: t.field({
      type: User,
      description: 'The user who created the conversation.',
      resolve: (conversation, _args, ctx) => loadUser(chatScope(ctx), conversation.ownerId),
    }),
    participants: t.connection(
      {
        type: User,
        description: 'The participants, in the order they joined.',
        resolve: (conversation, args, ctx) =>
          pageConnection(args, (window) => listParticipants({ ctx: chatScope(ctx), conversationId: conversation.id, window })),
      },
      {},
      {
        fields: (edge) => ({
          // On the edge: a time of the membership, not of the user (who may be in many conversations).
          joinedAt: edge.field({
            type: 'DateTime',
            description: 'When the participant joined the conversation.',
            resolve: ({ node }) => node.joinedAt,
          }),
        }),
      },
    ),
    participant: t.field({
      type: User,
      description: 'One participant; an error if the user does not participate.',
      args: { userId: t.arg.string({ required: true }) },
      resolve: (conversation, { userId }, ctx) => getParticipant({ ctx: chatScope(ctx), input: { conversationId: conversation.id, userId } }),
    }),
  }),
})

builder.queryField('conversations', (t) =>
  t.connection({
    subGraphs: ['chat'],
    type: Conversation,
    description: 'The conversations the caller participates in, newest first.',
    resolve: (_root, args, ctx) => pageConnection(args, (window) => listConversations({ ctx: chatScope(ctx), window })),
  }),
)

builder.queryField('conversation', (t) =>
  t.field({
    subGraphs: ['chat'],
    type: Conversation,
    args: { id: t.arg.string({ required: true, description: 'The conversation id of the Chat API.' }) },
    resolve: (_root, { id }, ctx, info) => getConversation({ ctx: chatScope(ctx), id, messages: pageAsked(info, 'messages') }),
  }),
)

builder.relayMutationField(
  'createConversation',
  {
    subGraphs: ['chat'],
    inputFields: (t) => ({
      id: t.string({ description: 'A chosen id (1-64 of [A-Za-z0-9._:-]); generated when absent.', extensions: clientIdBounds }),
    }),
  },
  {
    description: 'Creates a conversation owned by the caller, who becomes its first participant.',
    resolve: async (_root, args, ctx) => ({
      conversation: await createConversation({ ctx: chatScope(ctx), input: args.input ?? {} }),
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
    resolve: async (_root, { input }, ctx) => ({ participant: await addParticipant({ ctx: chatScope(ctx), input }) }),
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ participant: t.expose('participant', { type: User }) }) },
)

builder.relayMutationField(
  'getOrCreateConversation',
  { subGraphs: ['chat'], inputFields: (t) => ({ id: t.string({ required: true, extensions: clientIdBounds }) }) },
  {
    description: 'Returns the conversation with this id (the caller must participate), creating it if it does not exist.',
    resolve: async (_root, { input }, ctx) => ({
      conversation: await getOrCreateConversation({ ctx: chatScope(ctx), input }),
    }),
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ conversation: t.expose('conversation', { type: Conversation }) }) },
)

builder.relayMutationField(
  'deleteConversation',
  { subGraphs: ['chat'], inputFields: (t) => ({ id: t.string({ required: true }) }) },
  {
    description: 'Deletes a conversation with its messages and events; only its owner may.',
    resolve: async (_root, { input }, ctx) => {
      await deleteConversation({ ctx: chatScope(ctx), id: input.id })
      return { conversationId: input.id }
    },
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ conversationId: t.exposeString('conversationId') }) },
)

builder.relayMutationField(
  'removeParticipant',
  {
    subGraphs: ['chat'],
    inputFields: (t) => ({
      conversationId: t.string({ required: true }),
      userId: t.string({ required: true }),
    }),
  },
  {
    description: 'Removes a participant: any participant may leave, the owner may remove others, no one removes the owner.',
    resolve: async (_root, { input }, ctx) => {
      await removeParticipant({ ctx: chatScope(ctx), input })
      return input
    },
  },
  {
    subGraphs: ['chat'],
    outputFields: (t) => ({
      conversationId: t.exposeString('conversationId'),
      userId: t.exposeString('userId'),
    }),
  },
)

builder.relayMutationField(
  'startTyping',
  {
    subGraphs: ['chat'],
    inputFields: (t) => ({
      conversationId: t.string({ required: true }),
      timeout: t.int({ description: 'How long the indicator lasts, in milliseconds (5,000 by default, 60,000 at most).', extensions: typingTimeoutBounds }),
    }),
  },
  {
    description: "Tells the conversation's other listeners (the web chat's typing indicator) that the caller is typing.",
    resolve: async (_root, { input: { conversationId, timeout } }, ctx) => {
      await setTyping({ ctx: chatScope(ctx), conversationId, typing: true, timeoutMs: timeout })
      return { conversationId }
    },
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ conversationId: t.exposeString('conversationId') }) },
)

builder.relayMutationField(
  'stopTyping',
  { subGraphs: ['chat'], inputFields: (t) => ({ conversationId: t.string({ required: true }) }) },
  {
    description: "Tells the conversation's other listeners that the caller stopped typing.",
    resolve: async (_root, { input: { conversationId } }, ctx) => {
      await setTyping({ ctx: chatScope(ctx), conversationId, typing: false })
      return { conversationId }
    },
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ conversationId: t.exposeString('conversationId') }) },
)
