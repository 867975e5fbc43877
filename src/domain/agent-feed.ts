import type { AgentContext } from './agents.ts'
import type { ConversationSignal } from './signals.ts'

/**
 * What an agent's live feed of the queue says of a handoff signal (docs/guides/handoff.md): every
 * change in its workspace, so that a conversation another agent claimed leaves its queue; of a
 * conversation another agent holds, only that it is held (a supervisor hears all). Undefined for
 * anything else (another workspace's, or not a handoff).
 */
export function queueUpdate(ctx: AgentContext, signal: ConversationSignal): Record<string, unknown> | undefined {
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
