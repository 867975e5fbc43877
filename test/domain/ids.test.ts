import { decodeTime } from 'ulid'
import { describe, expect, it } from 'vitest'
import { idFactory, newId, newWebhookId } from '../../src/domain/ids.ts'

const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/
const sorted = (ids: string[]) => [...ids].sort()

describe('newId', () => {
  it('makes 26-character Crockford base32 ULIDs carrying the current time', () => {
    const before = Date.now()
    const id = newId()
    expect(id).toMatch(ULID)
    expect(decodeTime(id)).toBeGreaterThanOrEqual(before)
    expect(decodeTime(id)).toBeLessThanOrEqual(Date.now())
  })

  it('is strictly increasing and unique across many ids made in the same milliseconds', () => {
    const ids = Array.from({ length: 20_000 }, newId)
    expect(new Set(ids).size).toBe(ids.length)
    expect(sorted(ids)).toEqual(ids)
  })
})

describe('idFactory', () => {
  it('increments the last id within one millisecond and while the clock steps back', () => {
    const times = [1_000, 1_000, 1_000, 999, 500, 1_001]
    const ids = idFactory(() => times.shift() as number)
    const made = Array.from({ length: 6 }, ids)
    expect(sorted(made)).toEqual(made)
    expect(made.slice(0, 5).map(decodeTime)).toEqual([1_000, 1_000, 1_000, 1_000, 1_000])
    expect(decodeTime(made[5] as string)).toBe(1_001)
  })

  it('draws fresh, uniformly spread randomness each millisecond, across refills of its pool', () => {
    let time = 1_700_000_000_000
    const ids = idFactory(() => time++)
    // 4,000 new milliseconds use 64,000 random characters: many refills of the pool.
    const randomParts = Array.from({ length: 4_000 }, () => ids().slice(10))
    expect(new Set(randomParts).size).toBe(randomParts.length)
    const counts = new Map<string, number>()
    for (const char of randomParts.join('')) counts.set(char, (counts.get(char) ?? 0) + 1)
    // Each of the 32 symbols is expected 2,000 times (standard deviation about 44).
    expect(counts.size).toBe(32)
    for (const count of counts.values()) expect(count).toBeGreaterThan(1_700)
    for (const count of counts.values()) expect(count).toBeLessThan(2_300)
  })
})

describe('newWebhookId', () => {
  it('makes 24 url-safe characters that never begin with "-" or "_" (a command line takes those for options)', () => {
    // 1 in 32 random ids began with one of them: 2,000 would all but surely show one.
    const ids = Array.from({ length: 2_000 }, newWebhookId)
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{23}$/)
    expect(new Set(ids).size).toBe(ids.length)
  })
})
