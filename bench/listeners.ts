import { type ClientRequest, request } from 'node:http'

/** A client of GET /{webhookId}/conversations/{id}/listen that notes when chosen texts arrive. */
export interface Listener {
  /** Times (performance.now()) each `: keep-alive` comment arrived. */
  heartbeats: number[]
  /** Resolves when `marker` arrives (the first time after this call), with performance.now() then. */
  expect(marker: string): Promise<number>
  close(): void
}

/** Opens a listener; resolves once the stream is open (its `: connected` comment has arrived). */
export function listen(url: string, key: string): Promise<Listener> {
  return new Promise((resolve, reject) => {
    const heartbeats: number[] = []
    const waiting = new Map<string, (at: number) => void>()
    let tail = ''
    let req: ClientRequest | undefined
    const listener: Listener = {
      heartbeats,
      expect: (marker) => new Promise((found) => waiting.set(marker, found)),
      close: () => req?.destroy(),
    }
    req = request(url, { headers: { 'x-user-key': key }, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume()
        reject(new Error(`listen answered ${res.statusCode}`))
        return
      }
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        const at = performance.now()
        // A text cut across two chunks is still found: look in the end of the previous chunk too.
        const text = tail + chunk
        tail = chunk.slice(-64)
        if (text.includes(': connected')) resolve(listener)
        if (chunk.includes(': keep-alive')) heartbeats.push(at)
        for (const [marker, found] of waiting) {
          if (text.includes(marker)) {
            waiting.delete(marker)
            found(at)
          }
        }
      })
      res.on('error', () => {})
    })
    req.on('error', (error) => reject(error))
    req.end()
  })
}

/** Opens `count` listeners, `parallel` at a time (each waits until its stream is open). */
export async function listenMany(count: number, parallel: number, open: (i: number) => Promise<Listener>): Promise<Listener[]> {
  const all: Listener[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      while (next < count) all.push(await open(next++))
    }),
  )
  return all
}
