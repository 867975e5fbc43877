import type { HandledBy } from '../db/schema.ts'
import type { Store } from '../db/store.ts'

/** Who handles the conversations handed off (the bot's are every other one, and not counted). */
export const censusedHandlers = ['waiting', 'agent', 'closed'] as const satisfies readonly HandledBy[]

export interface HandoffCensus {
  /** How many conversations each handler has: `waiting` is the queue's length. */
  conversations: Record<(typeof censusedHandlers)[number], number>
  /** How long the conversation waiting longest has waited since it was handed off (0 when none waits). */
  oldestWaitingSeconds: number
}

/**
 * The handoffs as an operator watches them, read from the database at each scrape (through the
 * handoff index: the bot's conversations are not read). Every instance on a shared PostgreSQL
 * reports the same numbers, whichever instance took the writes: aggregate them with max(), not sum().
 */
export async function handoffCensus(store: Store, at: Date = new Date()): Promise<HandoffCensus> {
  const rows = await store.read((q) => q.handoffs.census())
  const conversations = { waiting: 0, agent: 0, closed: 0 }
  let oldestWaitingSeconds = 0
  for (const row of rows) {
    if (row.handledBy === 'bot') continue
    conversations[row.handledBy] = row.conversations
    if (row.handledBy === 'waiting' && row.oldestHandoffAt) oldestWaitingSeconds = Math.max(0, (at.getTime() - Date.parse(row.oldestHandoffAt)) / 1000)
  }
  return { conversations, oldestWaitingSeconds }
}
