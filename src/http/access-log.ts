import type { Logger } from 'pino'

/** The kind of credential a request carried, never the credential itself. */
export type CredentialKind = 'none' | 'user-key' | 'admin-token' | 'bot-key' | 'agent-key' | 'admin-secret'

export function credentialKind(headers: Headers, route: string): CredentialKind {
  if (route.startsWith('/v1/admin')) return headers.has('authorization') ? 'admin-token' : 'none'
  if (route.startsWith('/v1/agent')) return headers.has('authorization') ? 'agent-key' : 'none'
  if (route.startsWith('/v1/chat')) return headers.has('authorization') ? 'bot-key' : 'none'
  if (headers.has('x-user-key')) return 'user-key'
  if (headers.has('x-admin-secret')) return 'admin-secret'
  return 'none'
}

/** What a request was, for its access line. */
export interface Served {
  requestId: string
  clientAddress: string
  /** The route pattern it matched (see mounts.ts Routed). */
  route: string
  /** performance.now() when it came in. */
  started: number
}

const isEventStream = (response: Response) => (response.headers.get('content-type') ?? '').startsWith('text/event-stream')

/** Why a request was refused, as its error body says it (REST or GraphQL); read from a copy, only for 401 and 429. */
async function reasonOf(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.clone().json()) as { message?: unknown; errors?: { message?: unknown }[] }
    const message = body.message ?? body.errors?.[0]?.message
    return typeof message === 'string' ? message : undefined
  } catch {
    return undefined
  }
}

const milliseconds = (since: number) => Math.round((performance.now() - since) * 100) / 100

/**
 * One structured line per request (`msg: "request"`): method, route pattern, status, duration, request
 * id, client address and credential kind; no key, token, secret, raw path or body. A refused
 * authentication (401) and a rate-limited request (429) are at `warn`, with the refusal's reason;
 * everything else at `info`. An event stream logs when it opens (its line, `stream: "open"`) and
 * again when it closes, with how long it lasted.
 */
export function createAccessLog(log: Logger) {
  return async function logRequest(request: Request, response: Response, served: Served): Promise<void> {
    const { status } = response
    const refused = status === 401 || status === 429
    if (!log.isLevelEnabled(refused ? 'warn' : 'info')) return
    const line = {
      method: request.method,
      route: served.route,
      status,
      ms: milliseconds(served.started),
      requestId: served.requestId,
      client: served.clientAddress,
      credential: credentialKind(request.headers, served.route),
    }
    if (refused) {
      log.warn({ ...line, reason: await reasonOf(response) }, status === 401 ? 'request refused: authentication failed' : 'request refused: rate limited')
      return
    }
    if (status !== 200 || !isEventStream(response)) {
      log.info(line, 'request')
      return
    }
    log.info({ ...line, stream: 'open' }, 'request')
    const opened = performance.now()
    request.signal.addEventListener(
      'abort',
      () => log.info({ ...line, stream: 'closed', ms: milliseconds(served.started), openMs: milliseconds(opened) }, 'stream closed'),
      { once: true },
    )
  }
}
