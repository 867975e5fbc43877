import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { BotHandler } from './handler.ts'

/**
 * The default export of the ES module at `path` (CONFAB_BOT_MODULE, relative to the working
 * directory): it takes the place of the echo bot for every bot without url.
 */
export async function loadBotModule(path: string): Promise<BotHandler> {
  const loaded = (await import(pathToFileURL(resolve(path)).href)) as { default?: unknown }
  if (typeof loaded.default !== 'function') {
    throw new Error(`CONFAB_BOT_MODULE ${path} must export a bot handler function as its default export`)
  }
  return loaded.default as BotHandler
}
