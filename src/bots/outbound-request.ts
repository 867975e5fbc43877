import http from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { addressRefusal, defaultOutboundPolicy, hostOf, type OutboundPolicy } from '../domain/outbound-policy.ts'

/** The outbound policy refused the address a request would have gone to: nothing was sent. */
export class OutboundRefused extends Error {}

export interface OutboundRequest {
  method: string
  headers: Record<string, string>
  body: string
  signal: AbortSignal
}

/** What a request got: its status, its headers, and its body to read (or cancel: the connection is then dropped). */
export interface OutboundResponse {
  status: number
  headers: { get(name: string): string | null }
  body: AsyncIterable<Uint8Array> & { cancel(): Promise<void> }
}

/**
 * The resolver net.connect calls for a host name: every address the name has is checked and one
 * of them connected to, so that a name cannot pass a check and then resolve elsewhere (DNS
 * rebinding). The connection goes to the name (TLS SNI and Host stay the name's).
 */
function checkedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    policy.resolve(hostname).then(
      (all) => {
        for (const { address } of all) {
          const why = addressRefusal(policy, address)
          if (why) return callback(new OutboundRefused(`refused by the outbound policy: ${hostname} resolves to ${why}`), '')
        }
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family || undefined
        const usable = family ? all.filter((a) => a.family === family) : [...all]
        const [first] = usable
        if (!first) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '')
        if (options.all) callback(null, usable)
        else callback(null, first.address, first.family)
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    )
  }
}

/** Each policy's connection pools (kept-alive connections stay with the address they were checked at). */
const agents = new WeakMap<OutboundPolicy, { 'http:': http.Agent; 'https:': https.Agent }>()

function agentsOf(policy: OutboundPolicy) {
  let found = agents.get(policy)
  if (!found) {
    const lookup = checkedLookup(policy)
    found = { 'http:': new http.Agent({ keepAlive: true, lookup }), 'https:': new https.Agent({ keepAlive: true, lookup }) }
    agents.set(policy, found)
  }
  return found
}

/**
 * One HTTP request from Confab to the outside (a bot's url), under `policy`: only http and https,
 * an IP literal judged before anything is sent, a host name at connect time (checkedLookup).
 * Redirects are never followed: a 3xx is the answer. A failure rejects with an Error whose cause is
 * what failed (an OutboundRefused, a socket error), as fetch's does.
 */
export function outboundRequest(url: string, init: OutboundRequest, policy: OutboundPolicy = defaultOutboundPolicy): Promise<OutboundResponse> {
  return new Promise((resolve, reject) => {
    const failed = (cause: unknown) => reject(new Error('request failed', { cause }))
    let target: URL
    try {
      target = new URL(url)
    } catch (error) {
      return failed(error)
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return failed(new OutboundRefused(`refused by the outbound policy: only http and https urls, got ${target.protocol}`))
    }
    const host = hostOf(target)
    const why = isIP(host) ? addressRefusal(policy, host) : undefined
    if (why) return failed(new OutboundRefused(`refused by the outbound policy: ${why}`))
    const transport = target.protocol === 'https:' ? https : http
    const request = transport.request(
      target,
      {
        method: init.method,
        headers: { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) },
        agent: agentsOf(policy)[target.protocol],
        signal: init.signal,
      },
      (response) => {
        // A body that fails is seen by whoever reads it; unread, its error must not go uncaught.
        response.on('error', () => {})
        const headers = response.headers
        resolve({
          status: response.statusCode ?? 0,
          headers: {
            get: (name) => {
              const value = headers[name.toLowerCase()]
              return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
            },
          },
          body: {
            [Symbol.asyncIterator]: () => response[Symbol.asyncIterator](),
            cancel: async () => {
              response.destroy()
            },
          },
        })
      },
    )
    request.on('error', failed)
    request.end(init.body)
  })
}
