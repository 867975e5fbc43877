import type { Db } from '../db/client.ts'
import type { ChatIntegrationRow } from '../db/schema.ts'
import type { SignalPublisher } from './signals.ts'

/**
 * What a chat verb runs with: the chat integration named by the webhook id, and the user id a
 * verified user key names (absent when the request carried no key; verbs that need a caller ask
 * for it through requireCaller).
 */
export interface ChatContext {
  db: Db
  integration: ChatIntegrationRow
  callerId: string | undefined
  signals: SignalPublisher
}

/** What an administration verb runs with: the workspace the admin token opened. */
export interface AdminContext {
  db: Db
  workspaceId: string
}
