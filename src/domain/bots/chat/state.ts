import type { BotStateScope } from '../../../db/schema.ts'
import type { Queries, Store } from '../../../db/store.ts'

type StateValue = Record<string, unknown>

/** The spec's `event.state`: what the bot stored for this conversation, this user and itself; `{}` until set. */
export interface BotState {
  conversation: StateValue
  user: StateValue
  bot: StateValue
}

/** Where a state is read and written: the bot, and the conversation and user of the event. */
export interface StateKey {
  botId: string
  conversationId: string
  userId: string
}

const scopeIds = (key: StateKey): Record<BotStateScope, string> => ({
  conversation: key.conversationId,
  user: key.userId,
  bot: '',
})

/** Inside a unit or a read: the bot's stored state for the key. */
export async function readBotState(q: Queries, key: StateKey): Promise<BotState> {
  const state: BotState = { conversation: {}, user: {}, bot: {} }
  for (const row of await q.botStates.find(key.botId, key.conversationId, key.userId)) state[row.scope] = row.value
  return state
}

/** Inside a unit: each part given replaces the stored one; the parts left out are kept. */
export async function storeBotState(q: Queries, key: StateKey, state: Partial<BotState>, at: Date): Promise<void> {
  const ids = scopeIds(key)
  for (const scope of ['conversation', 'user', 'bot'] as const) {
    const value = state[scope]
    if (value === undefined) continue
    await q.botStates.put({ botId: key.botId, scope, scopeId: ids[scope], value, updatedAt: at.toISOString() })
  }
}

export const getBotState = (store: Store, key: StateKey): Promise<BotState> => store.read((q) => readBotState(q, key))

export const setBotState = (store: Store, key: StateKey, state: Partial<BotState>): Promise<void> =>
  store.write((q) => storeBotState(q, key, state, new Date()))
