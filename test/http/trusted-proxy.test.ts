import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.ts'
import { trustedProxies } from '../../src/http/trusted-proxy.ts'

const forwarded = (value: string) => new Headers({ 'x-forwarded-for': value })

describe('TRUST_PROXY: which hop is the client', () => {
  it('believes no forwarded header by default: the client is the socket', () => {
    const proxies = trustedProxies(loadConfig({}).trustProxy)
    expect(proxies.trusts({ address: '127.0.0.1' })).toBe(false)
    expect(proxies.clientAddress({ address: '127.0.0.1' }, forwarded('203.0.113.9'))).toBe('127.0.0.1')
  })

  it('takes the hop a trusted proxy appended, never one the client wrote before it', () => {
    const proxies = trustedProxies(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy)
    expect(proxies.trusts({ address: '127.0.0.1' })).toBe(true)
    expect(proxies.trusts({ address: '192.0.2.1' })).toBe(false)
    // The client wrote "1.2.3.4"; the proxy at 127.0.0.1 appended the address it saw.
    expect(proxies.clientAddress({ address: '127.0.0.1' }, forwarded('1.2.3.4, 203.0.113.9'))).toBe('203.0.113.9')
    // Two trusted proxies in a row.
    expect(proxies.clientAddress({ address: '127.0.0.1' }, forwarded('1.2.3.4, 203.0.113.9, 10.1.2.3'))).toBe('203.0.113.9')
    // From an untrusted peer the header is ignored.
    expect(proxies.clientAddress({ address: '192.0.2.1' }, forwarded('203.0.113.9'))).toBe('192.0.2.1')
    expect(proxies.clientAddress({ address: '127.0.0.1' }, new Headers())).toBe('127.0.0.1')
  })

  it('refuses an entry that is no address, range or known name, at start', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'my-proxy' })).toThrow(/TRUST_PROXY must be/)
  })
})
