import { afterAll, beforeAll, expect } from 'vitest'
import { type RateLimitRules, rateLimitDefaults } from '../../src/config.ts'
import { ENCRYPTION_KEY, type TestAppOptions } from './app.ts'
import type { Answer } from './from-address.ts'
import { type Listening, startListening } from './listening.ts'

/** The default rules with these overrides: tests inject small limits rather than send thousands of requests. */
export const rules = (overrides: Partial<RateLimitRules>): RateLimitRules => ({ ...rateLimitDefaults, ...overrides })

/** A listening app of its own for the enclosing describe, with these rate limits (and other options). */
export function useLimitedServer(rateLimits: NonNullable<TestAppOptions>['rateLimits'], options: TestAppOptions = {}) {
  let listening: Listening | undefined
  beforeAll(async () => {
    listening = await startListening({ ...options, rateLimits })
  })
  afterAll(() => listening?.close())
  const current = () => {
    if (!listening) throw new Error('the server exists only while the describe runs')
    return listening
  }
  return {
    get baseUrl() {
      return current().baseUrl
    },
    get apiUrl() {
      return current().apiUrl
    },
    get t() {
      return current().t
    },
    get botId() {
      return current().botId
    },
  }
}

/** 429 RateLimited in the contract's error body, with Retry-After and the RateLimit-* fields of `points` per `seconds`. */
export function expectRateLimited(answer: Answer, points: number, seconds = 60) {
  expect(answer.status).toBe(429)
  expect(answer.body).toEqual({
    id: expect.stringMatching(/^err_/),
    code: 429,
    type: 'RateLimited',
    message: expect.stringMatching(/^rate limited: /),
  })
  expectRateLimitHeaders(answer, points, seconds)
}

export function expectRateLimitHeaders(answer: Answer, points: number, seconds = 60) {
  const retryAfter = Number(answer.headers['retry-after'])
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  expect(retryAfter).toBeLessThanOrEqual(seconds)
  expect(answer.headers).toMatchObject({
    'ratelimit-limit': String(points),
    'ratelimit-remaining': '0',
    'ratelimit-reset': String(retryAfter),
    'ratelimit-policy': `${points};w=${seconds}`,
  })
}

export { ENCRYPTION_KEY }
