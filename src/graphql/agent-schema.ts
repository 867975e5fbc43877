import type { ArgBuilder } from '@pothos/core'
import { lexicographicSortSchema } from 'graphql'
import { Repeater } from 'graphql-yoga'
import type { ConversationNoteRow, MessageRow } from '../db/schema.ts'
import {
  addNote,
  agentTyping,
  claimConversation,
  type DeskConversation,
  endConversationHandoff,
  getDeskConversation,
  listColleagues,
  listHistory,
  listMine,
  listNotes,
  listQueue,
  replyAsAgent,
  transferConversation,
} from '../domain/agent-desk.ts'
import { conversationFeedStep, followMyConversations, type MyConversationUpdate, type QueueUpdate, queueUpdate } from '../domain/agent-feed.ts'
import { type Agent, type AgentContext, shownAgent } from '../domain/agents.ts'
import type { ConversationSignal } from '../domain/signals.ts'
import { newBuilder, type Types } from './builder.ts'
import { agentScope } from './context.ts'
import { noteTextBounds, typingTimeoutBounds } from './input-bounds.ts'
import { agentType } from './types/agent.ts'
import { handledByEnum } from './types/conversation.ts'
import { payloadOutputs } from './types/payload.ts'

/*
 * The agent API's schema (/v1/agent/graphql; docs/guides/handoff.md): what a person answering users
 * in place of the bots does, with an agent key. Its REST form (rest/agent) runs these same fields.
 * A builder of its own (its `conversation` is not the chat schema's), with the chat schema's
 * message payload types. A conversation is named by its bot and its id.
 */
const builder = newBuilder()
const { MessagePayloadUnion } = payloadOutputs(builder)

const HandledBy = builder.enumType('HandledBy', handledByEnum)

const AgentRef = builder.objectRef<Agent>('Agent').implement(agentType)

const AgentConversation = builder.objectRef<DeskConversation>('AgentConversation').implement({
  description: 'A conversation as an agent sees it: waiting in the queue, held by an agent, or closed.',
  fields: (t) => ({
    botId: t.exposeString('botId'),
    id: t.string({ resolve: ({ conversation }) => conversation.id }),
    ownerId: t.string({ description: 'The user who created the conversation.', resolve: ({ conversation }) => conversation.ownerId }),
    handledBy: t.field({ type: HandledBy, resolve: ({ conversation }) => conversation.handledBy }),
    agentId: t.string({
      nullable: true,
      description: 'The agent who holds it (or closed it).',
      resolve: ({ conversation }) => conversation.agentId,
    }),
    title: t.string({
      nullable: true,
      description: 'What the bot said the handoff is about (hitl:startHitl’s title).',
      resolve: ({ conversation }) => conversation.handoffTitle,
    }),
    description: t.string({
      nullable: true,
      description: 'What the bot said of the handoff (hitl:startHitl’s description), while handed off.',
      resolve: ({ brief }) => brief?.description ?? null,
    }),
    messageHistory: t.field({
      type: ['JSONObject'],
      nullable: true,
      description:
        'hitl:startHitl’s messageHistory as the bot gave it (`{source, type, payload}`), while handed off; read on `conversation` only (null in lists).',
      resolve: ({ brief }) => brief?.messageHistory ?? null,
    }),
    handedOffAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it last entered the queue.',
      resolve: ({ conversation }) => conversation.handoffAt,
    }),
    createdAt: t.field({ type: 'DateTime', resolve: ({ conversation }) => conversation.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: ({ conversation }) => conversation.updatedAt }),
  }),
})

const AgentMessage = builder.objectRef<MessageRow>('AgentMessage').implement({
  description: 'A message of a conversation: the user’s, the bot’s or an agent’s.',
  fields: (t) => ({
    id: t.exposeString('id'),
    conversationId: t.exposeString('conversationId'),
    userId: t.exposeString('userId', { description: 'The author (an agent posts as `agent:<agent id>`).' }),
    payload: t.field({ type: MessagePayloadUnion, resolve: (message) => message.payload }),
    rawPayload: t.field({
      type: 'JSONObject',
      description: 'The payload exactly as it was written, with the properties its kind does not name.',
      resolve: (message) => message.payload,
    }),
    metadata: t.field({ type: 'JSONObject', nullable: true, resolve: (message) => message.metadata }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
})

const AgentNote = builder.objectRef<ConversationNoteRow>('AgentNote').implement({
  description: 'A note on a conversation, for agents only: the user and the bot never see it.',
  fields: (t) => ({
    id: t.exposeString('id'),
    conversationId: t.exposeString('conversationId'),
    agentId: t.exposeString('agentId', { description: 'Who wrote it.' }),
    text: t.exposeString('text'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
})

const QueueUpdateRef = builder.objectRef<QueueUpdate>('QueueUpdate').implement({
  description: 'Who handles a conversation of the workspace changed. Of a conversation another agent holds, only that it is held (a supervisor hears whom).',
  fields: (t) => ({
    type: t.string({ description: 'Always `handoff_changed`.', resolve: (update) => update.type }),
    botId: t.exposeString('botId'),
    conversationId: t.exposeString('conversationId'),
    handledBy: t.field({ type: HandledBy, resolve: (update) => update.handledBy }),
    agentId: t.string({ nullable: true, resolve: (update) => update.agentId }),
    agentName: t.string({ nullable: true, resolve: (update) => update.agentName }),
    title: t.string({ nullable: true, resolve: (update) => update.title }),
  }),
})

const MyConversationUpdateRef = builder.objectRef<MyConversationUpdate>('MyConversationUpdate').implement({
  description: 'What happened in a conversation the agent holds: a new message, or someone (not the agent) started or stopped typing.',
  fields: (t) => ({
    type: t.string({ description: '`message_created`, `typing_started` or `typing_stopped`.', resolve: (update) => update.type }),
    botId: t.exposeString('botId'),
    conversationId: t.exposeString('conversationId'),
    message: t.field({
      type: AgentMessage,
      nullable: true,
      description: 'Of `message_created`.',
      resolve: (u) => (u.type === 'message_created' ? u.message : null),
    }),
    userId: t.string({ nullable: true, description: 'Who types (`typing_*`).', resolve: (u) => (u.type === 'message_created' ? null : u.userId) }),
    timeout: t.int({
      nullable: true,
      description: 'How long the indicator lasts, in milliseconds (`typing_started`).',
      resolve: (u) => (u.type === 'typing_started' ? u.timeout : null),
    }),
  }),
})

/** The arguments naming a conversation. */
const address = (t: ArgBuilder<Types>) => ({
  botId: t.string({ required: true }),
  id: t.string({ required: true, description: 'The conversation id.' }),
})

builder.queryType({
  fields: (t) => ({
    me: t.field({ type: AgentRef, description: 'The agent whose key this is.', resolve: (_root, _args, ctx) => shownAgent(agentScope(ctx).agent) }),
    queue: t.field({
      type: [AgentConversation],
      description: 'The workspace’s conversations waiting for an agent, the longest waiting first.',
      resolve: (_root, _args, ctx) => listQueue({ ctx: agentScope(ctx) }),
    }),
    agents: t.field({
      type: [AgentRef],
      description: 'The workspace’s agents, oldest first: whom a conversation may be transferred to.',
      resolve: (_root, _args, ctx) => listColleagues({ ctx: agentScope(ctx) }),
    }),
    myConversations: t.field({
      type: [AgentConversation],
      description: 'The conversations the agent holds (a supervisor: every agent’s).',
      resolve: (_root, _args, ctx) => listMine({ ctx: agentScope(ctx) }),
    }),
    conversation: t.field({
      type: AgentConversation,
      description: 'A conversation the agent may see.',
      args: address(t.arg),
      resolve: (_root, { botId, id }, ctx) => getDeskConversation({ ctx: agentScope(ctx), botId, id }),
    }),
    history: t.field({
      type: [AgentMessage],
      description: 'The conversation’s messages, newest first.',
      args: address(t.arg),
      resolve: (_root, { botId, id }, ctx) => listHistory({ ctx: agentScope(ctx), botId, id }),
    }),
    notes: t.field({
      type: [AgentNote],
      description: 'The conversation’s notes, oldest first.',
      args: address(t.arg),
      resolve: (_root, { botId, id }, ctx) => listNotes({ ctx: agentScope(ctx), botId, id }),
    }),
  }),
})

builder.mutationType({})

/** The input fields naming a conversation. */
const addressFields = (t: PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>) => ({
  botId: t.string({ required: true }),
  id: t.string({ required: true, description: 'The conversation id.' }),
})

/** A mutation on a conversation that answers it (claim, release, close), in the chat schema's shape. */
function conversationMutation(
  name: string,
  description: string,
  run: (ctx: AgentContext, address: { botId: string; id: string }) => Promise<DeskConversation>,
) {
  builder.relayMutationField(
    name,
    { inputFields: addressFields },
    { description, resolve: async (_root, { input }, ctx) => ({ conversation: await run(agentScope(ctx), input) }) },
    { outputFields: (t) => ({ conversation: t.expose('conversation', { type: AgentConversation }) }) },
  )
}

conversationMutation(
  'claim',
  'Takes a waiting conversation; its user sees the agent join, by name (409 when another agent took it first).',
  (ctx, { botId, id }) => claimConversation({ ctx, botId, id }),
)
conversationMutation('release', 'Gives the conversation back to the bot (it is told hitl:hitlStopped).', (ctx, { botId, id }) =>
  endConversationHandoff({ ctx, botId, id, end: 'bot' }),
)
conversationMutation('close', 'Closes the handoff; the bot answers again (it is told hitl:hitlStopped).', (ctx, { botId, id }) =>
  endConversationHandoff({ ctx, botId, id, end: 'closed' }),
)

builder.relayMutationField(
  'transfer',
  { inputFields: (t) => ({ ...addressFields(t), agentId: t.string({ required: true, description: 'The agent of the workspace to hand it to.' }) }) },
  {
    description: 'Hands the conversation to another agent of the workspace, who joins it as this one leaves.',
    resolve: async (_root, { input: { botId, id, agentId } }, ctx) => ({
      conversation: await transferConversation({ ctx: agentScope(ctx), botId, id, toAgentId: agentId }),
    }),
  },
  { outputFields: (t) => ({ conversation: t.expose('conversation', { type: AgentConversation }) }) },
)

builder.relayMutationField(
  'reply',
  {
    inputFields: (t) => ({
      ...addressFields(t),
      payload: t.field({ type: 'JSONObject', required: true, description: 'A payload as the Chat API takes it: `{type, …}`.' }),
      metadata: t.field({ type: 'JSONObject' }),
    }),
  },
  {
    description: 'Posts in a conversation the agent holds, as the agent (neither the bot nor the user).',
    resolve: async (_root, { input: { botId, id, payload, metadata } }, ctx) => ({
      message: await replyAsAgent({ ctx: agentScope(ctx), botId, id, input: { payload, metadata }, messageMaxBytes: ctx.agentLimits?.messageMaxBytes ?? 0 }),
    }),
  },
  { outputFields: (t) => ({ message: t.expose('message', { type: AgentMessage }) }) },
)

builder.relayMutationField(
  'addNote',
  { inputFields: (t) => ({ ...addressFields(t), text: t.string({ required: true, extensions: noteTextBounds }) }) },
  {
    description: 'A note for agents only: the user and the bot never see it.',
    resolve: async (_root, { input: { botId, id, text } }, ctx) => ({ note: await addNote({ ctx: agentScope(ctx), botId, id, text }) }),
  },
  { outputFields: (t) => ({ note: t.expose('note', { type: AgentNote }) }) },
)

builder.relayMutationField(
  'startTyping',
  {
    inputFields: (t) => ({
      ...addressFields(t),
      timeout: t.int({ description: 'How long the indicator lasts, in milliseconds (5,000 by default, 60,000 at most).', extensions: typingTimeoutBounds }),
    }),
  },
  {
    description: 'Tells the user (and the conversation’s other listeners) that the agent is typing, in a conversation it holds.',
    resolve: async (_root, { input: { botId, id, timeout } }, ctx) => {
      await agentTyping({ ctx: agentScope(ctx), botId, id, typing: true, timeoutMs: timeout })
      return { conversationId: id }
    },
  },
  { outputFields: (t) => ({ conversationId: t.exposeString('conversationId') }) },
)

builder.relayMutationField(
  'stopTyping',
  { inputFields: addressFields },
  {
    description: 'Tells the user that the agent stopped typing.',
    resolve: async (_root, { input: { botId, id } }, ctx) => {
      await agentTyping({ ctx: agentScope(ctx), botId, id, typing: false })
      return { conversationId: id }
    },
  },
  { outputFields: (t) => ({ conversationId: t.exposeString('conversationId') }) },
)

/** A feed of what `step` makes of each signal, until it says `end` or the subscriber leaves. */
function feed<S, T>(signals: AsyncIterableIterator<S>, step: (signal: S) => T | 'end' | undefined): AsyncIterableIterator<T> {
  return new Repeater<T>(async (push, stop) => {
    void stop.then(() => signals.return?.())
    for await (const signal of signals) {
      const value = step(signal)
      if (value === 'end') break
      if (value !== undefined) await push(value)
    }
    stop()
  })
}

builder.subscriptionType({
  fields: (t) => ({
    queueUpdates: t.field({
      type: QueueUpdateRef,
      description: 'The live feed of the workspace’s queue: one update per change of who handles a conversation.',
      subscribe: (_root, _args, ctx) => {
        const agent = agentScope(ctx)
        return feed(ctx.signals.all(), ({ signal }) => queueUpdate(agent, signal))
      },
      resolve: (update) => update,
    }),
    myConversationUpdates: t.field({
      type: MyConversationUpdateRef,
      description:
        'The live feed of the conversations the agent holds (a supervisor: every agent’s), as the agent console shows them: their new messages and who types (the agent aside).',
      subscribe: (_root, _args, ctx) => {
        const agent = agentScope(ctx)
        const signals = ctx.signals.all()
        return new Repeater<MyConversationUpdate>(async (push, stop) => {
          void stop.then(() => signals.return?.())
          try {
            await followMyConversations(agent, signals, push)
          } finally {
            stop()
          }
        })
      },
      resolve: (update) => update,
    }),
    conversationMessages: t.field({
      type: AgentMessage,
      description: 'The new messages of a conversation the agent may see (the user’s, the bot’s, agents’); ends when it is deleted or passes to another agent.',
      args: address(t.arg),
      subscribe: async (_root, { botId, id }, ctx) => {
        const agent = agentScope(ctx)
        const { conversation } = await getDeskConversation({ ctx: agent, botId, id })
        const signals: AsyncIterableIterator<ConversationSignal> = ctx.signals.conversation(conversation.integrationId, id)
        return feed(signals, (signal) => conversationFeedStep(agent, signal))
      },
      resolve: (message) => message,
    }),
  }),
})

export const agentSchema = lexicographicSortSchema(builder.toSchema())
