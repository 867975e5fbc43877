import type { GraphiQLOptions, Plugin } from 'graphql-yoga'

/**
 * GraphiQL with its scripts, styles and editor workers inlined in the page (yoga's default loads them
 * from a CDN, which leaves the page blank on a machine without internet). The bundle is a 9 MB module:
 * it is loaded on the first page request, not when the server starts.
 */
export async function renderGraphiQL(options: GraphiQLOptions): Promise<string> {
  const { renderGraphiQL: render } = await import('@graphql-yoga/render-graphiql')
  return render(options)
}

// The page is one inline script that starts Monaco's editor workers from blob: URLs; it loads
// nothing else and talks only to its own origin, so the browser itself keeps it offline.
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  'worker-src blob:',
  "style-src 'unsafe-inline'",
  'font-src data:',
  'img-src data:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

/** The security headers of the GraphiQL page, the only HTML yoga answers with. */
export const useGraphiQLHeaders = (): Plugin => ({
  onResponse({ response }) {
    if (!response.headers.get('content-type')?.startsWith('text/html')) return
    response.headers.set('content-security-policy', contentSecurityPolicy)
    response.headers.set('x-content-type-options', 'nosniff')
    response.headers.set('referrer-policy', 'no-referrer')
  },
})
