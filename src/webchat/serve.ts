import { bundledScript, pageResponse } from '../http/browser-files.ts'
import { webChatBundle } from './bundle.ts'
import { webChatPage } from './page.ts'

// Only what the page itself needs: its script and the API on the same origin, media from anywhere.
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'unsafe-inline'",
  "connect-src 'self'",
  'img-src https: http: data:',
  'media-src https: http:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const webChatScript = bundledScript(new URL('./webchat.js', import.meta.url), webChatBundle)

/** Answers GET /{webhookId}/ (the page) and /{webhookId}/webchat.js (its script). */
export async function serveWebChat(_webhookId: string, file: 'page' | 'script'): Promise<Response> {
  return file === 'page' ? pageResponse(webChatPage(), contentSecurityPolicy) : webChatScript()
}
