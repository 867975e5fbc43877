import type { BotAnswer } from '../../domain/bots/chat/answers.ts'

/** What a POSTing protocol (webhook, botpress) makes of an event: the attempt sends it and classifies what comes back. */
export interface EventPost {
  body: string
  /** Headers besides the Standard Webhooks ones. */
  headers?: Record<string, string>
  /** What the log names the POST by, besides its url and attempt (an @botpress/sdk event's x-bp-type). */
  about?: string
  /** Whether the timeout waits while the bot calls the bot API back (an @botpress/sdk bot answers once done). */
  waitsForBotApiCalls: boolean
  /** The bot's answer in a 2xx body; absent where the protocol ignores that body. */
  readAnswer?: (contentType: string | null, body: string) => BotAnswer | undefined
  /** Whether the start of a refusal's body (an @botpress/sdk bot's error message) goes into the log line. */
  quotesRefusal: boolean
}

/** How the in-process protocol's handler call ended, and how long it took: the attempt classifies it. */
export type HandlerOutcome = { kind: 'done'; returned: unknown; took: string } | { kind: 'failed'; reason: string; took: string }
