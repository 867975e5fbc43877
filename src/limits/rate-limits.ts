import type { Redis } from 'ioredis'
import { type RateLimiterAbstract, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible'
import type { RateLimitName, RateLimitRule, RateLimitRules } from '../config.ts'
import { addressKey } from './address-key.ts'
import { MemoryCounters } from './memory-counters.ts'

/**
 * A Redis connection for the rate limits' counters (ioredis, imported only when REDIS_URL is set).
 * While Redis is away the limits count in each instance's memory (RateLimits' insurance): ioredis
 * reconnects by itself, a command is refused at once while it does (no offline queue), and one that
 * gets no answer (a Redis that stopped answering without closing the connection) is given up after
 * a second, so that no request waits on a counter.
 */
export async function connectRateLimitRedis(url: string): Promise<Redis> {
  const { Redis } = await import('ioredis')
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 1_000 })
  redis.on('error', () => {})
  await redis.connect()
  return redis
}

/** A request over its limit: which limit, its rule, and when a point frees up again. */
export interface RateLimitRefusal {
  limit: RateLimitName
  rule: RateLimitRule
  /** Milliseconds until the limit lets this key in again. */
  retryAfterMs: number
}

/** Where the counters live: this process's memory, or Redis (one limit for every instance that shares it). */
export interface RateLimitStore {
  redis?: Redis
  /** Prefix of the Redis keys; `confab:rl` by default. */
  prefix?: string
}

/** What a rate limit is counted per: said in its refusal's message. */
const perWhat: Record<RateLimitName, string> = {
  createUser: 'client address',
  anonymous: 'client address',
  uploads: 'client address',
  userWrites: 'user',
  userReads: 'user',
  streams: 'user',
  botMessages: 'bot',
  botApi: 'bot',
  admin: 'admin token',
  agent: 'agent',
  failedAuth: 'client address',
}

/** The limits counted per client address: their keys are addresses, counted by addressKey (an IPv6 address by its /64). */
const perAddress = new Set(Object.entries(perWhat).flatMap(([name, per]) => (per === 'client address' ? [name] : [])))

/** One limit: its counters in memory, and in Redis when there is one (the memory then counts only while Redis fails). */
interface Limiter {
  memory: MemoryCounters
  redis?: RateLimiterAbstract
}

/**
 * Confab's rate limits: one limiter per named rule, its counters in this process's memory
 * (MemoryCounters) or, with Redis, shared by every instance (rate-limiter-flexible); a Redis that
 * fails falls back to this instance's memory rather than refusing or letting everything through. A
 * rule that is off has no limiter: checking it costs a property read. A client address is counted
 * by addressKey: an IPv6 address by its /64, an IPv4-mapped one as its IPv4 address.
 */
export class RateLimits {
  private readonly limiters: Partial<Record<RateLimitName, Limiter>> = {}
  /**
   * Client addresses (as addressKey names them) refused for failed authentications, until when (ms
   * since the epoch): checked before anything else on every request, so kept here rather than asked
   * of Redis each time. Another instance learns of a block at its own next failure from that
   * address, which Redis refuses. Expired blocks are forgotten as the map grows.
   */
  private readonly blocked = new Map<string, number>()

  constructor(
    readonly rules: RateLimitRules,
    { redis, prefix = 'confab:rl' }: RateLimitStore = {},
  ) {
    for (const [name, rule] of Object.entries(rules) as [RateLimitName, RateLimitRule | undefined][]) {
      if (!rule) continue
      const options = { points: rule.points, duration: rule.seconds, keyPrefix: `${prefix}:${name}` }
      this.limiters[name] = {
        memory: new MemoryCounters(rule.points, rule.seconds * 1000),
        redis: redis && new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true }),
      }
    }
  }

  /** Whether a limit is on. */
  has(name: RateLimitName): boolean {
    return this.limiters[name] !== undefined
  }

  /** Counts one request of `key` against a limit; the refusal when it is over. */
  async consume(name: RateLimitName, key: string): Promise<RateLimitRefusal | undefined> {
    const limiter = this.limiters[name]
    if (!limiter) return undefined
    const counted = perAddress.has(name) ? addressKey(key) : key
    if (limiter.redis) {
      try {
        await limiter.redis.consume(counted)
        return undefined
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return this.refusal(name, rejection.msBeforeNext)
        // Anything but a RateLimiterRes is Redis failing: this instance's memory counts meanwhile.
      }
    }
    const retryAfterMs = limiter.memory.consume(counted)
    return retryAfterMs === undefined ? undefined : this.refusal(name, retryAfterMs)
  }

  private refusal(limit: RateLimitName, retryAfterMs: number): RateLimitRefusal {
    return { limit, rule: this.rules[limit] as RateLimitRule, retryAfterMs: Math.max(retryAfterMs, 1) }
  }

  /** The refusal of a client address that failed to authenticate too often, while it lasts. */
  blockedAddress(address: string, now = Date.now()): RateLimitRefusal | undefined {
    if (this.blocked.size === 0) return undefined
    const key = addressKey(address)
    const until = this.blocked.get(key)
    if (until === undefined) return undefined
    if (until <= now) {
      this.blocked.delete(key)
      return undefined
    }
    return { limit: 'failedAuth', rule: this.rules.failedAuth as RateLimitRule, retryAfterMs: until - now }
  }

  /** Counts a failed authentication of a client address; the refusal once it has failed too often. */
  async failedAuthentication(address: string): Promise<RateLimitRefusal | undefined> {
    const refusal = await this.consume('failedAuth', address)
    if (refusal) {
      // Forget the expired blocks now and then, so that the map holds only the addresses blocked now.
      if (this.blocked.size > 10_000) for (const [key, until] of this.blocked) if (until <= Date.now()) this.blocked.delete(key)
      this.blocked.set(addressKey(address), Date.now() + refusal.retryAfterMs)
    }
    return refusal
  }
}

/** These rules with every limit off but `name` (a read replica counts only `userReads`: wiring.ts). */
export const onlyRule = (rules: RateLimitRules, name: RateLimitName): RateLimitRules =>
  Object.fromEntries(Object.keys(rules).map((each) => [each, each === name ? rules[name] : undefined])) as RateLimitRules

const seconds = (ms: number) => Math.max(Math.ceil(ms / 1000), 1)

/** The refusal's words: which limit, per what, and when to try again. */
export const refusalMessage = ({ limit, rule, retryAfterMs }: RateLimitRefusal): string =>
  `rate limited: the "${limit}" limit allows ${rule.points} requests per ${rule.seconds} s per ${perWhat[limit]}; retry in ${seconds(retryAfterMs)} s`

/**
 * The headers of a 429: `Retry-After`, and the IETF RateLimit fields of draft-ietf-httpapi-ratelimit-headers
 * in their separate form (`RateLimit-Limit`, `-Remaining`, `-Reset`, seconds) with the `RateLimit-Policy`
 * that names the window (`30;w=60`), as Botpress and express-rate-limit send them.
 */
export function refusalHeaders({ rule, retryAfterMs }: RateLimitRefusal): Record<string, string> {
  const retry = String(seconds(retryAfterMs))
  return {
    'retry-after': retry,
    'ratelimit-limit': String(rule.points),
    'ratelimit-remaining': '0',
    'ratelimit-reset': retry,
    'ratelimit-policy': `${rule.points};w=${rule.seconds}`,
  }
}
