import type { Queries } from '../db/store.ts'
import { newId } from './ids.ts'

export type BotLogLevel = 'debug' | 'info' | 'warn' | 'error'

/** One line of a bot's log (getBotLogs), about one delivery of a conversation's event. */
export interface BotLogEntry {
  botId: string
  integrationId: string
  conversationId: string
  userId: string
  level: BotLogLevel
  message: string
}

/** Inside a unit: appends a line to the bot's log, timestamped `at`. */
export const insertBotLog = (q: Queries, entry: BotLogEntry, at: Date): Promise<void> =>
  q.botLogs.insert({ id: newId(), ...entry, createdAt: at.toISOString() })
