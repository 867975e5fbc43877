/**
 * Seconds to wait before each attempt, on the Standard Webhooks schedule: at once, 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h; ten attempts in all, about three days.
 */
export const standardRetrySchedule: readonly number[] = [0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]

/**
 * Milliseconds to wait before the next attempt once `attemptsMade` have failed, with ±10 % jitter
 * so that deliveries failed together do not retry together; undefined when the schedule is spent.
 */
export function retryDelay(schedule: readonly number[], attemptsMade: number, random: () => number): number | undefined {
  const seconds = schedule[attemptsMade]
  if (seconds === undefined) return undefined
  return Math.round(seconds * 1000 * (0.9 + 0.2 * random()))
}

const maxRetryAfterMs = 24 * 3600 * 1000

/** A `Retry-After` header (seconds or an HTTP date) as milliseconds from `now`, at most a day. */
export function retryAfterDelay(header: string | null, now: Date): number | undefined {
  if (header === null || header.trim() === '') return undefined
  const ms = /^\d+$/.test(header.trim()) ? Number(header.trim()) * 1000 : Date.parse(header) - now.getTime()
  return Number.isNaN(ms) ? undefined : Math.min(Math.max(ms, 0), maxRetryAfterMs)
}
