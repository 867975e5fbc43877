import WebSocket from 'ws'

/** graphql-ws subscriptions of one conversation, over a few sockets, noting when chosen texts arrive. */
export interface Subscribers {
  /** Resolves when `marker` has arrived `times` times (1 by default) at every subscription, with performance.now() then. */
  expect(marker: string, times?: number): Promise<number>
  close(): void
}

/**
 * Opens `count` subscriptions of `conversationId` over sockets of `perSocket` each (as one client
 * would set them up from one address), with the document `query(i)` for the i-th; resolves once the
 * server has acknowledged every socket and each subscription has been sent. A `next` message is
 * searched for markers as text, not parsed: the bench's own CPU is the server's too.
 */
export async function subscribe(
  graphqlUrl: string,
  key: string,
  conversationId: string,
  { count, perSocket, query }: { count: number; perSocket: number; query: (i: number) => string },
): Promise<Subscribers> {
  const waiting = new Map<string, { times: number; heard: Map<string, number>; done: number; found: (at: number) => void }>()
  const sockets: WebSocket[] = []
  for (let first = 0; first < count; first += perSocket) {
    const ws = new WebSocket(graphqlUrl, 'graphql-transport-ws')
    sockets.push(ws)
    ws.on('error', () => {})
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { 'x-user-key': key } })))
      ws.once('close', (code, reason) => reject(new Error(`a subscriber's socket closed: ${code} ${reason}`)))
      ws.on('message', (data: Buffer) => {
        // Looked at as bytes: decoding each message would be most of what the bench costs.
        const head = data.toString('utf8', 0, 64)
        if (head.startsWith('{"type":"connection_ack"')) return resolve()
        for (const [marker, wait] of waiting) {
          if (!data.includes(marker)) continue
          // graphql-ws' `next` begins {"id":"<subscription>", …
          const id = head.slice(7, head.indexOf('"', 7))
          const heard = (wait.heard.get(id) ?? 0) + 1
          wait.heard.set(id, heard)
          if (heard === wait.times) wait.done++
          if (wait.done === count) {
            waiting.delete(marker)
            wait.found(performance.now())
          }
        }
      })
    })
    for (let i = first; i < Math.min(count, first + perSocket); i++) {
      ws.send(JSON.stringify({ id: String(i), type: 'subscribe', payload: { query: query(i), variables: { id: conversationId } } }))
    }
  }
  return {
    expect: (marker, times = 1) => new Promise((found) => waiting.set(marker, { times, heard: new Map(), done: 0, found })),
    close: () => {
      for (const ws of sockets) {
        ws.removeAllListeners('close')
        ws.close()
      }
    },
  }
}
