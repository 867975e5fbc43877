import { Request } from '@whatwg-node/fetch'
import { DomainError } from '../domain/errors.ts'

export const MB = 1024 * 1024

/** Payload limits of spec part 8, per interface. */
export const bodyLimits = { chat: 1 * MB, botApi: 1 * MB, admin: 50 * MB } as const

const tooLarge = (limit: number) => new DomainError('PayloadTooLarge', `the request body is larger than the ${limit / MB} MB limit`)

/** The Content-Length a request declares, refused when it is over the limit. */
function declaredLength(request: Request, limit: number): string | null {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit)
  return declared
}

/**
 * Reads a request body of at most `limit` bytes. A declared Content-Length over the limit is refused
 * before a byte is read, and a streamed body is abandoned as soon as it passes the limit, so an
 * oversized request never sits whole in memory.
 */
export async function readBody(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = declaredLength(request, limit)
  // Node's parser never lets a body run past its Content-Length: a declared body under the limit can be read whole.
  if (declared !== null) return new Uint8Array(await request.arrayBuffer())
  if (!request.body) return new Uint8Array()
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      throw tooLarge(limit)
    }
    chunks.push(value)
  }
  // Buffer.concat allocates the joined body once; no second copy into a plain Uint8Array.
  return Buffer.concat(chunks, size) as Uint8Array<ArrayBuffer>
}

const isJsonType = (contentType: string) => {
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
  return mediaType === 'application/json' || mediaType.endsWith('+json')
}

/**
 * A REST body: empty means {}, anything else must be a JSON object sent as application/json.
 * DELETE bodies are read (for the limit) and ignored, as the official client sends `{}`. A GET's
 * is not read at all, only its declared length checked: node discards it, and asking whatwg-node
 * for it makes a stream.
 */
export async function readJsonObject(request: Request, limit: number): Promise<Record<string, unknown>> {
  if (request.method === 'GET' || request.method === 'HEAD') {
    declaredLength(request, limit)
    return {}
  }
  const bytes = await readBody(request, limit)
  if (bytes.byteLength === 0 || request.method === 'DELETE') return {}
  const contentType = request.headers.get('content-type')
  if (contentType === null || !isJsonType(contentType)) {
    throw new DomainError('UnsupportedMediaType', 'the request body must be JSON sent as Content-Type: application/json')
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch {
    throw new DomainError('InvalidPayload', 'the request body is not valid JSON')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new DomainError('InvalidPayload', 'the request body must be a JSON object')
  }
  return parsed as Record<string, unknown>
}

/**
 * The same request with its body read under the limit, for handlers that parse bodies themselves.
 * `signal` is the request's abort signal where what follows reads it (graphql-sse ends a stream on
 * it); elsewhere the copy goes without, as asking a request for its signal makes one.
 */
export async function withLimitedBody(request: Request, limit: number, signal?: AbortSignal): Promise<Request> {
  if (request.method === 'GET' || request.method === 'HEAD') return request
  const body = await readBody(request, limit)
  return new Request(request.url, { method: request.method, headers: request.headers, body, signal })
}
