import { connectedSocket, firstMatching } from './sockets.ts'
import { SseReader } from './sse.ts'

/** A live subscription or stream seen from its client: every JSON message it got, in order. */
export interface Heard {
  messages: any[]
  /** The first message (already heard or to come) that `matches`. */
  next(matches: (message: any) => boolean): Promise<any>
  close(): Promise<void>
}

/** The data messages of an event stream as they come, parsed: unnamed or `next` ones. */
function heardFromStream(response: Response): Heard {
  if (response.status !== 200) throw new Error(`the stream answered ${response.status}`)
  const sse = new SseReader(response.body as ReadableStream<Uint8Array>)
  const messages: any[] = []
  const waiters = new Set<() => void>()
  let ended = false
  void (async () => {
    for (let block = await sse.message(); block; block = await sse.message()) {
      if (block.data && (block.event === undefined || block.event === 'next')) messages.push(JSON.parse(block.data))
      for (const wake of waiters) wake()
    }
    ended = true
    for (const wake of waiters) wake()
  })()
  return {
    messages,
    next: (matches) => firstMatching(messages, waiters, () => ended, matches, 'the stream ended'),
    close: () => sse.cancel(),
  }
}

/** GraphQL subscribers and REST listeners of a server at `apiUrl` (`http://…/{webhookId}`), each over its transport. */
export function subscribersOf(apiUrl: string) {
  const graphqlStream = (path: string) => async (key: string, query: string, variables: object) =>
    heardFromStream(
      await fetch(`${apiUrl}${path}`, {
        method: 'POST',
        headers: { 'x-user-key': key, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query, variables }),
      }),
    )
  return {
    /** graphql-ws on a socket of its own (its `next` payloads). */
    async ws(key: string, query: string, variables: object): Promise<Heard> {
      const socket = await connectedSocket(`${apiUrl.replace(/^http/, 'ws')}/graphql`, key)
      await socket.acked
      socket.send({ id: '1', type: 'subscribe', payload: { query, variables } })
      const payloads = () => socket.messages.filter((m) => m.type === 'next').map((m) => m.payload)
      return {
        get messages() {
          return payloads()
        },
        next: async (matches) => (await socket.next((m) => m.type === 'next' && matches(m.payload))).payload,
        close: async () => {
          socket.ws.close()
          await socket.closed
        },
      }
    },
    /** The graphql-sse protocol, distinct connections mode. */
    graphqlSse: graphqlStream('/graphql/stream'),
    /** graphql-yoga's own SSE (POST with Accept: text/event-stream). */
    yogaSse: graphqlStream('/graphql'),
    /** GET …/conversations/{id}/listen (the Chat API's `{type, data}` messages). */
    listen: async (key: string, conversationId: string) =>
      heardFromStream(await fetch(`${apiUrl}/conversations/${conversationId}/listen`, { headers: { 'x-user-key': key } })),
    /** The web chat's GET /initialize of a conversation (`init`, then `{type, data}` messages). */
    webchat: async (key: string, conversationId: string) =>
      heardFromStream(await fetch(`${apiUrl}/initialize?conversationId=${conversationId}`, { headers: { 'x-user-key': key } })),
  }
}
