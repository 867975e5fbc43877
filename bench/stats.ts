/** Latency figures of a sample, in milliseconds. */
export interface Latencies {
  count: number
  p50: number
  p99: number
  max: number
}

export function latencies(samples: number[]): Latencies {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? Number.NaN }
}

export const ms = (n: number) => (Number.isNaN(n) ? 'n/a' : n >= 100 ? `${n.toFixed(0)} ms` : `${n.toFixed(1)} ms`)
