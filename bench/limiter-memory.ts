/*
 * The memory of the in-memory rate limit counters per key (issue 49 row 13): 200,000 client
 * addresses counted once each, by rate-limiter-flexible's RateLimiterMemory (the store before) and by
 * MemoryCounters (src/limits/memory-counters.ts, the store now); heap after a full GC, before and after.
 *   npm run bench -- --only limiter [--limiter-keys 200000]
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { RateLimiterMemory } from 'rate-limiter-flexible'
import { MemoryCounters, memoryCountersMaxKeys } from '../src/limits/memory-counters.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** The heap in use after two full collections (the second frees what the first's finalisers left). */
function settledHeap(): number {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

/** Client addresses, each its own key: 10.x.y.z. */
const addressOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`

/** Bytes per key of a store, counting `keys` addresses once each (the store kept alive while measured). */
async function bytesPerKey(keys: number, count: (key: string) => unknown): Promise<number> {
  const before = settledHeap()
  for (let i = 0; i < keys; i++) await count(addressOf(i))
  const after = settledHeap()
  return (after - before) / keys
}

export async function limiterMemoryPhase(keys: number, row: (figure: string, measured: string, goal?: string) => void): Promise<void> {
  console.log(`\nrate limit counters in memory: ${keys.toLocaleString('en')} client addresses`)
  const flexible = new RateLimiterMemory({ points: 300, duration: 60 })
  const before = await bytesPerKey(keys, (key) => flexible.consume(key))
  row(
    `rate-limiter-flexible RateLimiterMemory (before), ${keys.toLocaleString('en')} keys`,
    `${before.toFixed(0)} B/key (${((before * keys) / 2 ** 20).toFixed(1)} MiB)`,
  )
  const counters = new MemoryCounters(300, 60_000)
  const after = await bytesPerKey(keys, (key) => counters.consume(key))
  if (counters.size !== keys) throw new Error(`MemoryCounters counted ${counters.size} keys, not ${keys}`)
  row(
    `MemoryCounters (now), ${keys.toLocaleString('en')} keys`,
    `${after.toFixed(0)} B/key (${((after * keys) / 2 ** 20).toFixed(1)} MiB)`,
    'well under 570 B/key',
  )
  row(
    `MemoryCounters at its maximum (${memoryCountersMaxKeys.toLocaleString('en')} keys per limit and window)`,
    `about ${((after * memoryCountersMaxKeys) / 2 ** 20).toFixed(0)} MiB per limit`,
  )
}
