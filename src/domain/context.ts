import type { ChatIntegrationRow, UserRow } from '../db/schema.ts'
import type { Store } from '../db/store.ts'
import type { BotInbox } from './bot-deliveries.ts'
import type { BotSetup } from './bots.ts'
import type { ChatLoaders } from './loaders.ts'
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
  /** The request's x-admin-secret (the web chat's), which generateUserKey checks. */
  adminSecret?: string
  signals: SignalPublisher
  bots: BotInbox
  /** What this request has read and may need again; a context made for another caller starts a new one. */
  memo: ChatMemo
  /** The caps on what a user writes (docs/caps.md); none when absent (a bot's own context). */
  limits?: ChatLimits
}

/** A cap of 0 is none. */
export interface ChatLimits {
  /** MESSAGE_MAX_BYTES: a user message's payload and metadata, as JSON. */
  messageMaxBytes: number
  /** FILE_STORAGE_PER_USER_BYTES: the total announced size of a user's files. */
  storagePerUser: number
}

/*
 * What one request has read and may need again lives on its context, never in a WeakMap keyed by
 * it. V8's young-generation GC keeps a WeakMap's values alive (only a full GC sees through them),
 * and what is remembered (loaders, pending reads) holds the context: every request's reads
 * survived into the old generation, to be marked and swept there. Scavenges took 8–10 ms instead
 * of 2, and a REST page of 20 messages nearly twice the CPU (286 µs against 152, in process).
 */

/** A chat request's reads: its batch loaders, and the caller's row once read. */
export interface ChatMemo {
  loaders?: ChatLoaders
  caller?: UserRow
}

/** An administration request's reads: the bots' setups it asked for, by bot id. */
export interface AdminMemo {
  botSetups?: Map<string, Promise<BotSetup>>
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
