import { isIP } from 'node:net'
import { type HostResolver, type OutboundPolicy, outboundPolicy } from '../../src/domain/outbound-policy.ts'

/**
 * A resolver the test owns: names resolve to the addresses it sets (and may change between two
 * looks, as a rebinding DNS server's would); any other name does not resolve. Tests never ask real
 * DNS, whose server is not on loopback.
 */
export function testResolver(names: Record<string, string[]> = {}) {
  const table = new Map(Object.entries({ localhost: ['127.0.0.1'], ...names }))
  /** Every name asked for, in order. */
  const asked: string[] = []
  const resolve: HostResolver = async (hostname) => {
    asked.push(hostname)
    const addresses = table.get(hostname.toLowerCase())
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    return addresses.map((address) => ({ address, family: isIP(address) }))
  }
  return { resolve, asked, set: (name: string, addresses: string[]) => void table.set(name, addresses) }
}

/** The policy a test app runs with unless it says otherwise: the default one, over a resolver that knows localhost only. */
export const testOutbound = (privateNetworks: OutboundPolicy['privateNetworks'] = 'allow', resolver = testResolver()) =>
  outboundPolicy(privateNetworks, resolver.resolve)
