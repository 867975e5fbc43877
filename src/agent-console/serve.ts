import { createHash } from 'node:crypto'
import { bundledScript, pageResponse } from '../http/browser-files.ts'
import { agentConsoleBundle } from './bundle.ts'
import { agentConsolePage, agentConsoleStyles } from './page.ts'

// The page's own script and styles (the one <style>, by its hash) and the agent API on the same
// origin; nothing else: no image, font or frame loads, so a user's message cannot make the agent's
// browser fetch anything; no string becomes HTML (Trusted Types) or code.
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'sha256-${createHash('sha256').update(agentConsoleStyles).digest('base64')}'`,
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join('; ')

const page = agentConsolePage()
const script = bundledScript(new URL('./console.js', import.meta.url), agentConsoleBundle)

/** Answers GET /v1/agent/console (the page) and /v1/agent/console.js (its script). */
export const serveAgentConsole = (file: 'page' | 'script'): Promise<Response> =>
  file === 'page' ? Promise.resolve(pageResponse(page, contentSecurityPolicy)) : script()
