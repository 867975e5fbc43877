import { vi } from 'vitest'

/**
 * Retries `assertion` until it passes. The deadline is generous on purpose: it only bounds a test
 * that would otherwise hang, and a busy machine must not make a correct server fail. A test that
 * waits on something known to be slower (a thread compiling the app) gives a longer one.
 */
export const eventually = <T>(assertion: () => T | Promise<T>, timeoutMs = 10_000): Promise<T> => vi.waitFor(assertion, { timeout: timeoutMs, interval: 20 })
