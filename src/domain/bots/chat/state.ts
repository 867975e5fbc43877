import type { BotStateScope } from '../../../db/schema.ts'
import type { Queries, Store } from '../../../db/store.ts'
import { now } from '../../clock.ts'
import { expiryColumns, liveExpiries, liveValue } from './state-expiry.ts'

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

/** Inside a unit or a read: the bot's stored state for the key (expired states left out: state-expiry.ts). */
export async function readBotState(q: Queries, key: StateKey): Promise<BotState> {
  const state: BotState = { conversation: {}, user: {}, bot: {} }
  const at = now()
  for (const row of await q.botStates.find(key.botId, key.conversationId, key.userId)) state[row.scope] = liveValue(row, at)
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

/**
 * Removes the expired states of the scopes whose first expiry has passed by `at`, `batchSize` scopes
 * a unit: what a retention cycle does besides pruning by age (an expired state is never read before,
 * and leaves its row at the next bot API write of its scope anyway). How many scopes were rewritten.
 */
export async function sweepExpiredStates(store: Store, at: Date, batchSize = 500): Promise<number> {
  const time = at.toISOString()
  let swept = 0
  for (;;) {
    const rewritten = await store.write(async (q) => {
      const rows = await q.botStates.expiredBy(time, batchSize)
      for (const row of rows) {
        const value = liveValue(row, time)
        await q.botStates.write({ ...row, value, ...expiryColumns(liveExpiries(row, value, time)) })
      }
      return rows.length
    })
    swept += rewritten
    if (rewritten < batchSize) return swept
  }
}
