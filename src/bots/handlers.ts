import { echoBot } from './echo.ts'
import type { BotHandler } from './handler.ts'

/** Bot handlers by the name a bot row stores in `handler`. */
export const builtInHandlers: Record<string, BotHandler> = {
  echo: echoBot,
}
