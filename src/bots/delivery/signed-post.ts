import type { OutboundPolicy } from '../../domain/outbound-policy.ts'
import { bodyExcerpt } from '../body-excerpt.ts'
import { outboundRequest, type OutboundResponse } from '../outbound-request.ts'
import { signatureHeader } from './signing.ts'

/**
 * The largest event body sent to a bot, and the largest answer read back (the spec's Runtime limit,
 * 1 MB): larger is refused, never truncated.
 */
export const deliveryBodyLimit = 1024 * 1024

export type SignedPostResult =
  | { kind: 'answered'; status: number; retryAfter: string | null; contentType: string | null; body: string }
  /** A 2xx whose answer exceeds the delivery body limit: the bot took the event, its answer is refused. */
  | { kind: 'answerTooLarge'; status: number }
  | { kind: 'failed'; error: string }

/** The process is stopping: the attempt is abandoned, not an outcome (the delivery stays due). */
export class AttemptAbandoned extends Error {}

export interface SignedPostRequest {
  url: string
  /** The `webhook-id`, the same on every attempt. */
  id: string
  body: string
  secrets: readonly string[]
  now: Date
  timeoutMs: number
  /** Aborted when the process stops. */
  shutdown: AbortSignal
  /** Headers besides the Standard Webhooks ones (an @botpress/sdk bot's x-bot-id, x-bp-…). */
  headers?: Record<string, string>
  /** While this says busy (the bot is calling back), the timeout waits: it restarts once the bot is idle. */
  hold?: { busy(): boolean; idle(): Promise<void> }
  /** Where the request may go (docs/guides/running-on-the-internet.md); metadata addresses refused, private ones allowed, by default. */
  outbound?: OutboundPolicy
}

/**
 * One signed POST of an event to a bot's url (Standard Webhooks headers), for either protocol. The timeout covers the whole exchange, answer
 * included; when it fires the request is aborted, which closes its connection. Redirects are not
 * followed: a 3xx is a failed attempt like any other non-2xx. The outbound policy is checked where
 * the request connects (outboundRequest): a refused address gets nothing, and the attempt fails.
 */
export async function signedPost(request: SignedPostRequest): Promise<SignedPostResult> {
  const timestamp = Math.floor(request.now.getTime() / 1000)
  const timeout = new AbortController()
  const { hold } = request
  let settled = false
  let timer: NodeJS.Timeout | undefined
  const arm = () => {
    timer = setTimeout(() => {
      if (!hold?.busy()) return timeout.abort()
      void hold.idle().then(() => {
        if (!settled) arm()
      })
    }, request.timeoutMs)
  }
  arm()
  try {
    const response = await outboundRequest(
      request.url,
      {
        method: 'POST',
        signal: AbortSignal.any([timeout.signal, request.shutdown]),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Confab-Webhooks',
          'webhook-id': request.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(request.secrets, request.id, timestamp, request.body),
          ...request.headers,
        },
        body: request.body,
      },
      request.outbound,
    )
    const { status } = response
    if (status < 200 || status > 299) {
      // The start of a refusal's body (an @botpress/sdk bot's error message) is worth a log line: a short excerpt.
      const body = await bodyExcerpt(response.headers.get('content-type'), response.body)
      await response.body.cancel().catch(() => {})
      return { kind: 'answered', status, retryAfter: response.headers.get('retry-after'), contentType: null, body }
    }
    const body = await readLimited(response, deliveryBodyLimit)
    if (body === undefined) return { kind: 'answerTooLarge', status }
    return { kind: 'answered', status, retryAfter: null, contentType: response.headers.get('content-type'), body }
  } catch (error) {
    if (request.shutdown.aborted) throw new AttemptAbandoned('the process is stopping')
    if (timeout.signal.aborted) return { kind: 'failed', error: `timed out after ${request.timeoutMs} ms` }
    return { kind: 'failed', error: describeError(error) }
  } finally {
    settled = true
    clearTimeout(timer)
  }
}

/** The body as text, or undefined (and the rest left unread) once it passes `limit` bytes. */
async function readLimited(response: OutboundResponse, limit: number): Promise<string | undefined> {
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of response.body) {
    size += chunk.byteLength
    if (size > limit) return undefined
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** The request says "request failed"; the cause names what failed (ECONNREFUSED, a reset socket, a refused address). */
function describeError(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined
  const detail = cause?.code ?? cause?.message
  const message = error instanceof Error ? error.message : String(error)
  return detail ? `connection error: ${detail}` : `connection error: ${message}`
}
