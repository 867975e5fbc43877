import proxyaddr from 'proxy-addr'
import type { Peer } from './peer.ts'

/**
 * The proxies in front of Confab (TRUST_PROXY): only a hop they are is believed about the hop
 * before it. A client can write any `X-Forwarded-For` it likes; only what a trusted proxy appended
 * counts, so the client address is the first untrusted one, reading from the socket backwards.
 */
export interface TrustedProxies {
  /** Whether the connection's peer is a trusted proxy (its forwarded headers are believed). */
  trusts(peer: Peer): boolean
  /** The client's address: the socket's, or the `X-Forwarded-For` hop the trusted proxies name. */
  clientAddress(peer: Peer, headers: Headers): string
}

/** `list`: addresses, CIDR ranges, or proxy-addr's names `loopback`, `linklocal`, `uniquelocal`. */
export function trustedProxies(list: readonly string[]): TrustedProxies {
  if (list.length === 0) {
    return { trusts: () => false, clientAddress: (peer) => peer.address }
  }
  const trust = proxyaddr.compile([...list])
  return {
    trusts: (peer) => trust(peer.address, 0),
    clientAddress: (peer, headers) => {
      const forwardedFor = headers.get('x-forwarded-for')
      if (forwardedFor === null) return peer.address
      // proxy-addr reads a node request; these are the only two fields it looks at.
      const req = { socket: { remoteAddress: peer.address }, connection: { remoteAddress: peer.address }, headers: { 'x-forwarded-for': forwardedFor } }
      return proxyaddr(req as unknown as Parameters<typeof proxyaddr>[0], trust)
    },
  }
}
