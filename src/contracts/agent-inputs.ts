import { z } from 'zod'
import { obj, str } from './bot-api-inputs.ts'

/*
 * What each agent API operation takes (/v1/agent/…; docs/guides/handoff.md): its path, query and
 * body together. Pure schemas, read by the domain (naming the field at fault) and published by the
 * OpenAPI document. Every operation refuses a property it does not take.
 */

/** A conversation, as the agent API names it: its bot and its id. */
const address = { botId: str, id: str }

export const agentInputs = {
  listQueue: z.object({}).strict(),
  listMyConversations: z.object({}).strict(),
  getConversation: z.object(address).strict(),
  listHistory: z.object(address).strict(),
  claimConversation: z.object(address).strict(),
  replyToConversation: z.object({ ...address, payload: obj, metadata: obj.nullish() }).strict(),
  addNote: z.object({ ...address, text: z.string({ error: 'must be a string' }) }).strict(),
  listNotes: z.object(address).strict(),
  transferConversation: z.object({ ...address, agentId: str }).strict(),
  releaseConversation: z.object(address).strict(),
  closeConversation: z.object(address).strict(),
  listenQueue: z.object({}).strict(),
  getMe: z.object({}).strict(),
  listAgents: z.object({}).strict(),
  startTyping: z.object({ ...address, timeout: z.number({ error: 'must be a number of milliseconds' }).nullish() }).strict(),
  stopTyping: z.object(address).strict(),
  listenMyConversations: z.object({}).strict(),
} satisfies Record<string, z.ZodObject>

export type AgentOperation = keyof typeof agentInputs
