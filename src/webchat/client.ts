import type { TypedDocumentString } from './__generated__/graphql.ts'

/** GraphQL over HTTP for the web chat: queries and mutations as JSON, subscriptions as SSE. */
export class ChatClient {
  constructor(
    private readonly endpoint: string,
    public key: string | undefined,
  ) {}

  private headers(accept: string): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept,
      ...(this.key ? { 'x-user-key': this.key } : {}),
    }
  }

  async request<R, V>(document: TypedDocumentString<R, V>, variables: V): Promise<R> {
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: this.headers('application/json'),
      body: JSON.stringify({ query: document.toString(), variables }),
    })
    const body = (await response.json()) as { data?: R; errors?: { message: string; extensions?: { type?: string } }[] }
    const [error] = body.errors ?? []
    if (error || !body.data) throw new ChatError(error?.message ?? `HTTP ${response.status}`, error?.extensions?.type)
    return body.data
  }

  /**
   * Runs a subscription until the stream ends or `signal` aborts, calling `onOpen` once the server
   * has subscribed and `onData` with each result's data.
   */
  async subscribe<R, V>(
    document: TypedDocumentString<R, V>,
    variables: V,
    { onOpen, onData, signal }: { onOpen: () => void; onData: (data: R) => void; signal: AbortSignal },
  ): Promise<void> {
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: this.headers('text/event-stream'),
      body: JSON.stringify({ query: document.toString(), variables }),
      signal,
    })
    if (!response.ok || !response.body) throw new ChatError(`subscription refused: HTTP ${response.status}`)
    onOpen()
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
    let buffer = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      buffer += value
      let end = buffer.indexOf('\n\n')
      while (end >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        end = buffer.indexOf('\n\n')
        const lines = block.split('\n')
        if (!lines.includes('event: next')) continue
        const data = lines
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n')
        const result = JSON.parse(data) as { data?: R }
        if (result.data) onData(result.data)
      }
    }
  }
}

export class ChatError extends Error {
  constructor(
    message: string,
    readonly type?: string,
  ) {
    super(message)
  }
}
