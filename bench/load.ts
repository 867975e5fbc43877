import { Agent, request } from 'node:http'
import { type Latencies, latencies } from './stats.ts'

export interface RequestSpec {
  method: 'GET' | 'POST'
  url: string
  headers: Record<string, string>
  body?: string
}

export interface LoadResult extends Latencies {
  perSecond: number
  /** Answers other than 200, and transport errors. */
  failures: number
}

/** One request on a keep-alive agent; resolves with its status once the response has been read. */
function send(agent: Agent, spec: RequestSpec, url: URL, body: Buffer | undefined): Promise<number> {
  return new Promise((resolve) => {
    const headers = body ? { ...spec.headers, 'content-length': String(body.length) } : spec.headers
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: spec.method, headers, agent }, (res) => {
      res.resume()
      res.once('end', () => resolve(res.statusCode ?? 0))
      res.once('error', () => resolve(-1))
    })
    req.once('error', () => resolve(-1))
    req.end(body)
  })
}

/**
 * Closed-loop load, as autocannon makes it: `connections` keep-alive connections, each sending its
 * next request as soon as the previous one is answered, for `seconds` (after `warmupSeconds` not counted).
 */
export async function load(
  spec: RequestSpec,
  { connections, seconds, warmupSeconds }: { connections: number; seconds: number; warmupSeconds: number },
): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  const url = new URL(spec.url)
  const body = spec.body === undefined ? undefined : Buffer.from(spec.body)
  const samples: number[] = []
  let failures = 0
  const warmEnd = performance.now() + warmupSeconds * 1000
  const end = warmEnd + seconds * 1000
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (;;) {
        const started = performance.now()
        if (started >= end) return
        const status = await send(agent, spec, url, body)
        if (started < warmEnd) continue
        samples.push(performance.now() - started)
        if (status !== 200) failures++
      }
    }),
  )
  agent.destroy()
  return { ...latencies(samples), perSecond: samples.length / seconds, failures }
}
