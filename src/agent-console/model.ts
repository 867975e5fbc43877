/*
 * What the console knows, in the agent API's shapes (docs/guides/handoff.md), and the few rules it
 * applies to them: who may do what with a conversation, who wrote a message, what is unread.
 */

export interface Agent {
  id: string
  name: string
  role: 'agent' | 'supervisor'
}

export interface Conversation {
  botId: string
  id: string
  ownerId: string
  handledBy: 'bot' | 'waiting' | 'agent' | 'closed'
  agentId?: string
  title?: string
  handedOffAt?: string
  createdAt: string
  updatedAt: string
}

export interface Message {
  id: string
  conversationId: string
  userId: string
  payload: Record<string, unknown>
  createdAt: string
}

export interface Note {
  id: string
  conversationId: string
  agentId: string
  text: string
  createdAt: string
}

/** A conversation's key in the console's maps: its bot and its id. */
export const keyOf = (c: { botId: string; id?: string; conversationId?: string }): string => `${c.botId}/${c.id ?? c.conversationId}`

/** The user id an agent's messages are posted as. */
export const agentUserId = (agentId: string): string => `agent:${agentId}`

/** Whether the agent may answer in, transfer, release and close the conversation (a supervisor: any an agent holds). */
export const holds = (me: Agent, c: Conversation): boolean => c.handledBy === 'agent' && (c.agentId === me.id || me.role === 'supervisor')

export const conversationTitle = (c: Conversation): string => c.title ?? `Conversation ${c.id}`

/** Who wrote a message, in the console's words, and which side of the conversation it is on. */
export function authorOf(
  message: Message,
  conversation: Conversation,
  me: Agent,
  agents: ReadonlyMap<string, Agent>,
): { name: string; side: 'user' | 'bot' | 'agent' } {
  if (message.userId === conversation.botId) return { name: 'Bot', side: 'bot' }
  if (message.userId.startsWith('agent:')) {
    const id = message.userId.slice('agent:'.length)
    return { name: id === me.id ? `${me.name} (you)` : (agents.get(id)?.name ?? 'Agent'), side: 'agent' }
  }
  return { name: message.userId === conversation.ownerId ? `${message.userId} (user)` : message.userId, side: 'user' }
}

/** Counts, per conversation, the messages the agent has not seen: those of others that came while it looked elsewhere. */
export class Unread {
  private readonly counts = new Map<string, number>()

  add(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1)
  }

  clear(key: string): void {
    this.counts.delete(key)
  }

  of(key: string): number {
    return this.counts.get(key) ?? 0
  }

  total(): number {
    let sum = 0
    for (const count of this.counts.values()) sum += count
    return sum
  }

  /** The document's title: the total in front, when there is one. */
  title(base: string): string {
    const total = this.total()
    return total === 0 ? base : `(${total}) ${base}`
  }
}
