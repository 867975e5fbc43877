import { type IncomingHttpHeaders, request } from 'node:http'

export interface StrictAnswer {
  status: number
  headers: IncomingHttpHeaders
  text: string
  /** The body as JSON (undefined when it is not JSON). */
  json: any
}

export interface StrictRequest {
  method?: string
  /** Path and query exactly as sent (`//`, `/%2F` …). */
  path: string
  headers?: Record<string, string>
  body?: string
  /** The address the connection comes from (127.0.0.2 … for a second client). */
  localAddress?: string
}

/**
 * One request through node's own client on a connection of its own, its target and headers exactly
 * as given (a `Host` too). Node's parser is strict: an answer it cannot read (Content-Length beside
 * Transfer-Encoding, a second answer after `Connection: close`) rejects instead of passing.
 */
export function strictRequest(baseUrl: string, { method = 'GET', path, headers = {}, body, localAddress }: StrictRequest): Promise<StrictAnswer> {
  const { hostname, port } = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers, localAddress, agent: false, insecureHTTPParser: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.once('error', reject)
      res.once('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          json = undefined
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json })
      })
    })
    req.once('error', reject)
    req.end(body)
  })
}
