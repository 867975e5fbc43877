import { vi } from 'vitest'

/**
 * Retries `assertion` until it passes. The deadline is generous on purpose: it only bounds a test
 * that would otherwise hang, and a busy machine must not make a correct server fail.
 */
export const eventually = <T>(assertion: () => T | Promise<T>): Promise<T> =>
  vi.waitFor(assertion, { timeout: 10_000, interval: 20 })
