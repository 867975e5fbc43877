import type { ChatIntegrationRow } from '../db/schema.ts'
import type { Store } from '../db/store.ts'
import type { BotInbox } from './bots/delivery/inbox.ts'
import type { AdminMemo, ChatMemo } from './memo.ts'
import type { NonParticipantStatus } from '../config.ts'
import type { SignalPublisher } from './signals.ts'

/**
 * What a chat verb runs with: the chat integration named by the webhook id, and the user id a
 * verified user key names (absent when the request carried no key; verbs that need a caller ask
 * for it through requireCaller). Signals and bot deliveries go out once the write committed.
 */
export interface ChatContext {
  store: Store
  integration: ChatIntegrationRow
  callerId: string | undefined
  /** The x-user-key that named the caller, as given (the web chat's `init` hands it back unchanged, `exp` and all). */
  callerKey?: string
  /** The request's x-admin-secret (the web chat's), which generateUserKey checks. */
  adminSecret?: string
  signals: SignalPublisher
  bots: BotInbox
  /** What this request has read and may need again; a context made for another caller starts a new one. */
  memo: ChatMemo
  /** The caps on what a user writes (docs/reference/limits.md); none when absent (a bot's own context). */
  limits?: ChatLimits
  /** NON_PARTICIPANT_STATUS (domain/non-participant.ts): 404 when absent. */
  nonParticipantStatus?: NonParticipantStatus
}

/** A cap of 0 is none. */
export interface ChatLimits {
  /** MESSAGE_MAX_BYTES: a user message's payload and metadata, as JSON. */
  messageMaxBytes: number
  /** FILE_STORAGE_PER_USER_BYTES: the total announced size of a user's files. */
  storagePerUser: number
  /** MESSAGE_STORAGE_PER_USER_BYTES: the bytes a user's messages and custom events take as stored. */
  messageStoragePerUser: number
}

/** What an administration verb runs with: the workspace the admin token opened. */
export interface AdminContext {
  store: Store
  workspaceId: string
  signals: SignalPublisher
  /** Woken when a bot's url changes (delivery to it may resume). */
  bots: BotInbox
  memo: AdminMemo
}
