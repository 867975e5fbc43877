import type { ConversationNoteRow, MessageRow } from '../db/schema.ts'
import { type AgentOperation, agentInputs } from '../contracts/agent-inputs.ts'
import type { Json } from '../contracts/bot-api-inputs.ts'
import {
  addNote,
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
import type { AgentContext } from './agents.ts'
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

const message = (m: MessageRow) => ({
  id: m.id,
  conversationId: m.conversationId,
  userId: m.userId,
  payload: m.payload,
  ...(m.metadata === null ? {} : { metadata: m.metadata }),
  createdAt: m.createdAt,
})

const note = (n: ConversationNoteRow) => ({ id: n.id, conversationId: n.conversationId, agentId: n.agentId, text: n.text, createdAt: n.createdAt })

type Verb = (ctx: AgentContext, input: Json, limits: { messageMaxBytes: number }) => Promise<Json>

const read = <O extends AgentOperation>(operation: O, input: Json) => parseInput(agentInputs[operation], input) as ReturnType<(typeof agentInputs)[O]['parse']>

export const agentVerbs: Record<Exclude<AgentOperation, 'listenQueue'>, Verb> = {
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
    return { messages: (await listHistory({ ctx, botId, id })).map(message) }
  },
  claimConversation: async (ctx, input) => {
    const { botId, id } = read('claimConversation', input)
    return { conversation: deskConversation(await claimConversation({ ctx, botId, id })) }
  },
  replyToConversation: async (ctx, input, limits) => {
    const { botId, id, payload, metadata } = read('replyToConversation', input)
    const row = await replyAsAgent({ ctx, botId, id, input: { payload, metadata }, messageMaxBytes: limits.messageMaxBytes })
    return { message: message(row) }
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
