import type { HandledBy, MessageRow } from '../db/schema.ts'
import { listMine, visibleTo } from './agent-desk.ts'
import { agentUserId } from './agent-users.ts'
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

/** A signal with the integration it happened in (the signal hub's integration-wide feed). */
export interface RoutedSignal {
  integrationId: string
  signal: ConversationSignal
}

/** What the feed of the conversations an agent holds tells of one of them. */
export type MyConversationUpdate = { botId: string; conversationId: string } & (
  | { type: 'message_created'; message: MessageRow }
  | { type: 'typing_started'; userId: string; timeout: number }
  | { type: 'typing_stopped'; userId: string }
)

/**
 * The live feed of the conversations an agent holds (a supervisor: every agent's), as the agent
 * console shows them: their new messages and who types in them (the agent's own typing aside).
 * Which conversations those are is read once, then followed from the workspace's handoff signals,
 * listened to from before the read: a claim committed while it runs is heard after it (each signal
 * sets a conversation's state, so hearing one the read already saw changes nothing). Ends when
 * `signals` ends.
 */
export async function followMyConversations(
  ctx: AgentContext,
  signals: AsyncIterator<RoutedSignal>,
  push: (update: MyConversationUpdate) => Promise<unknown>,
): Promise<void> {
  const mine = (agentId: string | null) => agentId !== null && (ctx.agent.role === 'supervisor' || agentId === ctx.agent.id)
  /** The bot of each conversation held, by `${integrationId}/${conversationId}`. */
  const held = new Map<string, string>()
  // Pulling the first signal subscribes (the hub's feed starts on its first pull).
  let pulled = signals.next()
  for (const { botId, conversation: c } of await listMine({ ctx })) held.set(`${c.integrationId}/${c.id}`, botId)
  const ownUser = agentUserId(ctx.agent.id)
  for (;;) {
    const next = await pulled
    if (next.done) return
    pulled = signals.next()
    const { integrationId, signal } = next.value
    const key = `${integrationId}/${signal.conversationId}`
    if (signal.type === 'handoff_changed') {
      if (signal.workspaceId !== ctx.agent.workspaceId) continue
      if (signal.handledBy === 'agent' && mine(signal.agentId)) held.set(key, signal.botId)
      else held.delete(key)
      continue
    }
    const botId = held.get(key)
    if (botId === undefined) continue
    const at = { botId, conversationId: signal.conversationId }
    if (signal.type === 'message_created') await push({ type: 'message_created', ...at, message: signal.message })
    else if (signal.type === 'typing_started' && signal.userId !== ownUser)
      await push({ type: 'typing_started', ...at, userId: signal.userId, timeout: signal.timeout })
    else if (signal.type === 'typing_stopped' && signal.userId !== ownUser) await push({ type: 'typing_stopped', ...at, userId: signal.userId })
  }
}
