import type { MessageFeedback, MessageRow } from '../../db/schema.ts'
import { checkFeedback, setMessageFeedback, updateMessage } from '../../domain/message-updates.ts'
import { createMessage, deleteMessage, getMessage, lastMessage, listMessages } from '../../domain/messages.ts'
import { getConversation } from '../../domain/conversations.ts'
import { builder } from '../builder.ts'
import { feedbackValueBounds } from '../input-bounds.ts'
import { chatScope } from '../context.ts'
import { visibleOrNull } from '../nodes.ts'
import { pageConnection } from '../paging.ts'
import { Conversation } from './conversation.ts'
import { MessagePayloadUnion } from './payload.ts'
import { MessagePayloadInput, payloadFromInput } from './payload-input.ts'
import { User } from './user.ts'

export const MessageFeedbackRef = builder.objectRef<MessageFeedback>('MessageFeedback').implement({
  subGraphs: ['chat'],
  description: "A user's feedback on a message (the web chat's thumbs up or down).",
  fields: (t) => ({
    value: t.exposeString('value', { description: '"positive" or "negative".' }),
    comment: t.exposeString('comment', { nullable: true }),
  }),
})

export const Message = builder.node(builder.objectRef<MessageRow>('Message'), {
  subGraphs: ['chat'],
  description: 'A message a user or the bot posted in a conversation.',
  id: { resolve: (message) => message.id },
  loadOne: (id, ctx) => visibleOrNull(() => getMessage({ ctx: chatScope(ctx), id })),
  fields: (t) => ({
    messageId: t.exposeString('id', { description: 'The message id of the Chat API.' }),
    conversationId: t.exposeString('conversationId'),
    userId: t.exposeString('userId', { description: 'The author.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    payload: t.field({ type: MessagePayloadUnion, resolve: (message) => message.payload }),
    rawPayload: t.field({
      type: 'JSONObject',
      description: 'The payload exactly as it was written, with the properties its kind does not name.',
      resolve: (message) => message.payload,
    }),
    metadata: t.field({ type: 'JSONObject', nullable: true, resolve: (message) => message.metadata }),
    feedback: t.field({ type: MessageFeedbackRef, nullable: true, resolve: (message) => message.feedback }),
    author: t.field({ type: User, resolve: (message) => ({ id: message.userId }) }),
    conversation: t.field({
      type: Conversation,
      resolve: (message, _args, ctx) => getConversation({ ctx: chatScope(ctx), id: message.conversationId }),
    }),
  }),
})

builder.queryField('message', (t) =>
  t.field({
    subGraphs: ['chat'],
    type: Message,
    args: { id: t.arg.string({ required: true, description: 'The message id of the Chat API.' }) },
    resolve: (_root, { id }, ctx) => getMessage({ ctx: chatScope(ctx), id }),
  }),
)

builder.relayMutationField(
  'createMessage',
  {
    subGraphs: ['chat'],
    inputFields: (t) => ({
      conversationId: t.string({ required: true }),
      payload: t.field({ type: MessagePayloadInput, required: true, description: 'Exactly one payload kind.' }),
      metadata: t.field({ type: 'JSONObject', description: 'Free-form data kept beside the payload.' }),
    }),
  },
  {
    description: 'Posts a message in a conversation the caller participates in.',
    resolve: async (_root, { input }, ctx) => ({
      message: await createMessage({ ctx: chatScope(ctx), input: { ...input, payload: payloadFromInput(input.payload) } }),
    }),
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ message: t.expose('message', { type: Message }) }) },
)

builder.objectField(Conversation, 'messages', (t) =>
  t.connection({
    type: Message,
    description: 'The messages, newest first.',
    resolve: (conversation, args, ctx) => pageConnection(args, (window) => listMessages({ ctx: chatScope(ctx), conversationId: conversation.id, window })),
  }),
)

builder.objectField(Conversation, 'lastMessage', (t) =>
  t.field({
    type: Message,
    nullable: true,
    description: 'The newest message, or null when there is none yet. The conversations of a page read theirs together (one statement).',
    resolve: (conversation, _args, ctx) => lastMessage({ ctx: chatScope(ctx), conversationId: conversation.id }),
  }),
)

builder.relayMutationField(
  'deleteMessage',
  { subGraphs: ['chat'], inputFields: (t) => ({ id: t.string({ required: true }) }) },
  {
    description: 'Deletes a message; only its author may.',
    resolve: async (_root, { input }, ctx) => {
      await deleteMessage({ ctx: chatScope(ctx), id: input.id })
      return { messageId: input.id }
    },
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ messageId: t.exposeString('messageId') }) },
)

builder.relayMutationField(
  'updateMessage',
  {
    subGraphs: ['chat'],
    inputFields: (t) => ({
      id: t.string({ required: true }),
      payload: t.field({ type: MessagePayloadInput, required: true, description: 'Exactly one payload kind.' }),
      metadata: t.field({ type: 'JSONObject' }),
    }),
  },
  {
    description: "Replaces a message's payload and metadata; only its author may.",
    resolve: async (_root, { input: { id, payload, metadata } }, ctx) => ({
      message: await updateMessage({ ctx: chatScope(ctx), id, input: { payload: payloadFromInput(payload), metadata } }),
    }),
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ message: t.expose('message', { type: Message }) }) },
)

builder.relayMutationField(
  'addMessageFeedback',
  {
    subGraphs: ['chat'],
    inputFields: (t) => ({
      id: t.string({ required: true, description: 'The message id.' }),
      value: t.string({ required: true, description: '"positive" or "negative".', extensions: feedbackValueBounds }),
      comment: t.string(),
    }),
  },
  {
    description: 'Sets the feedback of a message of a conversation the caller participates in (replacing any).',
    resolve: async (_root, { input: { id, value, comment } }, ctx) => ({
      message: await setMessageFeedback({ ctx: chatScope(ctx), id, feedback: checkFeedback({ value, comment }) }),
    }),
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ message: t.expose('message', { type: Message }) }) },
)

builder.relayMutationField(
  'removeMessageFeedback',
  { subGraphs: ['chat'], inputFields: (t) => ({ id: t.string({ required: true, description: 'The message id.' }) }) },
  {
    description: 'Removes the feedback of a message of a conversation the caller participates in.',
    resolve: async (_root, { input: { id } }, ctx) => ({
      message: await setMessageFeedback({ ctx: chatScope(ctx), id, feedback: null }),
    }),
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ message: t.expose('message', { type: Message }) }) },
)
