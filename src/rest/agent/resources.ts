import { z } from 'zod'
import { timestamp } from '../chat/resources.ts'

/* The agent API's bodies as it answers them: what the OpenAPI document publishes and the tests check. */

const handledBy = z.enum(['bot', 'waiting', 'agent', 'closed'])

/** An agent (never its key), on the admin API and as the agent API's `me`. */
export const Agent = z
  .object({ id: z.string(), name: z.string(), role: z.enum(['agent', 'supervisor']), createdAt: timestamp, updatedAt: timestamp })
  .meta({ id: 'Agent' })

export const AgentConversation = z
  .object({
    botId: z.string(),
    id: z.string(),
    ownerId: z.string(),
    handledBy,
    agentId: z.string().optional(),
    title: z.string().optional(),
    description: z.string().optional().describe("hitl:startHitl's description, while handed off."),
    messageHistory: z
      .array(z.record(z.string(), z.unknown()))
      .optional()
      .describe("hitl:startHitl's messageHistory as the bot gave it (`{source, type, payload}`), while handed off; in getConversation only."),
    handedOffAt: timestamp.optional(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'AgentConversation' })

export const AgentMessage = z
  .object({
    id: z.string(),
    conversationId: z.string(),
    userId: z.string(),
    payload: z.record(z.string(), z.unknown()),
    metadata: z.record(z.string(), z.unknown()).optional(),
    createdAt: timestamp,
  })
  .meta({ id: 'AgentMessage' })

export const AgentNote = z
  .object({ id: z.string(), conversationId: z.string(), agentId: z.string(), text: z.string(), createdAt: timestamp })
  .meta({ id: 'AgentNote' })

export const QueueUpdate = z
  .object({
    type: z.literal('handoff_changed'),
    botId: z.string(),
    conversationId: z.string(),
    handledBy,
    agentId: z.string().optional(),
    agentName: z.string().optional(),
    title: z.string().optional(),
  })
  .meta({ id: 'QueueUpdate' })

const at = { botId: z.string(), conversationId: z.string() }

/** An event of the feed of the conversations the agent holds (listenMyConversations). */
export const MyConversationsUpdate = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('message_created'), ...at, message: AgentMessage }),
    z.object({ type: z.literal('typing_started'), ...at, userId: z.string(), timeout: z.int() }),
    z.object({ type: z.literal('typing_stopped'), ...at, userId: z.string() }),
  ])
  .meta({ id: 'MyConversationsUpdate' })
