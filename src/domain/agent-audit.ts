import type { AgentContext } from './agents.ts'
import { DomainError } from './errors.ts'

/** What an action is about: the conversation (its bot and id) and, for a transfer, the recipient. */
export interface ActionAbout {
  botId?: string
  id?: string
  toAgentId?: string
}

/**
 * Runs one of an agent's actions (an agent API operation) and tells `ctx.actions` how it ended: done,
 * or refused with its error type (an unexpected failure is `Internal`). A refusal is worth a line
 * too: an agent probing conversations it may not see shows as a run of ResourceNotFound.
 */
export async function audited<T>(ctx: AgentContext, action: string, about: ActionAbout, work: () => Promise<T>): Promise<T> {
  const tell = (outcome: DomainError['type'] | 'ok') =>
    ctx.actions?.({
      agentId: ctx.agent.id,
      action,
      ...(about.botId === undefined ? {} : { botId: about.botId }),
      ...(about.id === undefined ? {} : { conversationId: about.id }),
      ...(about.toAgentId === undefined ? {} : { toAgentId: about.toAgentId }),
      outcome,
    })
  try {
    const result = await work()
    tell('ok')
    return result
  } catch (error) {
    tell(error instanceof DomainError ? error.type : 'Internal')
    throw error
  }
}
