import { type IncomingHttpHeaders, request } from 'node:http'

/** An HTTP answer as the client read it. */
export interface Answer {
  status: number
  headers: IncomingHttpHeaders
  /** The body parsed as JSON (undefined for an event stream, which is not read). */
  body: any
}

export interface SendOptions {
  method?: string
  headers?: Record<string, string>
  body?: unknown
  /** The client socket's own address (any of 127.0.0.0/8): a second client as the server sees it. */
  from?: string
}

/**
 * A request over a real socket bound to `from` (127.0.0.1 by default), so that the server sees that
 * client address. An event stream's answer is read up to its headers, then the connection is closed.
 */
export function sendFrom(url: string, { method = 'GET', headers = {}, body, from = '127.0.0.1' }: SendOptions = {}): Promise<Answer> {
  // Bytes go as they are (a file's upload); anything else as JSON.
  const raw = Buffer.isBuffer(body)
  const payload = body === undefined || raw ? (body as Buffer | undefined) : JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        localAddress: from,
        agent: false,
        headers: { ...(payload === undefined || raw ? {} : { 'content-type': 'application/json' }), ...headers },
      },
      (res) => {
        const status = res.statusCode ?? 0
        if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          resolve({ status, headers: res.headers, body: undefined })
          req.destroy()
          return
        }
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.once('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          let parsed: unknown
          try {
            parsed = text === '' ? undefined : JSON.parse(text)
          } catch {
            parsed = text
          }
          resolve({ status, headers: res.headers, body: parsed })
        })
        res.once('error', reject)
      },
    )
    req.once('error', reject)
    req.end(payload)
  })
}
