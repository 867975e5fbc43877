import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { isHostAndPort, lastForwarded } from '../../src/http/public-origin.ts'
import { ADMIN_TOKEN, errorBody, type TestAppOptions, WEBHOOK_ID, WORKSPACE_ID } from '../helpers/app.ts'
import { type Listening, startListening } from '../helpers/listening.ts'
import { strictRequest } from '../helpers/strict-http.ts'

// Issue 29, item 4: every URL Confab hands out (a bot's webhookUrl, a file's url and uploadUrl)
// starts with PUBLIC_URL when it is set; otherwise with the origin the request names, believing the
// forwarded scheme and host (X-Forwarded-Proto/-Host, Forwarded) of a trusted proxy only.

let s: Listening | undefined
afterEach(async () => {
  await s?.close()
  s = undefined
})

async function listen(options: TestAppOptions = {}) {
  s = await startListening(options)
  return s
}

const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID, 'content-type': 'application/json' }

/** The webhookUrl of a bot createBot makes (REST, as @botpress/client calls it). */
async function webhookUrl(server: Listening, headers: Record<string, string> = {}) {
  const created = await strictRequest(server.baseUrl, {
    method: 'POST',
    path: '/v1/admin/bots',
    headers: { ...adminHeaders, ...headers },
    body: JSON.stringify({ name: 'Support' }),
  })
  expect(created.status).toBe(200)
  const chat = created.json.bot.integrations.chat
  return { url: chat.webhookUrl as string, webhookId: chat.webhookId as string }
}

/** A file slot opened through REST, and one through GraphQL: their url and uploadUrl. */
async function fileUrls(server: Listening, headers: Record<string, string> = {}) {
  const key = await server.t.keyFor('alice')
  await server.t.user('alice')
  const chatHeaders = { 'x-user-key': key, 'content-type': 'application/json', ...headers }
  const rest = await strictRequest(server.baseUrl, {
    method: 'POST',
    path: `/${WEBHOOK_ID}/files`,
    headers: chatHeaders,
    body: JSON.stringify({ key: 'photo.png', size: 10 }),
  })
  expect(rest.status).toBe(200)
  const graphql = await strictRequest(server.baseUrl, {
    method: 'POST',
    path: `/${WEBHOOK_ID}/graphql`,
    headers: chatHeaders,
    body: JSON.stringify({ query: 'mutation { createFile(input: { key: "photo.png", size: 10 }) { file { url uploadUrl } } }' }),
  })
  expect(graphql.status).toBe(200)
  const { url, uploadUrl } = graphql.json.data.createFile.file
  return [rest.json.file.url, rest.json.file.uploadUrl, url, uploadUrl] as string[]
}

const forwarded = {
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'chat.example.com',
  forwarded: 'for=198.51.100.7;proto=https;host=other.example.com',
}

describe('PUBLIC_URL', () => {
  it('starts a bot webhookUrl and every file url and uploadUrl (REST and GraphQL), whatever the request says', async () => {
    const server = await listen({ publicUrl: 'https://chat.example.com' })
    const { url, webhookId } = await webhookUrl(server, { ...forwarded, host: 'evil.example' })
    expect(url).toBe(`https://chat.example.com/${webhookId}`)
    const urls = await fileUrls(server, { host: 'evil.example' })
    for (const handedOut of urls) expect(handedOut).toMatch(new RegExp(`^https://chat\\.example\\.com/${WEBHOOK_ID}/files/`))
  })

  it('keeps a base path: the proxy serves Confab under it', async () => {
    const server = await listen({ publicUrl: 'https://example.com/confab' })
    const { url, webhookId } = await webhookUrl(server)
    expect(url).toBe(`https://example.com/confab/${webhookId}`)
    for (const handedOut of await fileUrls(server)) expect(handedOut.startsWith(`https://example.com/confab/${WEBHOOK_ID}/files/`)).toBe(true)
  })

  it('the uploadUrl it hands out works once the proxy strips the base path', async () => {
    const server = await listen({ publicUrl: 'https://example.com/confab' })
    const [, uploadUrl] = await fileUrls(server)
    const path = new URL(uploadUrl!).pathname.replace(/^\/confab/, '') + new URL(uploadUrl!).search
    const put = await strictRequest(server.baseUrl, { method: 'PUT', path, headers: { 'content-type': 'image/png' }, body: '0123456789' })
    expect(put.status).toBe(200)
  })

  it('is validated when Confab starts: an absolute http(s) URL without query, fragment or credentials', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://chat.example.com/' }).publicUrl).toBe('https://chat.example.com')
    expect(loadConfig({ PUBLIC_URL: 'https://example.com/confab/' }).publicUrl).toBe('https://example.com/confab')
    expect(loadConfig({}).publicUrl).toBeUndefined()
    for (const bad of [
      'chat.example.com',
      '/confab',
      'ftp://example.com',
      'https://example.com/?a=1',
      'https://example.com/#x',
      'https://u:p@example.com',
      'https://example.com?',
    ]) {
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).toThrow(ConfigError)
    }
  })
})

describe('forwarded headers without PUBLIC_URL', () => {
  it('are ignored from an untrusted peer (the default): the request’s own scheme and Host', async () => {
    const server = await listen()
    const { url, webhookId } = await webhookUrl(server, forwarded)
    expect(url).toBe(`${server.baseUrl}/${webhookId}`)
    for (const handedOut of await fileUrls(server, forwarded)) expect(handedOut.startsWith(`${server.baseUrl}/`)).toBe(true)
  })

  it('are ignored from a peer that is not in TRUST_PROXY', async () => {
    const server = await listen({ trustProxy: ['10.0.0.0/8'] })
    const { url, webhookId } = await webhookUrl(server, forwarded)
    expect(url).toBe(`${server.baseUrl}/${webhookId}`)
  })

  it('X-Forwarded-Proto and X-Forwarded-Host are honoured from a trusted proxy (TRUST_PROXY=loopback)', async () => {
    const server = await listen({ trustProxy: ['loopback'] })
    const { url, webhookId } = await webhookUrl(server, forwarded)
    expect(url).toBe(`https://chat.example.com/${webhookId}`)
    for (const handedOut of await fileUrls(server, forwarded)) expect(handedOut.startsWith('https://chat.example.com/')).toBe(true)
  })

  it('Forwarded (RFC 7239) is honoured from a trusted proxy, its last element being the proxy’s own', async () => {
    const server = await listen({ trustProxy: ['127.0.0.1'] })
    const headers = { forwarded: 'for=203.0.113.9;host=spoofed.example, for=198.51.100.7;proto=https;host="chat.example.com:8443"' }
    const { url, webhookId } = await webhookUrl(server, headers)
    expect(url).toBe(`https://chat.example.com:8443/${webhookId}`)
  })

  it('of X-Forwarded-*, the last value counts: the one the proxy next to Confab wrote', async () => {
    const server = await listen({ trustProxy: ['loopback'] })
    const headers = { 'x-forwarded-proto': 'http, https', 'x-forwarded-host': 'spoofed.example, chat.example.com' }
    const { url, webhookId } = await webhookUrl(server, headers)
    expect(url).toBe(`https://chat.example.com/${webhookId}`)
  })

  it('a forwarded host or scheme from a trusted proxy that makes no URL is 400 InvalidPayload', async () => {
    const server = await listen({ trustProxy: ['loopback'] })
    const refused: Record<string, string>[] = [{ 'x-forwarded-host': 'evil:80@attacker' }, { forwarded: 'host="a b"' }, { 'x-forwarded-proto': 'gopher' }]
    for (const headers of refused) {
      const answer = await strictRequest(server.baseUrl, { path: `/${WEBHOOK_ID}/hello`, headers })
      expect(answer.status, JSON.stringify(headers)).toBe(400)
      expect(answer.json).toEqual(errorBody(400, 'InvalidPayload'))
    }
  })

  it('an untrusted peer’s invalid forwarded host is no concern: it is not read', async () => {
    const server = await listen()
    const answer = await strictRequest(server.baseUrl, { path: '/healthz', headers: { 'x-forwarded-host': 'evil:80@attacker' } })
    expect(answer.status).toBe(200)
  })
})

describe('what makes a host[:port] (isHostAndPort) and a Forwarded element (lastForwarded)', () => {
  it.each(['chat.example.com', 'chat.example.com:8443', 'localhost:0', '127.0.0.1:65535', '[::1]:3000', '[2001:db8::1]', 'xn--bcher-kva.example'])(
    '%s is one',
    (host) => expect(isHostAndPort(host)).toBe(true),
  )

  it.each(['evil:80@attacker', 'a b', 'x:99999', 'a/b', 'a?b', 'a#b', '[zz]', '::1', 'h:p', 'a:1:2', '', '%00', 'a\\b'])('%j is not', (host) =>
    expect(isHostAndPort(host)).toBe(false),
  )

  it('reads proto and host of the last element, quoted or not', () => {
    expect(lastForwarded('for=1.2.3.4;proto=http, for="[::1]";proto=https;host="a.example:1,2"')).toEqual({ proto: 'https', host: 'a.example:1,2' })
    expect(lastForwarded('for=1.2.3.4')).toEqual({ proto: undefined, host: undefined })
    expect(lastForwarded(null)).toEqual({})
  })
})
