/** The value of one sample of a Prometheus exposition, or undefined when there is none with exactly these labels. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels)
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!match || match[1] !== name) continue
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, value]) => [key, value]))
    if (Object.keys(present).length === wanted.length && wanted.every(([key, value]) => present[key] === value)) return Number(match[3])
  }
  return undefined
}

/** The exposition at a metrics URL (GET /metrics), 200 or the test fails. */
export async function scrape(metricsUrl: string): Promise<string> {
  const response = await fetch(metricsUrl)
  if (response.status !== 200) throw new Error(`GET ${metricsUrl}: ${response.status}`)
  return response.text()
}
