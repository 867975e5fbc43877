import { createHash } from 'node:crypto'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import { Response } from '@whatwg-node/fetch'
import type { Store } from '../db/store.ts'
import { DomainError } from '../domain/errors.ts'
import { findChatIntegration } from '../domain/tenancy.ts'
import { graphiqlPage } from '../graphql/graphiql.ts'
import type { RateLimits } from '../limits/rate-limits.ts'
import type { Landing } from './mounts.ts'
import { rateLimited } from './rate-limited.ts'

/*
 * GraphiQL, the page a browser gets at a GraphQL endpoint: 9 MB of HTML and script, made and
 * compressed once per scope (about 2.4 MB gzip, 1.9 MB br), sent only compressed, revalidated by its
 * ETag (304), and counted on the `anonymous` rate limit like the other pages that need no key.
 */

type Scope = 'chat' | 'admin'

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

interface Compressed {
  /** A weak ETag: the same for every encoding of the page (RFC 9110 §8.8.1). */
  etag: string
  gzip: Buffer
  /** Made after gzip (it takes longer): until then a browser that takes both gets gzip. */
  br: Promise<Buffer | undefined>
  brotli?: Buffer
}

const gzipped = promisify(gzip)
const brotlied = promisify(brotliCompress)

async function compress(scope: Scope): Promise<Compressed> {
  const page = Buffer.from(await graphiqlPage(scope))
  const etag = `W/"${createHash('sha256').update(page).digest('base64url').slice(0, 22)}"`
  // Quality 5: a tenth of the time of 9 for 5% more bytes, made once per process in zlib's threads.
  const br = brotlied(page, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: page.length } }).catch(() => undefined)
  const compressed: Compressed = { etag, gzip: await gzipped(page, { level: 6 }), br }
  void br.then((bytes) => void (compressed.brotli = bytes))
  return compressed
}

const pages = new Map<Scope, Promise<Compressed>>()

const pageOf = (scope: Scope): Promise<Compressed> => {
  let page = pages.get(scope)
  if (!page) {
    page = compress(scope)
    pages.set(scope, page)
    // A failure is not kept: the next request tries again.
    page.catch(() => pages.delete(scope))
  }
  return page
}

/** The codings of an Accept-Encoding header with a q above 0 (`*` standing for any). */
function accepted(header: string | null): Set<string> {
  const codings = new Set<string>()
  for (const part of (header ?? '').split(',')) {
    const [coding = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase())
    const q = params.find((p) => p.startsWith('q='))
    if (coding && (q === undefined || Number(q.slice(2)) > 0)) codings.add(coding)
  }
  return codings
}

/** Whether If-None-Match names this ETag (weak comparison, as a GET's revalidation uses). */
const matches = (header: string | null, etag: string) =>
  header !== null && (header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag.replace(/^W\//, '')))

/** Whether a request asks for a page rather than a GraphQL answer (yoga's rule: a GET that accepts HTML). */
export const asksForGraphiQL = (request: Request): boolean => request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html')

export type GraphiQLPages = (request: Request, landing: Landing, scope: Scope) => Promise<Response>

/** Serves the GraphiQL pages: each request counted per client address first, a chat one only at an existing webhook id. */
export function graphiqlPages(store: Store, limits: RateLimits | undefined): GraphiQLPages {
  return async (request, landing, scope) => {
    if (limits?.has('anonymous')) {
      const refusal = await limits.consume('anonymous', landing.clientAddress)
      if (refusal) throw rateLimited(refusal)
    }
    if (scope === 'chat') await findChatIntegration(store, landing.params.webhookId ?? '')
    const codings = accepted(request.headers.get('accept-encoding'))
    const any = codings.has('*')
    if (!codings.has('br') && !codings.has('gzip') && !any) {
      throw new DomainError('NotAcceptable', 'GraphiQL is sent compressed (Accept-Encoding: gzip or br): open it in a browser')
    }
    const page = await pageOf(scope)
    const headers: Record<string, string> = {
      etag: page.etag,
      'cache-control': 'no-cache',
      vary: 'accept-encoding',
      'x-request-id': landing.requestId,
    }
    if (matches(request.headers.get('if-none-match'), page.etag)) return new Response(null, { status: 304, headers })
    const brotli = codings.has('br') && (page.brotli ?? (codings.has('gzip') || any ? undefined : await page.br))
    const [coding, body] = brotli ? ['br', brotli] : ['gzip', page.gzip]
    return new Response(body as Uint8Array<ArrayBuffer>, {
      status: 200,
      headers: {
        ...headers,
        'content-type': 'text/html; charset=utf-8',
        'content-encoding': coding,
        'content-length': String(body.length),
        'content-security-policy': contentSecurityPolicy,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      },
    })
  }
}
