import type { Logger } from 'pino'
import { LruCache } from '../auth/lru.ts'

/** The browser origins allowed to call the API from another origin: a list, or `*` for any. */
export type CorsOrigins = readonly string[] | '*'

// The official web chat also sends x-admin-secret, timeout (on its stream) and x-amz-tagging (on file uploads).
const allowHeaders = 'content-type, accept, x-user-key, authorization, x-workspace-id, x-request-id, x-admin-secret, timeout, x-amz-tagging'

/** How often one refused origin is logged again, and how many refusals are logged a window at most. */
const REPEAT_AFTER_MS = 10 * 60_000
const LINES_PER_WINDOW = 20
const ORIGINS_REMEMBERED = 1000

/**
 * Tells the operator, at `info`, which origin a browser was refused for: without it a page missing
 * from CORS_ORIGINS only fails in its visitor's console. Bounded, since any stranger picks the
 * Origin header: one line per origin per 10 minutes, at most 20 lines per 10 minutes in all (the
 * next line counts those left out).
 */
function refusalLog(log: Logger | undefined, now: () => number) {
  const lastLogged = new LruCache<string, number>(ORIGINS_REMEMBERED)
  let windowStart = -Infinity
  let lines = 0
  let leftOut = 0
  return (origin: string, request: Request) => {
    if (!log) return
    const at = now()
    const last = lastLogged.get(origin)
    if (last !== undefined && at - last < REPEAT_AFTER_MS) return
    if (at - windowStart >= REPEAT_AFTER_MS) {
      windowStart = at
      lines = 0
    }
    if (lines >= LINES_PER_WINDOW) {
      leftOut++
      return
    }
    lines++
    lastLogged.set(origin, at)
    log.info(
      { origin, path: new URL(request.url).pathname, ...(leftOut > 0 ? { otherRefusalsNotLogged: leftOut } : {}) },
      'CORS: refused a browser origin that CORS_ORIGINS does not list (logged once per origin per 10 minutes)',
    )
    leftOut = 0
  }
}

/** Whether the Origin is the server's own (a same-origin POST carries one too): no CORS involved. */
const sameOrigin = (origin: string, request: Request) => {
  try {
    return new URL(origin).host === new URL(request.url).host
  } catch {
    return false
  }
}

/**
 * CORS for GraphQL and REST alike. A request from an allowed origin gets the CORS headers on its
 * response, and its preflight a 204; other origins get neither, so the browser keeps them out, and
 * the refusal is logged (see refusalLog).
 */
export function createCors(origins: CorsOrigins, log?: Logger, now: () => number = Date.now) {
  const allowed = (origin: string | null): origin is string => origin !== null && (origins === '*' || origins.includes(origin))
  const logRefusal = refusalLog(log, now)
  const refuse = (origin: string | null, request: Request) => {
    if (origin !== null && !sameOrigin(origin, request)) logRefusal(origin, request)
  }

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
      if (!allowed(origin)) {
        refuse(origin, request)
        return new Response(null, { status: 204 })
      }
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
      if (allowed(origin)) return headersFor(origin)
      refuse(origin, request)
      return {}
    },
  }
}
