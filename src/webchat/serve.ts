import { readFile } from 'node:fs/promises'
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

let bundle: Promise<string> | undefined

/**
 * The web chat's script: the file `npm run build` bundled next to this module, or, when running from
 * the sources (tests, development), the same bundle made in memory by esbuild on first request.
 */
function webChatScript(): Promise<string> {
  bundle ??= readFile(new URL('./webchat.js', import.meta.url), 'utf8').catch(async () => {
    const { build } = await import('esbuild')
    const result = await build({ ...webChatBundle, write: false })
    return result.outputFiles[0]?.text ?? ''
  })
  return bundle
}

/** Answers GET /{webhookId}/ (the page) and /{webhookId}/webchat.js (its script). */
export async function serveWebChat(_webhookId: string, file: 'page' | 'script'): Promise<Response> {
  if (file === 'page') {
    return new Response(webChatPage(), {
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': contentSecurityPolicy,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      },
    })
  }
  return new Response(await webChatScript(), {
    headers: {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
    },
  })
}
