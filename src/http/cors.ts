/** The browser origins allowed to call the API from another origin: a list, or `*` for any. */
export type CorsOrigins = readonly string[] | '*'

// The official web chat also sends x-admin-secret, timeout (on its stream) and x-amz-tagging (on file uploads).
const allowHeaders =
  'content-type, accept, x-user-key, authorization, x-workspace-id, x-request-id, x-admin-secret, timeout, x-amz-tagging'

/**
 * CORS for GraphQL and REST alike. A request from an allowed origin gets the CORS headers on its
 * response, and its preflight a 204; other origins get neither, so the browser keeps them out.
 */
export function createCors(origins: CorsOrigins) {
  const allowed = (origin: string | null): origin is string =>
    origin !== null && (origins === '*' || origins.includes(origin))

  const headersFor = (origin: string): Record<string, string> => ({
    'access-control-allow-origin': origins === '*' ? '*' : origin,
    'access-control-expose-headers': 'x-request-id',
    ...(origins === '*' ? {} : { vary: 'Origin' }),
  })

  return {
    /** The answer to a CORS preflight, or undefined when the request is not one. */
    preflight(request: Request): Response | undefined {
      if (request.method !== 'OPTIONS' || !request.headers.has('access-control-request-method')) return undefined
      const origin = request.headers.get('origin')
      if (!allowed(origin)) return new Response(null, { status: 204 })
      return new Response(null, {
        status: 204,
        headers: {
          ...headersFor(origin),
          'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS',
          'access-control-allow-headers': allowHeaders,
          'access-control-max-age': '600',
        },
      })
    },
    /** The CORS headers the request's origin is entitled to on its response (none for other origins). */
    responseHeaders(request: Request): Record<string, string> {
      const origin = request.headers.get('origin')
      return allowed(origin) ? headersFor(origin) : {}
    },
  }
}
