import type { AgentRow, ConversationNoteRow, MessageRow } from '../db/schema.ts'
import { type AgentOperation, agentInputs } from '../contracts/agent-inputs.ts'
import type { Json } from '../contracts/bot-api-inputs.ts'
import {
  addNote,
  agentTyping,
  claimConversation,
  type DeskConversation,
  endConversationHandoff,
  getDeskConversation,
  listHistory,
  listMine,
  listNotes,
  listQueue,
  replyAsAgent,
  transferConversation,
} from './agent-desk.ts'
import { type AgentContext, listColleagues } from './agents.ts'
import { parseInput } from './bot-api/inputs.ts'

/*
 * The agent API's operations (/v1/agent/…), each taking its input as JSON (path, query and body
 * together, read through contracts/agent-inputs.ts) and answering its JSON body: the verbs of
 * agent-desk.ts in the API's shapes.
 */

/** A conversation as an agent reads it. */
export const deskConversation = ({ botId, conversation: c, brief }: DeskConversation) => ({
  botId,
  id: c.id,
  ownerId: c.ownerId,
  handledBy: c.handledBy,
  ...(c.agentId === null ? {} : { agentId: c.agentId }),
  ...(c.handoffTitle === null ? {} : { title: c.handoffTitle }),
  ...(brief?.description == null ? {} : { description: brief.description }),
  ...(brief?.messageHistory == null ? {} : { messageHistory: brief.messageHistory }),
  ...(c.handoffAt === null ? {} : { handedOffAt: c.handoffAt }),
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
})

/** A message as an agent reads it (its history, its live feed). */
export const agentMessage = (m: MessageRow) => ({
  id: m.id,
  conversationId: m.conversationId,
  userId: m.userId,
  payload: m.payload,
  ...(m.metadata === null ? {} : { metadata: m.metadata }),
  createdAt: m.createdAt,
})

const note = (n: ConversationNoteRow) => ({ id: n.id, conversationId: n.conversationId, agentId: n.agentId, text: n.text, createdAt: n.createdAt })

/** An agent as agents see one another: never its key's digest nor its workspace. */
const colleague = ({ id, name, role }: AgentRow) => ({ id, name, role })

type Verb = (ctx: AgentContext, input: Json, limits: { messageMaxBytes: number }) => Promise<Json>

const read = <O extends AgentOperation>(operation: O, input: Json) => parseInput(agentInputs[operation], input) as ReturnType<(typeof agentInputs)[O]['parse']>

/** The agent API's feeds (subscriptions), which are no verbs: graphql/agent-schema.ts runs them. */
export type AgentFeed = 'listenQueue' | 'listenMyConversations'

export const agentVerbs: Record<Exclude<AgentOperation, AgentFeed>, Verb> = {
  getMe: async (ctx, input) => {
    read('getMe', input)
    return { agent: colleague(ctx.agent) }
  },
  listAgents: async (ctx, input) => {
    read('listAgents', input)
    return { agents: (await listColleagues({ ctx })).map(colleague) }
  },
  listQueue: async (ctx, input) => {
    read('listQueue', input)
    return { conversations: (await listQueue({ ctx })).map(deskConversation) }
  },
  listMyConversations: async (ctx, input) => {
    read('listMyConversations', input)
    return { conversations: (await listMine({ ctx })).map(deskConversation) }
  },
  getConversation: async (ctx, input) => {
    const { botId, id } = read('getConversation', input)
    return { conversation: deskConversation(await getDeskConversation({ ctx, botId, id })) }
  },
  listHistory: async (ctx, input) => {
    const { botId, id } = read('listHistory', input)
    return { messages: (await listHistory({ ctx, botId, id })).map(agentMessage) }
  },
  claimConversation: async (ctx, input) => {
    const { botId, id } = read('claimConversation', input)
    return { conversation: deskConversation(await claimConversation({ ctx, botId, id })) }
  },
  replyToConversation: async (ctx, input, limits) => {
    const { botId, id, payload, metadata } = read('replyToConversation', input)
    const row = await replyAsAgent({ ctx, botId, id, input: { payload, metadata }, messageMaxBytes: limits.messageMaxBytes })
    return { message: agentMessage(row) }
  },
  startTyping: async (ctx, input) => {
    const { botId, id, timeout } = read('startTyping', input)
    await agentTyping({ ctx, botId, id, typing: true, timeoutMs: timeout })
    return {}
  },
  stopTyping: async (ctx, input) => {
    const { botId, id } = read('stopTyping', input)
    await agentTyping({ ctx, botId, id, typing: false })
    return {}
  },
  addNote: async (ctx, input) => {
    const { botId, id, text } = read('addNote', input)
    return { note: note(await addNote({ ctx, botId, id, text })) }
  },
  listNotes: async (ctx, input) => {
    const { botId, id } = read('listNotes', input)
    return { notes: (await listNotes({ ctx, botId, id })).map(note) }
  },
  transferConversation: async (ctx, input) => {
    const { botId, id, agentId } = read('transferConversation', input)
    return { conversation: deskConversation(await transferConversation({ ctx, botId, id, toAgentId: agentId })) }
  },
  releaseConversation: async (ctx, input) => {
    const { botId, id } = read('releaseConversation', input)
    return { conversation: deskConversation(await endConversationHandoff({ ctx, botId, id, end: 'bot' })) }
  },
  closeConversation: async (ctx, input) => {
    const { botId, id } = read('closeConversation', input)
    return { conversation: deskConversation(await endConversationHandoff({ ctx, botId, id, end: 'closed' })) }
  },
}
