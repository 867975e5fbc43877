import fc from 'fast-check'
import { BASE } from '../helpers/app.ts'

/** Which error body a refusal must carry: the REST contract's, the GraphQL-over-HTTP one, or either. */
export type Surface = 'rest' | 'graphql' | 'either'

/** A body too large to print: `fill` repeated to at least `bytes` bytes. */
export interface Oversize {
  fill: string
  bytes: number
}

/** One request as the fuzzer sends it; fast-check prints it as the text that reproduces it. */
export interface HostileRequest {
  surface: Surface
  method: string
  /** Path and query exactly as sent, unparsed: malformed percent-escapes stay as they are. */
  target: string
  headers: Record<string, string>
  body?: string | Uint8Array | Oversize
  /** Set when every id the request looks up is one its scope cannot read: each must read as null. */
  absentNodes?: true
}

/** Where a path is served: the GraphQL endpoints answer GraphQL errors, every other path the REST body. */
function surfaceOf(target: string): Surface {
  const path = target.split('?')[0] ?? ''
  if (/^\/v1\/admin\/graphql$/.test(path) || /^\/[^/]+\/graphql(\/stream\/?)?$/.test(path)) return 'graphql'
  if (/^\/v1\/admin\/graphql\//.test(path) || /^\/[^/]+\/graphql\//.test(path)) return 'either'
  return 'rest'
}

const encoder = new TextEncoder()
const MAX_PRINTED = 600

const isOversize = (body: HostileRequest['body']): body is Oversize => typeof body === 'object' && !(body instanceof Uint8Array)

const printValue = (value: string) =>
  value.length > MAX_PRINTED ? `${JSON.stringify(value.slice(0, MAX_PRINTED))}… (${value.length} UTF-16 units)` : JSON.stringify(value)

function printBody(body: HostileRequest['body']): string {
  if (body === undefined) return '(no body)'
  if (isOversize(body)) return `(${body.bytes} bytes of ${JSON.stringify(body.fill)})`
  if (body instanceof Uint8Array) return `(bytes) ${Buffer.from(body).toString('hex').slice(0, MAX_PRINTED)}`
  return printValue(body)
}

/** The request as text: method, URL, headers and body, enough to replay it by hand. */
export function describeRequest(request: HostileRequest): string {
  const headers = Object.entries(request.headers).map(([name, value]) => `\n  ${name}: ${printValue(value)}`)
  const expectation = request.absentNodes ? '\n  (every id names nothing this scope can read)' : ''
  return `${request.method} ${printValue(`${BASE}${request.target}`)}${headers.join('')}\n  body: ${printBody(request.body)}${expectation}`
}

/** A request of the surface its path names, printed by fast-check with describeRequest. */
export function hostile(init: Omit<HostileRequest, 'surface'>): HostileRequest {
  const request: HostileRequest = { surface: surfaceOf(init.target), ...init }
  return Object.defineProperty(request, fc.toStringMethod, { value: () => describeRequest(request), enumerable: false })
}

/** The bytes an oversize body really has: its fill repeated until it reaches `bytes`. */
export const oversizeBytes = ({ fill, bytes }: Oversize) => {
  const unit = encoder.encode(fill).byteLength
  return Math.ceil(bytes / unit) * unit
}

export function bodyBytes(body: HostileRequest['body']): Uint8Array<ArrayBuffer> | undefined {
  if (body === undefined) return undefined
  if (isOversize(body)) return encoder.encode(body.fill.repeat(oversizeBytes(body) / encoder.encode(body.fill).byteLength))
  // Bytes rather than a string, so that no default Content-Type is added: the header is the fuzzer's choice.
  return body instanceof Uint8Array ? new Uint8Array(body) : encoder.encode(body)
}

/** What came back: the body is read unless it is a live stream, which is closed unread. */
export interface Received {
  status: number
  headers: Headers
  text?: string
}

export function describeResponse({ status, headers, text }: Received): string {
  const shown = ['content-type', 'allow', 'x-request-id']
    .map((name) => [name, headers.get(name)] as const)
    .filter(([, value]) => value !== null)
    .map(([name, value]) => `\n  ${name}: ${value}`)
    .join('')
  const body = text === undefined ? '(stream, not read)' : text === '' ? '(empty)' : printValue(text)
  return `${status}${shown}\n  body: ${body}`
}

const wtf8 = (unit: number) =>
  [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('')

/** Percent-encodes a path segment or query value; a lone surrogate goes as its (malformed) WTF-8 bytes. */
export const encode = (value: string): string =>
  value
    .split(/(\p{Cs})/u)
    .map((part) => (/^\p{Cs}$/u.test(part) ? wtf8(part.charCodeAt(0)) : encodeURIComponent(part)))
    .join('')
