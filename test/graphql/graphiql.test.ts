import { type IncomingHttpHeaders, request } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WEBHOOK_ID } from '../helpers/app.ts'
import { type Listening, startListening } from '../helpers/listening.ts'
import { rules, useLimitedServer } from '../helpers/limited.ts'

// GraphiQL, the page a browser gets at /{webhookId}/graphql and /v1/admin/graphql: 9 MB made once,
// sent only compressed (gzip or br, as the browser asks), revalidated with its ETag, and counted on
// the `anonymous` rate limit per client address. GRAPHIQL=off turns it off.

interface RawAnswer {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
}

/** A GET as a browser sends it for a page, with these headers, its body left as it came (compressed). */
function getPage(url: string, headers: Record<string, string> = {}, from = '127.0.0.1'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress: from, agent: false, headers: { accept: 'text/html,application/xhtml+xml', ...headers } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      res.once('error', reject)
    })
    req.once('error', reject)
    req.end()
  })
}

const useServer = (options: Parameters<typeof startListening>[0] = {}) => {
  const state: { listening?: Listening } = {}
  beforeAll(async () => {
    state.listening = await startListening(options)
  })
  afterAll(() => state.listening?.close())
  return () => (state.listening as Listening).baseUrl
}

describe('GraphiQL is sent compressed, as the browser asks', () => {
  const baseUrl = useServer()

  it.each([
    ['gzip', 'gzip, deflate', gunzipSync],
    // Made after gzip: a browser that also takes gzip gets gzip until then; one that takes br only waits for it.
    ['br', 'br', brotliDecompressSync],
  ])('%s: the page, a third of its size or less, with its security headers', { timeout: 60_000 }, async (coding, acceptEncoding, decompress) => {
    const answer = await getPage(`${baseUrl()}/${WEBHOOK_ID}/graphql`, { 'accept-encoding': acceptEncoding })
    expect(answer.status).toBe(200)
    expect(answer.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'content-encoding': coding,
      'content-length': String(answer.body.length),
      'cache-control': 'no-cache',
      vary: 'accept-encoding',
      etag: expect.stringMatching(/^W\/"[\w-]{22}"$/),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'content-security-policy': expect.stringContaining("connect-src 'self'"),
    })
    const page = decompress(answer.body).toString('utf8')
    expect(page).toContain('<title>Confab</title>')
    expect(page).toContain('# Confab: the chat GraphQL API of one chat integration')
    expect(answer.body.length).toBeLessThan(page.length / 3)
    expect(answer.body.length).toBeLessThan(3 * 1024 * 1024)
  })

  it('is refused with 406 to a client that takes no compression: 9 MB are not sent to anyone', async () => {
    const answer = await getPage(`${baseUrl()}/${WEBHOOK_ID}/graphql`, { 'accept-encoding': 'identity' })
    expect(answer.status).toBe(406)
    expect(JSON.parse(answer.body.toString('utf8'))).toEqual({
      errors: [{ message: expect.stringMatching(/^GraphiQL is sent compressed/), extensions: expect.objectContaining({ type: 'NotAcceptable', status: 406 }) }],
    })
  })

  it('is 404 at a webhook id that does not exist', async () => {
    expect((await getPage(`${baseUrl()}/no-such-webhook/graphql`, { 'accept-encoding': 'gzip' })).status).toBe(404)
  })
})

describe('GraphiQL is revalidated by its ETag', () => {
  const baseUrl = useServer()

  it('answers 304 without a body to If-None-Match, one page for every webhook id and both encodings', async () => {
    const first = await getPage(`${baseUrl()}/${WEBHOOK_ID}/graphql`, { 'accept-encoding': 'gzip' })
    const etag = first.headers.etag as string
    const again = await getPage(`${baseUrl()}/${WEBHOOK_ID}/graphql/`, { 'accept-encoding': 'br, gzip', 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect(again.body.length).toBe(0)
    expect(again.headers).toMatchObject({ etag, 'cache-control': 'no-cache', vary: 'accept-encoding' })
    expect((await getPage(`${baseUrl()}/${WEBHOOK_ID}/graphql`, { 'accept-encoding': 'gzip', 'if-none-match': 'W/"other"' })).status).toBe(200)
  })

  it("gives the administration API's page its own ETag and words", async () => {
    const chat = await getPage(`${baseUrl()}/${WEBHOOK_ID}/graphql`, { 'accept-encoding': 'gzip' })
    const admin = await getPage(`${baseUrl()}/v1/admin/graphql`, { 'accept-encoding': 'gzip' })
    expect(admin.status).toBe(200)
    expect(admin.headers.etag).not.toBe(chat.headers.etag)
    expect(gunzipSync(admin.body).toString('utf8')).toContain('then fetch the schema again')
  })
})

describe('GraphiQL counts on the anonymous rate limit per client address', () => {
  const server = useLimitedServer(rules({ anonymous: { points: 2, seconds: 60 } }))

  it('answers 429 once an address asked for its limit, a 304 counting as a page; another address is served', async () => {
    const url = `${server.baseUrl}/${WEBHOOK_ID}/graphql`
    const first = await getPage(url, { 'accept-encoding': 'gzip' }, '127.0.0.3')
    expect(first.status).toBe(200)
    expect((await getPage(url, { 'accept-encoding': 'gzip', 'if-none-match': first.headers.etag as string }, '127.0.0.3')).status).toBe(304)
    const refused = await getPage(`${server.baseUrl}/v1/admin/graphql`, { 'accept-encoding': 'gzip' }, '127.0.0.3')
    expect(refused.status).toBe(429)
    expect(refused.headers['retry-after']).toMatch(/^\d+$/)
    expect((await getPage(url, { 'accept-encoding': 'gzip' }, '127.0.0.4')).status).toBe(200)
  })
})

describe('GRAPHIQL=off', () => {
  const baseUrl = useServer({ graphiql: false })

  it('serves no page: a browser GET is a GraphQL request without a query', async () => {
    const answer = await getPage(`${baseUrl()}/${WEBHOOK_ID}/graphql`, { 'accept-encoding': 'gzip' })
    expect(answer.headers['content-type']).toMatch(/^application\/json/)
    expect(JSON.parse(answer.body.toString('utf8')).errors[0]).toMatchObject({ message: 'Must provide query string.', extensions: { type: 'InvalidPayload' } })
  })
})
