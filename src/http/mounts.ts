import type { ErrorPath, Failure } from '../graphql/errors.ts'
import { decodePathSegment } from './path.ts'
import type { Peer } from './peer.ts'

/** Where a request landed: its request id, the `:name` segments of the mount path, and what `*` matched. */
export interface Landing {
  requestId: string
  params: Record<string, string>
  /** The rest of the path under a mount ending in `/*`, with its leading slash. */
  path: string
  /** The request's URL, parsed once. */
  url: URL
  /** The other end of the request's connection (see trusted-proxy.ts for the client behind a proxy). */
  peer: Peer
  /** The client's address: the peer's, or the X-Forwarded-For hop the trusted proxies name. */
  clientAddress: string
  /** Set by a transport that routes further (REST): its route's pattern below the mount, e.g. `/messages/:id`. */
  route?: string
  /** Set by a transport that knows the operation it ran: a REST route's name, a GraphQL document's root fields. */
  operation?: string
  /** The base every absolute URL handed out for this request starts with (http/public-origin.ts). */
  publicUrl: () => string
  /** Set by a transport that verified a user key: the user it names, which live connections are counted by (graphql/context.ts countedCaller). */
  caller?: string
}

/** What the access log says of a request's routing: the pattern it matched, never its raw path. */
export interface Routed {
  /** The mount's path and the transport's route below it (`/:webhookId/conversations/:id`), or `(no route)`. */
  route: string
  /** The mount's kind (Mount.kind), and the operation its transport ran, when it told (Landing.operation). */
  kind?: string
  operation?: string
  /** The verified caller, when the transport told (Landing.caller). */
  caller?: string
}

/** One way of serving requests (REST, GraphQL over HTTP, the web chat, …) and of telling its refusals. */
export interface Transport {
  serve(request: Request, landing: Landing): Promise<Response>
  refuse(request: Request, failure: Failure, requestId: string): Response
  /**
   * Whether a read replica may serve a request with `method` to `path` (below the mount): true for a
   * read, 'if-query' when only the body can tell (a GraphQL document of queries only). Without it,
   * every request is served here.
   */
  replicable?(method: string, path: string): Replicable
}

export type Replicable = boolean | 'if-query'

export interface Mount {
  /** `/literal/:param/literal`, optionally ending in `/*` for everything below. */
  path: string
  transport: Transport
  /** What the metrics call requests of this mount (rest, graphql, bot-api, health …). */
  kind: string
}

/** A path's segments, split once for all mounts: as given, and without a trailing slash. */
interface Segments {
  all: string[]
  trimmed: string[]
}

const segmentsOf = (pathname: string): Segments => {
  const all = pathname.split('/').slice(1)
  return { all, trimmed: all.length > 1 && all.at(-1) === '' ? all.slice(0, -1) : all }
}

type Matcher = (segments: Segments) => { params: Record<string, string>; path: string } | undefined

function matcher(pattern: string): Matcher {
  const prefix = pattern.endsWith('/*')
  const segments = (prefix ? pattern.slice(0, -2) : pattern).split('/').slice(1)
  const exact = !prefix && !pattern.endsWith('/')
  // Each segment's parameter name (`:name`), or undefined for a literal one: decided once.
  const paramNames = segments.map((segment) => (segment.startsWith(':') ? segment.slice(1) : undefined))
  return ({ all, trimmed }) => {
    // A trailing slash is the same address, as for the REST routes (`/graphql/` is `/graphql`).
    const parts = exact ? trimmed : all
    if (prefix ? parts.length <= segments.length : parts.length !== segments.length) return undefined
    const params: Record<string, string> = {}
    for (let i = 0; i < segments.length; i++) {
      const part = parts[i] ?? ''
      const name = paramNames[i]
      if (name !== undefined) {
        if (part === '') return undefined
        params[name] = part
      } else if (segments[i] !== part) return undefined
    }
    return { params, path: prefix ? `/${parts.slice(segments.length).join('/')}` : '' }
  }
}

/** Checks around every request a transport serves; what they throw refuses it in that transport's form. */
export interface MountGuard {
  /** `kind`: the mount's (Mount.kind). */
  before(landing: Landing, kind: string): void
  /** Sees the transport's response (a 401 is a failed authentication) before it is sent. */
  after(landing: Landing, response: Response): Promise<void> | void
}

/** The URL, or undefined when it does not parse (URL.parse is missing from the Node 20s before 20.18). */
export function parsedUrl(url: string): URL | undefined {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

/**
 * Serves a table of mounts: the first whose path matches serves the request, and whatever it throws
 * is told in that transport's own form of refusal, through the one error path.
 */
export function serveMounts(mounts: Mount[], errors: ErrorPath, fallback: Transport, guard?: MountGuard) {
  const table = mounts.map((mount) => ({ ...mount, match: matcher(mount.path) }))

  /** Whether the transport a request lands on would let a read replica serve it (see Transport.replicable). */
  const replicable = (method: string, pathname: string): Replicable => {
    const segments = segmentsOf(pathname)
    for (const { match, transport } of table) {
      const hit = match(segments)
      if (hit) return transport.replicable?.(method, hit.path) ?? false
    }
    return false
  }

  const serve = async (request: Request, requestId: string, peer: Peer, clientAddress: string, publicUrl: () => string, routed?: Routed): Promise<Response> => {
    // An absolute-form target (`GET http://host/x`) follows the Host in the URL node's adapter makes: no URL.
    const url = parsedUrl(request.url)
    if (!url) return fallback.refuse(request, { type: 'InvalidPayload', status: 400, message: 'the request target is not a path' }, requestId)
    const { pathname } = url
    const segments = segmentsOf(pathname)
    for (const { match, transport, path: mountPath, kind } of table) {
      const hit = match(segments)
      if (!hit) continue
      const landing: Landing = { requestId, params: {}, path: hit.path, url, peer, clientAddress, publicUrl, route: undefined, caller: undefined }
      let response: Response
      try {
        landing.params = Object.fromEntries(Object.entries(hit.params).map(([name, raw]) => [name, decodePathSegment(raw)]))
        guard?.before(landing, kind)
        response = await transport.serve(request, landing)
      } catch (error) {
        response = transport.refuse(request, errors.describe(error, requestId), requestId)
      }
      if (routed) {
        routed.route = landing.route === undefined ? mountPath : `${mountPath.replace(/\/\*$/, '')}${landing.route}`
        routed.kind = kind
        routed.operation = landing.operation
        routed.caller = landing.caller
      }
      if (!guard) return response
      try {
        await guard.after(landing, response)
        return response
      } catch (error) {
        return transport.refuse(request, errors.describe(error, requestId), requestId)
      }
    }
    return fallback.refuse(request, { type: 'ResourceNotFound', status: 404, message: `no route for ${pathname}` }, requestId)
  }

  /** A refusal in the form of the transport the request's path lands on (for a refusal made after it served). */
  const refuse = (request: Request, failure: Failure, requestId: string): Response => {
    const segments = segmentsOf(new URL(request.url).pathname)
    const found = table.find(({ match }) => match(segments) !== undefined)
    return (found?.transport ?? fallback).refuse(request, failure, requestId)
  }

  return { serve, replicable, refuse }
}
