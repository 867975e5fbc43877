import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectRateLimitRedis, RateLimits } from '../../src/limits/rate-limits.ts'
import { type PrivateRedis, startPrivateRedis } from '../helpers/private-services.ts'
import { eventually } from '../helpers/wait.ts'

/*
 * The rate limits while Redis is away, on a redis-server of the test's own (killed and started
 * again; never the shared one): they fail open to the instance's memory (docs/reference/limits.md).
 */

let redis: PrivateRedis
let client: Awaited<ReturnType<typeof connectRateLimitRedis>>

beforeAll(async () => {
  redis = await startPrivateRedis()
  client = await connectRateLimitRedis(redis.url)
}, 60_000)

afterAll(async () => {
  client?.disconnect()
  await redis?.remove()
})

/** Counts one request of `key`, how long it took to be decided, and whether it was let in. */
const timed = async (limits: RateLimits, key: string) => {
  const started = performance.now()
  const refusal = await limits.consume('userWrites', key)
  return { admitted: refusal === undefined, ms: performance.now() - started }
}

describe('rate limits counted in Redis, while Redis is away', () => {
  it('let requests in at once, still counting them in memory (fail open to each instance), and count in Redis again once it is back', async () => {
    const limits = new RateLimits({ userWrites: { points: 3, seconds: 600 } } as never, { redis: client, prefix: `chaos:${process.pid}` })
    expect([await timed(limits, 'u'), await timed(limits, 'u')].map((r) => r.admitted)).toEqual([true, true])

    await redis.kill()
    await eventually(() => expect(client.status).not.toBe('ready'))
    const away = [await timed(limits, 'u'), await timed(limits, 'u'), await timed(limits, 'u'), await timed(limits, 'u')]
    // Not refused for Redis' sake: this instance's own count (starting at 0) admits 3, then refuses.
    expect(away.map((r) => r.admitted)).toEqual([true, true, true, false])
    for (const { ms } of away) expect(ms).toBeLessThan(1_500)

    await redis.start()
    await eventually(() => expect(client.status).toBe('ready'), 15_000)
    // Redis restarted empty (no persistence): its count starts again, and it is the one that refuses.
    const back = [await timed(limits, 'v'), await timed(limits, 'v'), await timed(limits, 'v'), await timed(limits, 'v')]
    expect(back.map((r) => r.admitted)).toEqual([true, true, true, false])
    expect(Number(await client.get(`chaos:${process.pid}:userWrites:v`))).toBe(4)
  }, 60_000)
})
