import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import { invalidPayload } from './errors.ts'

/**
 * Where Confab may send requests (a bot's url; docs/guides/running-on-the-internet.md). Addresses that are no server's
 * (link-local, where cloud metadata services answer, multicast, reserved) are refused always;
 * loopback and private ranges only when the operator says so, since a bot on the same host or
 * network is the common self-hosted case.
 */
export interface OutboundPolicy {
  /** BOT_URLS_PRIVATE: loopback, private and shared (CGNAT) ranges allowed (the default) or refused. */
  privateNetworks: 'allow' | 'deny'
  /** Every address a host name has (each one is checked): the system resolver, or a test's. */
  resolve: HostResolver
}

export type HostResolver = (hostname: string) => Promise<readonly { address: string; family: number }[]>

export const systemResolver: HostResolver = (hostname) => lookup(hostname, { all: true })

export const outboundPolicy = (privateNetworks: OutboundPolicy['privateNetworks'] = 'allow', resolve = systemResolver): OutboundPolicy => ({
  privateNetworks,
  resolve,
})

export const defaultOutboundPolicy = outboundPolicy()

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number]
const ranges = (table: [string, string][]): [Range, string][] => table.map(([cidr, name]) => [ipaddr.parseCIDR(cidr), name])

/** Never a bot's address, whatever the setting. The metadata hosts inside wider ranges come first. */
const forbidden = ranges([
  ['169.254.0.0/16', 'a link-local address (cloud metadata services answer at 169.254.169.254)'],
  ['100.100.100.200/32', 'a cloud metadata address'],
  ['192.0.0.0/24', 'an IETF protocol address (a cloud metadata service answers at 192.0.0.192)'],
  ['fd00:ec2::254/128', 'a cloud metadata address'],
  ['0.0.0.0/8', 'a "this network" address (0.0.0.0 reaches the host itself)'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved or broadcast address'],
  ['::/128', 'the unspecified address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
  ['100::/64', 'a discard-only address'],
])

/** Refused when BOT_URLS_PRIVATE=deny. */
const privateRanges = ranges([
  ['127.0.0.0/8', 'a loopback address'],
  ['::1/128', 'a loopback address'],
  ['10.0.0.0/8', 'a private address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.168.0.0/16', 'a private address'],
  ['fc00::/7', 'a private (unique local) address'],
  ['100.64.0.0/10', 'a shared (CGNAT) address'],
  ['198.18.0.0/15', 'a benchmarking network address'],
])

const nat64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96')
const ipv4Compatible = ipaddr.IPv6.parseCIDR('::/96')

/** IPv6 forms that carry an IPv4 address (mapped, translated, NAT64, 6to4, compatible): judged by it. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const bytes = address.toByteArray()
  const at = (offset: number) => new ipaddr.IPv4(bytes.slice(offset, offset + 4))
  const range = address.range()
  if (range === 'ipv4Mapped' || range === 'rfc6145') return at(12)
  if (range === '6to4') return at(2)
  if (address.match(nat64) || address.match(ipv4Compatible)) return at(12)
  return undefined
}

function classify(address: ipaddr.IPv4 | ipaddr.IPv6): { kind: 'forbidden' | 'private'; name: string } | undefined {
  const within = (table: [Range, string][]) => table.find(([[base, bits]]) => base.kind() === address.kind() && address.match(base, bits))?.[1]
  const never = within(forbidden)
  if (never) return { kind: 'forbidden', name: never }
  const local = within(privateRanges)
  if (local) return { kind: 'private', name: local }
  const inner = address.kind() === 'ipv6' ? embeddedIPv4(address as ipaddr.IPv6) : undefined
  return inner ? classify(inner) : undefined
}

/**
 * Why `address` (an IP literal) may not be connected to under `policy`, as the end of a sentence,
 * or undefined when it may. An address that does not parse is refused.
 */
export function addressRefusal(policy: OutboundPolicy, address: string): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6
  try {
    parsed = ipaddr.parse(address.replace(/%.*$/, ''))
  } catch {
    return `${address}, which is no IP address`
  }
  const found = classify(parsed)
  if (!found) return undefined
  if (found.kind === 'forbidden') return `${address}, ${found.name}, which Confab never connects to`
  return policy.privateNetworks === 'deny' ? `${address}, ${found.name}, which BOT_URLS_PRIVATE=deny refuses` : undefined
}

/** The host of a URL as a resolver or an address check takes it (an IPv6 literal without its brackets). */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1')

/** How long a bot's create/update waits for the resolver; past it, the url is taken (delivery checks again). */
const resolveTimeoutMs = 5_000

/** A url Confab will send to (named `field` in what is refused): an absolute http or https URL, else 400 InvalidPayload. */
export function checkHttpUrl(url: string, field = 'url'): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw invalidPayload(`${field} must be an absolute http or https URL, got ${JSON.stringify(url)}`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw invalidPayload(`${field} must use http or https, got ${JSON.stringify(parsed.protocol.slice(0, -1))}`)
  }
  return url
}

/**
 * A bot's url, or another url Confab sends to (`field`: an integration's webhookUrl), already an
 * absolute http/https URL, under `policy`: an IP literal is judged as it is, a host name by every
 * address it resolves to now; 400 InvalidPayload saying why when one is refused. A name that does
 * not resolve (yet) is taken: every connection checks again.
 */
export async function checkBotUrl(url: string, policy: OutboundPolicy = defaultOutboundPolicy, field = 'url'): Promise<string> {
  const host = hostOf(new URL(url))
  if (isIP(host)) {
    const why = addressRefusal(policy, host)
    if (why) throw invalidPayload(`${field} points at ${why}`)
    return url
  }
  let timer: NodeJS.Timeout | undefined
  const addresses = await Promise.race([
    policy.resolve(host),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), resolveTimeoutMs)
    }),
  ])
    .catch(() => [])
    .finally(() => clearTimeout(timer))
  for (const { address } of addresses) {
    const why = addressRefusal(policy, address)
    if (why) throw invalidPayload(`${field}'s host ${host} resolves to ${why}`)
  }
  return url
}
