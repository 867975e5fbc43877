import fc from 'fast-check'
import { encode } from './http.ts'
import type { World } from './world.ts'

// ---- values ----

/** Strings that have broken parsers before: control characters, lone surrogates, bidi overrides, injections. */
const notorious = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  'x\uD83Dy',
  '\uDE00\uD83D',
  '\u202Eevil\u202C',
  '\u200F\u05D0\u05D1\u0645',
  '\uFEFF',
  '\u0301',
  '😀👍🏽👨‍👩‍👧',
  '%',
  '%00',
  '%zz',
  '../..',
  '/',
  '\\',
  '"',
  "'",
  '\r\n',
  '<script>alert(1)</script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template injection probe, meant literally
  '${7*7}{{7*7}}',
  "' OR '1'='1",
  '__proto__',
  'constructor',
  'toString',
  'null',
  'undefined',
  'NaN',
  '-0',
  '1e309',
  '9007199254740993',
  'me',
  'c1:',
  'x'.repeat(65),
]

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit))

/** Up to 100k UTF-16 units of one character: big, but under the 1 MiB chat limit on its own. */
const hugeString = fc
  .tuple(fc.constantFrom('a', '\u0000', '😀', '\uD800', 'é', '\u202E'), fc.integer({ min: 1_000, max: 100_000 }))
  .map(([unit, count]) => unit.repeat(Math.ceil(count / unit.length)))

export const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...notorious) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 24 }) },
  {
    weight: 1,
    arbitrary: fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 3 }), loneSurrogate), { maxLength: 6 }).map((parts) => parts.join('')),
  },
  { weight: 1, arbitrary: hugeString },
)

/** A hostile string short enough for a path segment, a header or a key. */
export const shortHostileString = hostileString.filter((s) => s.length < 1_000)

/** JSON nested past every limit (the REST layer refuses past 64, GraphQL armor past 12). */
const deepValue = fc.tuple(fc.integer({ min: 60, max: 3_000 }), fc.boolean()).map(([depth, arrays]) => {
  let value: unknown = 'bottom'
  for (let i = 0; i < depth; i++) value = arrays ? [value] : { a: value }
  return value
})

export const hostileKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', '', 'type', 'id', 'payload', '$where'),
  shortHostileString.filter((s) => s.length < 100),
)

export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 2, arbitrary: fc.constantFrom(null, true, false, 0, -0, -1, 1.5, 1e308, Number.MAX_SAFE_INTEGER + 2, [], {}) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileKey, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }) },
  { weight: 1, arbitrary: deepValue },
)

/** JSON texts that do not parse, or parse to what nobody expects. */
export const brokenJsonText = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '{',
    '[',
    '}',
    '{"a":}',
    '{"a":1,}',
    "{'a':1}",
    '{a:1}',
    'nul',
    'undefined',
    'NaN',
    'Infinity',
    '0x10',
    '01',
    '1e999999',
    '"unterminated',
    '"\\ud800"',
    '"\\x41"',
    '{"a":"\u0000"}',
    '\uFEFF{}',
    '{}{}',
    '{"__proto__":{"polluted":true}}',
    '[1,2',
    '{"a":1}garbage',
  ),
  fc.json().chain((text) => fc.nat(Math.max(text.length - 1, 0)).map((cut) => text.slice(0, cut))),
  hostileString,
)

/** Valid JSON of every type but an object. */
export const wrongJsonTypeText = fc.constantFrom('[]', '[{}]', '[1,2]', '0', '-1', '1.5', '"text"', 'true', 'false', 'null')

/** A JSON text for a field that should hold a JSON object: sometimes one, sometimes not at all. */
export const jsonishText = fc.oneof(
  fc.dictionary(hostileKey, hostileJson, { maxKeys: 3 }).map((value) => JSON.stringify(value)),
  wrongJsonTypeText,
  brokenJsonText,
)

// ---- headers ----

/** Characters a header value can carry (Latin-1 without controls but tab); Headers refuses the rest. */
const headerSafe = fc.string({
  unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }), fc.constant(0x09)).map((c) => String.fromCharCode(c)),
  maxLength: 40,
})

const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/json; charset=latin1',
    'application/json;;;',
    'application/json, text/plain',
    'application/graphql-response+json',
    'application/vnd.api+json',
    'text/json',
    'application/jsonx',
    'application/x-www-form-urlencoded',
    'multipart/form-data',
    'multipart/form-data; boundary=fuzz',
    'text/plain',
    'text/plain;charset=UTF-8',
    'application/graphql',
    'application/octet-stream',
    'application/xml',
    '*/*',
    ';',
    '',
  ),
  headerSafe,
)

const anyAccept = fc.constantFrom(
  'application/json',
  'application/graphql-response+json',
  'application/graphql-response+json, application/json;q=0.9',
  'application/json, application/graphql-response+json;q=0',
  '*/*',
  'application/*',
  'text/event-stream',
  'multipart/mixed',
  'text/html',
  'application/xml',
  'image/png;q=0.5, */*;q=0',
)

/** An Accept header: one the endpoint serves mostly, else any other, garbage, or none. */
export const accept = (served: string[]) =>
  fc
    .option(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...served) }, { weight: 2, arbitrary: anyAccept }, { weight: 1, arbitrary: headerSafe }), {
      nil: undefined,
      freq: 4,
    })
    .map((value): Record<string, string> => (value === undefined ? {} : { accept: value }))

const base64urlJson = (value: unknown) => Buffer.from(JSON.stringify(value) ?? '').toString('base64url')

const unsignedJwt = fc
  .tuple(hostileJson, hostileJson, fc.base64String({ maxLength: 40 }))
  .map(([header, payload, signature]) => `${base64urlJson(header)}.${base64urlJson(payload)}.${signature}`)

/** An x-user-key: the fuzzer's valid one most often, else forged, garbage, or none. */
const userKey = (world: World) =>
  fc
    .option(
      fc.oneof(
        { weight: 6, arbitrary: fc.constant(world.userKey) },
        { weight: 2, arbitrary: fc.constantFrom(...world.forgedKeys) },
        { weight: 1, arbitrary: unsignedJwt },
        { weight: 1, arbitrary: headerSafe },
      ),
      { nil: undefined, freq: 8 },
    )
    .map((key): Record<string, string> => (key === undefined ? {} : { 'x-user-key': key }))

/** The administration credentials: right most often, else wrong, malformed or absent. */
const adminCredentials = ({ adminToken: token, workspaceId }: World) => {
  const wrongAuthorization = fc.constantFrom(
    'Bearer',
    'Bearer ',
    `bearer ${token}`,
    `Basic ${token}`,
    `Bearer ${token} extra`,
    `Bearer ${token}x`,
    `Bearer\t${token}`,
    token,
  )
  const authorization = fc.oneof(
    { weight: 6, arbitrary: fc.constant(`Bearer ${token}`) },
    { weight: 1, arbitrary: wrongAuthorization },
    { weight: 1, arbitrary: headerSafe.map((junk) => `Bearer ${junk}`) },
    { weight: 1, arbitrary: unsignedJwt.map((jwt) => `Bearer ${jwt}`) },
  )
  const workspace = fc.oneof(
    { weight: 6, arbitrary: fc.constant(workspaceId) },
    { weight: 1, arbitrary: fc.constantFrom('wkspace_other', '', `${workspaceId} `) },
    { weight: 1, arbitrary: headerSafe },
  )
  return fc
    .record({
      authorization: fc.option(authorization, { nil: undefined, freq: 10 }),
      workspace: fc.option(workspace, { nil: undefined, freq: 10 }),
    })
    .map(
      ({ authorization, workspace }): Record<string, string> => ({
        ...(authorization === undefined ? {} : { authorization }),
        ...(workspace === undefined ? {} : { 'x-workspace-id': workspace }),
      }),
    )
}

/** The credential headers of a mount: a user key under a webhook id, an admin token under /v1/admin. */
/** The runtime API's credentials: the bot's API key and its id, right most often. */
const botCredentials = ({ botKey, botId, userKey: chatKey }: World) =>
  fc
    .record({
      authorization: fc.option(
        fc.oneof(
          { weight: 6, arbitrary: fc.constant(`Bearer ${botKey}`) },
          { weight: 1, arbitrary: fc.constantFrom('Bearer', `Bearer ${botKey}x`, `Bearer ${chatKey}`, `Basic ${botKey}`, botKey) },
          { weight: 1, arbitrary: headerSafe.map((junk) => `Bearer ${junk}`) },
        ),
        { nil: undefined, freq: 10 },
      ),
      'x-bot-id': fc.option(fc.oneof({ weight: 6, arbitrary: fc.constant(botId) }, { weight: 1, arbitrary: headerSafe }), {
        nil: undefined,
        freq: 10,
      }),
    })
    .map((headers) => Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined)) as Record<string, string>)

export const credentials = (world: World, mount: 'chat' | 'admin' | 'runtime' | 'root') =>
  mount === 'chat' ? userKey(world) : mount === 'admin' ? adminCredentials(world) : mount === 'runtime' ? botCredentials(world) : fc.constant({})

/**
 * Host headers: valid ones of every form, and the ones that once rewrote the URLs handed out
 * (`evil:80@attacker` named the host `attacker`) or made no URL at all.
 */
export const oddHost = fc.oneof(
  fc.constantFrom('chat.example.com', 'chat.example.com:8443', '127.0.0.1:1', '[::1]:3000', 'xn--bcher-kva.example', 'h%41st'),
  fc.constantFrom('evil:80@attacker', 'a b', 'x:99999', 'a/b', 'a?b', 'a#b', '[zz]', 'a:b', ':80', '%00', 'a\\b', '@', 'x:-1'),
  headerSafe,
)

/** Headers no request needs, which a hostile client sends anyway. */
export const strayHeaders = fc.option(
  fc.record(
    {
      host: oddHost,
      'x-forwarded-host': oddHost,
      'x-forwarded-proto': fc.constantFrom('https', 'http', 'wss', 'gopher', ''),
      forwarded: fc.constantFrom('for=1.2.3.4;proto=https;host=chat.example.com', 'host="evil:80@attacker"', 'proto=', ';;,,'),
      'x-request-id': headerSafe,
      origin: fc.constantFrom('https://evil.example', 'null', ''),
      'content-length': fc.constantFrom('0', '-1', 'abc', '99999999999999999999', '1e3'),
      'x-forwarded-for': headerSafe,
    },
    { requiredKeys: [] },
  ),
  { nil: {}, freq: 6 },
)

// ---- methods, paths and queries ----

export const exoticMethod = fc.constantFrom(
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'HEAD',
  'TRACE',
  'PROPFIND',
  'MKCOL',
  'LOCK',
  'PURGE',
  'SEARCH',
  'patch',
  'M-SEARCH',
  'FOO',
)

/** Percent-escapes that do not decode: truncated, not hexadecimal, overlong or surrogate UTF-8. */
export const malformedEscape = fc.constantFrom('%', '%2', '%zz', '%E0%A4%A', '%C0%80', '%ED%A0%80', '%FF', '%%41', 'a%0', '%u0041')

/** A path segment: mostly one that names something, else hostile text (encoded) or a broken escape. */
export const segment = (valid: string[]) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...valid) },
    { weight: 3, arbitrary: shortHostileString.map(encode) },
    { weight: 1, arbitrary: malformedEscape },
  )

/** A webhook id segment: the seeded one mostly, else one that names no integration. */
export const webhookSegment = (world: World) =>
  fc.oneof({ weight: 10, arbitrary: fc.constant(world.webhookId) }, { weight: 1, arbitrary: segment(['unknown-webhook', 'TEST-WEBHOOK', 'v1']) })

export const formUrlEncoded = (pairs: [string, string][]) => pairs.map(([name, value]) => `${encode(name)}=${encode(value)}`).join('&')

/** A query string (with `?`, or empty), from named parameters with hostile values and raw junk. */
export const queryString = (names: string[]) =>
  fc
    .tuple(
      fc.array(fc.tuple(fc.oneof(fc.constantFrom(...names), hostileKey), hostileString), { maxLength: 4 }),
      fc.option(fc.oneof(malformedEscape, fc.constantFrom('&&', '=', '=&=', 'a', '+%2B+')), { nil: undefined }),
    )
    .map(([pairs, junk]) => {
      const parts = [formUrlEncoded(pairs), ...(junk === undefined ? [] : [junk])].filter((p) => p !== '')
      return parts.length === 0 ? '' : `?${parts.join('&')}`
    })

// ---- bodies ----

/** A request body: its text (or bytes) and the Content-Type it is sent with, if any. */
export interface BodyChoice {
  contentType?: string
  body?: string | Uint8Array
}

/** The headers and body of a request that sends `choice`. */
export const withBody = (headers: Record<string, string>, { contentType, body }: BodyChoice) => ({
  headers: contentType === undefined ? headers : { ...headers, 'content-type': contentType },
  body,
})

/** A multipart/form-data body of text fields, with its Content-Type. */
export const multipart = (fields: fc.Arbitrary<[string, string][]>) =>
  fc.tuple(fields, fc.constantFrom('fuzzboundary', 'x', '----')).map(
    ([entries, boundary]): BodyChoice => ({
      contentType: `multipart/form-data; boundary=${boundary}`,
      body: `${entries
        .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
        .join('')}--${boundary}--\r\n`,
    }),
  )

const formFields = fc.array(
  fc.tuple(fc.oneof(fc.constantFrom('query', 'variables', 'operations', 'map', 'payload', 'id'), hostileKey), fc.oneof(hostileString, jsonishText)),
  { maxLength: 4 },
)

/**
 * Every shape a body takes: the JSON object the endpoint expects (from `object`), JSON of the
 * wrong type, broken JSON, form-urlencoded, multipart, text/plain, invalid UTF-8, a wrong
 * Content-Type, or none at all.
 */
export const bodyChoice = (object: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<BodyChoice> => {
  const json =
    (contentType?: string) =>
    (body: string): BodyChoice => ({ contentType, body })
  return fc.oneof(
    { weight: 6, arbitrary: object.map((value) => json('application/json')(JSON.stringify(value))) },
    { weight: 2, arbitrary: fc.tuple(object, contentType).map(([value, type]) => json(type)(JSON.stringify(value))) },
    { weight: 1, arbitrary: object.map((value) => json()(JSON.stringify(value))) },
    { weight: 1, arbitrary: wrongJsonTypeText.map(json('application/json')) },
    { weight: 2, arbitrary: brokenJsonText.map(json('application/json')) },
    { weight: 1, arbitrary: formFields.map((pairs) => json('application/x-www-form-urlencoded')(formUrlEncoded(pairs))) },
    { weight: 1, arbitrary: multipart(formFields) },
    { weight: 1, arbitrary: fc.oneof(hostileString, jsonishText).map(json('text/plain')) },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ maxLength: 64 })
        .map((bytes) => ({ contentType: 'application/json', body: Uint8Array.from([0x7b, 0x22, 0xff, 0xfe, ...bytes]) })),
    },
    { weight: 1, arbitrary: fc.constant({}) },
  )
}

// ---- message payloads ----

const payloadKinds = ['text', 'markdown', 'image', 'audio', 'video', 'file', 'location', 'card', 'carousel', 'choice', 'dropdown', 'bloc']

/** Either a value of the expected kind (to get past the first check) or anything at all. */
const mostly = <T>(expected: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: expected }, { weight: 1, arbitrary: hostileJson })

const option = fc.record({ label: mostly(hostileString), value: mostly(hostileString) })
const cardAction = fc.record({
  action: fc.constantFrom('postback', 'url', 'say', 'eval'),
  label: mostly(hostileString),
  value: mostly(hostileString),
})
const card = fc.record(
  { type: fc.constant('card'), title: mostly(hostileString), actions: mostly(fc.array(cardAction, { maxLength: 3 })) },
  { requiredKeys: ['type'] },
)

/** A REST message payload: a kind (or not) with its fields, each one plausible or hostile. */
export const messagePayload = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        type: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...payloadKinds) }, { weight: 1, arbitrary: hostileJson }),
        text: mostly(hostileString),
        markdown: mostly(hostileString),
        imageUrl: mostly(fc.oneof(fc.webUrl(), hostileString)),
        audioUrl: mostly(hostileString),
        videoUrl: mostly(hostileString),
        fileUrl: mostly(hostileString),
        title: mostly(hostileString),
        latitude: mostly(fc.double()),
        longitude: mostly(fc.double()),
        options: mostly(fc.array(option, { maxLength: 3 })),
        items: mostly(fc.array(fc.oneof(card, hostileJson), { maxLength: 3 })),
        actions: mostly(fc.array(hostileJson, { maxLength: 2 })),
      },
      { requiredKeys: ['type'] },
    ),
  },
  { weight: 1, arbitrary: hostileJson },
)

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The same payload as GraphQL's @oneOf MessagePayloadInput: one kind, or several, or none. */
export const payloadInput = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.tuple(fc.subarray(payloadKinds, { maxLength: 2 }), messagePayload).map(([kinds, payload]) => {
      const { type: _, ...fields } = isObject(payload) ? payload : {}
      return Object.fromEntries(kinds.map((kind) => [kind, fields]))
    }),
  },
  { weight: 1, arbitrary: hostileJson },
)
