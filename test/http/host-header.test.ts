import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, errorBody, WEBHOOK_ID, WORKSPACE_ID } from '../helpers/app.ts'
import { type Listening, startListening } from '../helpers/listening.ts'
import { strictRequest } from '../helpers/strict-http.ts'

// Issue 29, item 4: a Host that is not a host[:port] (RFC 3986: reg-name, IPv4 or [IPv6], port
// 0-65535) is refused with 400 InvalidPayload before anything else: made into a URL, `evil:80@attacker`
// named the host `attacker`, and the URLs handed out (webhookUrl, file urls) pointed there.

let s: Listening
beforeAll(async () => {
  s = await startListening()
})
afterAll(() => s.close())

const invalidHosts = ['evil:80@attacker', 'a b', 'x:99999', 'a/b', 'chat.example.com?x', '[not-ipv6]', 'a:b']

describe('an invalid Host header', () => {
  it.each(invalidHosts)('%j is 400 InvalidPayload, on any path', async (host) => {
    for (const path of ['/healthz', `/${WEBHOOK_ID}/hello`, `/${WEBHOOK_ID}/graphql`, '/v1/admin/bots', '/no-such-path']) {
      const answer = await strictRequest(s.baseUrl, { path, headers: { host } })
      expect(answer.status, path).toBe(400)
      expect(answer.json, path).toEqual(errorBody(400, 'InvalidPayload'))
      expect(answer.json.message).toMatch(/Host header/)
      expect(answer.json.id).toBe(`err_${answer.headers['x-request-id']}`)
    }
  })

  it('is refused before a CORS preflight is answered', async () => {
    const answer = await strictRequest(s.baseUrl, {
      method: 'OPTIONS',
      path: `/${WEBHOOK_ID}/users`,
      headers: { host: 'evil:80@attacker', origin: 'https://app.example', 'access-control-request-method': 'POST' },
    })
    expect(answer.status).toBe(400)
  })

  it('never makes the URLs handed out: createBot under a spoofed Host creates nothing', async () => {
    const before = await s.t.count('select count(*) as n from bots')
    const answer = await strictRequest(s.baseUrl, {
      method: 'POST',
      path: '/v1/admin/bots',
      headers: { host: 'evil:80@attacker', authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Spoofed' }),
    })
    expect(answer.status).toBe(400)
    expect(await s.t.count('select count(*) as n from bots')).toBe(before)
  })

  it('refuses a WebSocket upgrade with 400 in the same body', async () => {
    const { port } = new URL(s.baseUrl)
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write(
          `GET /${WEBHOOK_ID}/graphql HTTP/1.1\r\nHost: evil:80@attacker\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n',
        ),
      )
      let text = ''
      socket.on('data', (chunk) => (text += chunk))
      socket.once('close', () => resolve(text))
      socket.once('error', reject)
    })
    expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request')
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual(errorBody(400, 'InvalidPayload'))
  })
})

describe('a valid Host header', () => {
  it.each(['chat.example.com', 'chat.example.com:8443', '127.0.0.1', '[::1]:3000'])('%s is served, and names the URLs handed out', async (host) => {
    const created = await strictRequest(s.baseUrl, {
      method: 'POST',
      path: '/v1/admin/bots',
      headers: { host, authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Support' }),
    })
    expect(created.status).toBe(200)
    const chat = created.json.bot.integrations.chat
    expect(chat.webhookUrl).toBe(`http://${host}/${chat.webhookId}`)
  })
})
