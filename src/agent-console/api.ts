/*
 * The agent API as the console calls it: JSON operations and the two live feeds, with the agent key
 * in the Authorization header (an EventSource could only carry it in the URL, where it does not go:
 * the feeds are read from fetch's body).
 */

/** An answer of the API that is not 2xx, as its error body says (docs/reference/errors.md), or Confab out of reach (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message)
  }
}

async function errorOf(response: Response): Promise<ApiError> {
  const body: unknown = await response.json().catch(() => undefined)
  const { type, message } = (typeof body === 'object' && body !== null ? body : {}) as { type?: unknown; message?: unknown }
  return new ApiError(
    response.status,
    typeof type === 'string' ? type : `HTTP ${response.status}`,
    typeof message === 'string' ? message : response.statusText || 'the request failed',
  )
}

const unreachable = () => new ApiError(0, 'NetworkError', 'Confab could not be reached')

/** Reads an event stream's `data:` messages (pings aside) until it ends. */
async function readEvents(body: ReadableStream<Uint8Array>, onMessage: (data: Record<string, unknown>) => void): Promise<void> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return
    buffer += decoder.decode(value, { stream: true }).replaceAll('\r\n', '\n')
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const data = buffer
        .slice(0, end)
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
      buffer = buffer.slice(end + 2)
      if (data.length === 0) continue
      const message = JSON.parse(data.join('\n')) as Record<string, unknown>
      if (message.type !== 'ping') onMessage(message)
    }
  }
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve()
    })
  })

/** The longest wait before a feed is opened again. */
const maxRetryMs = 30_000

export class AgentApi {
  /** `base`: the agent API's URL, ending in a slash (…/v1/agent/). */
  constructor(
    private readonly base: string,
    private readonly key: string,
  ) {}

  private request(method: string, path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(new URL(path, this.base), {
      ...init,
      method,
      headers: { authorization: `Bearer ${this.key}`, ...init.headers },
      cache: 'no-store',
      credentials: 'omit',
    })
  }

  /** One operation: its JSON answer, or an ApiError. */
  async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: Record<string, unknown>): Promise<T> {
    const response = await this.request(
      method,
      path,
      body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } },
    ).catch(() => {
      throw unreachable()
    })
    if (!response.ok) throw await errorOf(response)
    return (await response.json()) as T
  }

  /**
   * Follows a feed until `signal` aborts: opens it again when it ends or fails (after 1 s, doubling up
   * to 30 s), telling `onState` each time it is live or down. A 401 ends it (the key is no good any more):
   * the returned promise rejects with it.
   */
  async follow(
    path: string,
    onMessage: (data: Record<string, unknown>) => void,
    onState: (live: boolean, error?: ApiError) => void,
    signal: AbortSignal,
  ): Promise<void> {
    let retryMs = 1_000
    while (!signal.aborted) {
      try {
        const response = await this.request('GET', path, { headers: { accept: 'text/event-stream' }, signal }).catch(() => {
          throw unreachable()
        })
        if (!response.ok || !response.body) throw await errorOf(response)
        retryMs = 1_000
        onState(true)
        await readEvents(response.body, onMessage)
        if (!signal.aborted) onState(false)
      } catch (error) {
        if (signal.aborted) return
        const failure = error instanceof ApiError ? error : unreachable()
        if (failure.status === 401) throw failure
        onState(false, failure)
      }
      await pause(retryMs, signal)
      retryMs = Math.min(retryMs * 2, maxRetryMs)
    }
  }
}
