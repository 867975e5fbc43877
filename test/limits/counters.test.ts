import { describe, expect, it } from 'vitest'
import { addressKey } from '../../src/limits/address-key.ts'
import { MemoryCounters } from '../../src/limits/memory-counters.ts'

// The in-memory rate limit counters (one Map of numbers per limit, fixed windows aligned on the
// clock, a documented maximum of keys) and the name a client address is counted by (issue 49 row 13).
// Their memory per key is measured by `npm run bench -- --only limiter`, not here.

describe('addressKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:203.0.113.7', '203.0.113.7'],
    ['::ffff:cb00:7107', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:db8:1:2::192.0.2.1', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['not an address', 'not an address'],
  ])('%s is counted as %s', (address, key) => {
    expect(addressKey(address)).toBe(key)
  })
})

describe('MemoryCounters', () => {
  it('allows `points` a window per key, tells the time to the window end, and starts afresh with the next window', () => {
    let now = 60_000 * 1000 + 15_000
    const counters = new MemoryCounters(2, 60_000, 10, () => now)
    expect(counters.consume('a')).toBeUndefined()
    expect(counters.consume('a')).toBeUndefined()
    expect(counters.consume('a')).toBe(45_000)
    expect(counters.consume('b')).toBeUndefined()
    now += 44_999
    expect(counters.consume('a')).toBe(1)
    now += 1
    expect(counters.consume('a')).toBeUndefined()
    expect(counters.size).toBe(1)
  })

  it('holds at most maxKeys a window: the keys past it share one counter, the keys counted keep theirs', () => {
    const counters = new MemoryCounters(1, 60_000, 3, () => 0)
    for (const key of ['a', 'b']) expect(counters.consume(key)).toBeUndefined()
    expect(counters.consume('c')).toBeUndefined()
    // 'c' took the last place; 'd' and 'e' share the overflow counter (one point), the one entry more.
    expect(counters.size).toBe(3)
    expect(counters.consume('d')).toBeUndefined()
    expect(counters.consume('e')).toBe(60_000)
    for (let i = 0; i < 100; i++) counters.consume(`new-${i}`)
    expect(counters.size).toBe(4)
    expect(counters.consume('a')).toBe(60_000)
  })
})
