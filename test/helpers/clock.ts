import { onTestFinished, vi } from 'vitest'

/**
 * Sets the clock the app reads (Date only: timers and I/O keep real time) to `at`, for the rest
 * of the test; call it again to move the clock. Timestamps then say exactly when a thing happened,
 * however fast or slow the machine is.
 */
export function setClock(at: string) {
  if (!vi.isFakeTimers()) {
    vi.useFakeTimers({ toFake: ['Date'] })
    onTestFinished(() => {
      vi.useRealTimers()
    })
  }
  vi.setSystemTime(new Date(at))
}
