import { isIPv6 } from 'node:net'
import type { Peer } from './peer.ts'
import { trustedProxies } from './trusted-proxy.ts'

/** What the public origin of a request is read from: a Request's headers, or a node request's (see nodeHeaders). */
export interface HeaderSource {
  get(name: string): string | null
}

// RFC 3986 §3.2.2: a reg-name (an IPv4 address is one too) of unreserved, sub-delims and %HH.
const regName = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/
const authority = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d{1,5}))?$/

/**
 * Whether `value` is a `host[:port]` (RFC 3986: reg-name, IPv4 or [IPv6], port 0-65535) that also
 * makes a URL: a Host such as `evil:80@attacker` or `a/b` would otherwise rewrite the URLs made of it.
 */
export function isHostAndPort(value: string): boolean {
  const match = authority.exec(value)
  if (!match) return false
  const [, host = '', port] = match
  if (port !== undefined && Number(port) > 65535) return false
  if (host.startsWith('[') ? !isIPv6(host.slice(1, -1)) : !regName.test(host)) return false
  return URL.canParse(`http://${value}/`)
}

/** The scheme a forwarded proto names (a proxy may say `wss` for a WebSocket), or undefined for any other. */
const schemes = new Map<string, 'http' | 'https'>([
  ['http', 'http'],
  ['https', 'https'],
  ['ws', 'http'],
  ['wss', 'https'],
])

/** The last of a comma-separated header's values: the one the proxy next to Confab wrote. */
const lastValue = (value: string | null) => value?.split(',').at(-1)?.trim() || undefined

/**
 * The `proto` and `host` of the last element of an RFC 7239 `Forwarded` header (the one the proxy
 * next to Confab appended): `for=1.2.3.4;proto=https;host="chat.example.com"`.
 */
export function lastForwarded(value: string | null): { proto?: string; host?: string } {
  if (!value) return {}
  // Elements are comma-separated, pairs semicolon-separated; a quoted value may hold either.
  const elements = value.match(/(?:"(?:[^"\\]|\\.)*"|[^,"])+/g) ?? []
  const last = elements.at(-1) ?? ''
  const pairs: Record<string, string> = {}
  for (const pair of last.match(/(?:"(?:[^"\\]|\\.)*"|[^;"])+/g) ?? []) {
    const at = pair.indexOf('=')
    if (at < 0) continue
    const raw = pair.slice(at + 1).trim()
    pairs[pair.slice(0, at).trim().toLowerCase()] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw
  }
  return { proto: pairs.proto, host: pairs.host }
}

/** The authority of a URL as written, before a URL parser drops or reads anything in it. */
function authorityOf(url: string): string {
  const start = url.indexOf('://') + 3
  if (start < 3) return ''
  const end = url.slice(start).search(/[/?#]/)
  const authority = end < 0 ? url.slice(start) : url.slice(start, start + end)
  // Never empty from node's adapter or a replica, which put the local address in for no Host.
  return authority === '' ? ' ' : authority
}

/** PUBLIC_URL and TRUST_PROXY: where the URLs Confab hands out point. */
export interface PublicUrlOptions {
  /** PUBLIC_URL (validated by loadConfig): every URL handed out starts with it. */
  publicUrl?: string
  /** TRUST_PROXY: only these peers' forwarded headers are believed. */
  trustProxy?: readonly string[]
}

/**
 * The public origin of a request, in one place: what every absolute URL Confab hands out (a bot's
 * webhookUrl, a file's url and uploadUrl, …) starts with. PUBLIC_URL when set; otherwise the scheme
 * and host a trusted proxy forwarded (`X-Forwarded-Proto`/`-Host`, else `Forwarded`'s `proto=` and
 * `host=`), else the request's own scheme and Host. An untrusted peer's forwarded headers are ignored.
 */
export interface PublicUrls {
  /**
   * Why the request must be refused (400 InvalidPayload) before anything else: its Host, or a host
   * or scheme a trusted proxy forwarded, is not one a URL can be made of. Undefined when all is well.
   * `url` is the request's URL: without a Host header (an in-process request, or one whose Host
   * node read as empty), its authority as written is checked instead.
   */
  refusal(headers: HeaderSource, peer: Peer, url?: string): string | undefined
  /** The base of the URLs handed out for a request to `url` (scheme://host[:port][/base path], no trailing slash). */
  baseOf(url: string, headers: HeaderSource, peer: Peer): string
}

export function publicUrls({ publicUrl, trustProxy = [] }: PublicUrlOptions = {}): PublicUrls {
  const proxies = trustedProxies(trustProxy)
  const fixed = publicUrl?.replace(/\/+$/, '')
  // Nearly every request names the same Host: checked once, not on each (a regex and a URL parse).
  let lastValidHost = ''

  /** What a trusted proxy forwarded: per field, its X-Forwarded-* header, else Forwarded's pair. */
  const forwarded = (headers: HeaderSource, peer: Peer) => {
    if (!proxies.trusts(peer)) return {}
    const pairs = lastForwarded(headers.get('forwarded'))
    return {
      proto: lastValue(headers.get('x-forwarded-proto')) ?? pairs.proto,
      host: lastValue(headers.get('x-forwarded-host')) ?? pairs.host,
    }
  }

  return {
    refusal(headers, peer, url) {
      const host = headers.get('host') || (url === undefined ? '' : authorityOf(url))
      if (host !== '' && host !== lastValidHost) {
        if (!isHostAndPort(host)) return `the Host header is not a valid host[:port]: ${JSON.stringify(host.slice(0, 100))}`
        lastValidHost = host
      }
      const { proto, host: forwardedHost } = forwarded(headers, peer)
      if (forwardedHost !== undefined && !isHostAndPort(forwardedHost)) {
        return `the forwarded host is not a valid host[:port]: ${JSON.stringify(forwardedHost.slice(0, 100))}`
      }
      if (proto !== undefined && !schemes.has(proto.toLowerCase()))
        return `the forwarded scheme must be http or https, got ${JSON.stringify(proto.slice(0, 20))}`
      return undefined
    },
    baseOf(url, headers, peer) {
      if (fixed !== undefined) return fixed
      const own = new URL(url)
      const { proto, host } = forwarded(headers, peer)
      const scheme = (proto && schemes.get(proto.toLowerCase())) ?? own.protocol.slice(0, -1)
      return `${scheme}://${host ?? own.host}`
    },
  }
}

/** A node request's headers as a HeaderSource (a repeated header's values joined, as Headers does). */
export const nodeHeaders = (headers: Record<string, string | string[] | undefined>): HeaderSource => ({
  get: (name) => {
    const value = headers[name]
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
  },
})
