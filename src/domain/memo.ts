import type { ChatIntegrationRow, UserRow } from '../db/schema.ts'
import type { ChatLoaders } from './chat-loaders.ts'

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

/** What an administrator needs to reach a bot: its chat integration and its current signing secret. */
export interface BotSetup {
  integration: ChatIntegrationRow
  signingSecret: string
}
