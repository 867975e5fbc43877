import type { ChatIntegrationRow, UserRow } from '../db/schema.ts'
import type { ChatLoaders } from './chat-loaders.ts'

/*
 * What one request has read and may need again lives on its context, never in a WeakMap keyed by
 * it: a scavenge keeps a WeakMap's values alive, so every request's reads would reach the old
 * generation (docs/internals/performance.md).
 */

/** A chat request's reads: its batch loaders, and the caller's row once read. */
export interface ChatMemo {
  loaders?: ChatLoaders
  caller?: UserRow
  /** The user this request created (createUser, no key yet): it is told its own profile. */
  createdUserId?: string
}

/** An administration request's reads: the bots' setups it asked for, by bot id. */
export interface AdminMemo {
  botSetups?: Map<string, Promise<BotSetup>>
}

/** What an administrator needs to reach a bot: its chat integration and its current signing secret. */
export interface BotSetup {
  integration: ChatIntegrationRow
  signingSecret: string
}
