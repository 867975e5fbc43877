import type { HandledBy, MessageRow } from '../db/schema.ts'
import { visibleTo } from './agent-desk.ts'
import type { AgentContext } from './agents.ts'
import type { ConversationSignal } from './signals.ts'

/** A change of the queue, as an agent's feed tells it. */
export interface QueueUpdate {
  type: 'handoff_changed'
  botId: string
  conversationId: string
  handledBy: HandledBy
  agentId?: string
  agentName?: string
  title?: string
}

/**
 * What an agent's live feed of the queue says of a handoff signal (docs/guides/handoff.md): every
 * change in its workspace, so that a conversation another agent claimed leaves its queue; of a
 * conversation another agent holds, only that it is held (a supervisor hears all). Undefined for
 * anything else (another workspace's, or not a handoff).
 */
export function queueUpdate(ctx: AgentContext, signal: ConversationSignal): QueueUpdate | undefined {
  if (signal.type !== 'handoff_changed' || signal.workspaceId !== ctx.agent.workspaceId) return undefined
  const theirs = signal.agentId !== null && signal.agentId !== ctx.agent.id && ctx.agent.role !== 'supervisor'
  return {
    type: 'handoff_changed',
    botId: signal.botId,
    conversationId: signal.conversationId,
    handledBy: signal.handledBy,
    ...(theirs || signal.agentId === null ? {} : { agentId: signal.agentId }),
    ...(theirs || signal.agentName === null ? {} : { agentName: signal.agentName }),
    ...(theirs || signal.handoffTitle === null ? {} : { title: signal.handoffTitle }),
  }
}

/**
 * What an agent's live feed of one conversation's messages (which it may see, docs/guides/handoff.md)
 * makes of the conversation's signal: a new message (the user's, the bot's, an agent's); `end` once
 * the conversation is deleted or passes out of the agent's sight (another agent took it, a supervisor
 * hears on); undefined for anything else.
 */
export function conversationFeedStep(ctx: AgentContext, signal: ConversationSignal): MessageRow | 'end' | undefined {
  if (signal.type === 'message_created') return signal.message
  if (signal.type === 'conversation_deleted') return 'end'
  if (signal.type === 'handoff_changed' && !visibleTo(ctx, signal)) return 'end'
  return undefined
}
