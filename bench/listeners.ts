import { type ClientRequest, request } from 'node:http'

/** A client of GET /{webhookId}/conversations/{id}/listen that notes when chosen texts arrive. */
export interface Listener {
  /** Times (performance.now()) each `: keep-alive` comment arrived. */
  heartbeats: number[]
  /** Resolves when `marker` has arrived `times` times (1 by default) after this call, with performance.now() then. */
  expect(marker: string, times?: number): Promise<number>
  close(): void
}

/** Opens a listener; resolves once the stream is open (its `: connected` comment has arrived). */
export function listen(url: string, key: string): Promise<Listener> {
  return new Promise((resolve, reject) => {
    const heartbeats: number[] = []
    const waiting = new Map<string, { left: number; found: (at: number) => void }>()
    let tail = ''
    let req: ClientRequest | undefined
    const listener: Listener = {
      heartbeats,
      expect: (marker, times = 1) => new Promise((found) => waiting.set(marker, { left: times, found })),
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
        // A text cut across two chunks is still found: look in the end of the previous chunk too,
        // counting only the occurrences that end in this chunk.
        const text = tail + chunk
        const from = tail.length
        tail = chunk.slice(-64)
        if (text.includes(': connected')) resolve(listener)
        if (chunk.includes(': keep-alive')) heartbeats.push(at)
        for (const [marker, wait] of waiting) {
          for (let i = text.indexOf(marker); i >= 0 && wait.left > 0; i = text.indexOf(marker, i + 1)) {
            if (i + marker.length > from) wait.left--
          }
          if (wait.left === 0) {
            waiting.delete(marker)
            wait.found(at)
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
