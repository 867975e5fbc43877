import dc from 'node:diagnostics_channel'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Socket } from 'node:net'
import { type AuthenticatedClient, Client as ChatClient } from '@botpress/chat'
import { Client, InvalidPayloadError } from '@botpress/client'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { excerptBytes } from '../../src/bots/body-excerpt.ts'
import { loadConfig } from '../../src/config.ts'
import { errorBody, WORKSPACE_ID } from '../helpers/app.ts'
import { adminFetchOn } from '../helpers/admin-fetch.ts'
import { adminClientOf, type Listening, startListening } from '../helpers/listening.ts'
import { testOutbound, testResolver } from '../helpers/resolver.ts'
import { randomAdminToken, START_TIMEOUT, startServer } from '../helpers/server.ts'
import { type Answer, type Receiver, startReceiver } from './receiver.ts'
import { eventually } from '../helpers/wait.ts'

// Outbound safety (docs/guides/running-on-the-internet.md): a bot's url may not point at link-local / metadata addresses,
// nor, with BOT_URLS_PRIVATE=deny, at loopback and private ones; checked when the url is set and
// again at every connection, against what the name resolves to then. Names resolve through the
// test's resolver only, and nothing here connects anywhere but 127.0.0.1.

const METADATA = 'http://169.254.169.254/latest/meta-data'

/** Every client socket this process opens, and the address each one connected to. */
const connections: { socket: Socket; remoteAddress?: string }[] = []
const onSocket = ({ socket }: { socket: Socket }) => {
  const seen: { socket: Socket; remoteAddress?: string } = { socket }
  connections.push(seen)
  socket.once('connect', () => {
    seen.remoteAddress = socket.remoteAddress
  })
}
dc.subscribe('net.client.socket', onSocket as (message: unknown) => void)
/** What a test's sockets connected to besides loopback: must stay empty. */
const outsideLoopback = () => connections.map((c) => c.remoteAddress).filter((a) => a !== undefined && !/^(127\.|::1$|::ffff:127\.)/.test(a))

let s: Listening
let admin: Client
let resolver: ReturnType<typeof testResolver>
const cleanups: (() => Promise<void>)[] = []

async function start(privateNetworks: 'allow' | 'deny' = 'allow', names: Record<string, string[]> = {}) {
  resolver = testResolver(names)
  // One attempt: a refused delivery is dead at once, rather than waiting for a retry.
  s = await startListening({ outbound: testOutbound(privateNetworks, resolver), botRetrySchedule: [0] })
  cleanups.push(s.close)
  admin = adminClientOf(s)
}

beforeEach(() => {
  connections.length = 0
})
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  expect(outsideLoopback()).toEqual([])
})

const adminFetch = adminFetchOn(() => s)

const adminGraphql = (query: string, input: Record<string, unknown>) => adminFetch('POST', '/graphql', { query, variables: { input } })
const createBotMutation = 'mutation ($input: CreateBotInput!) { createBot(input: $input) { bot { botId url } } }'
const updateBotMutation = 'mutation ($input: UpdateBotInput!) { updateBot(input: $input) { bot { botId url } } }'

/** A bot's url as the API answers it (absent when none); @botpress/client's Bot type does not name it. */
const urlOf = (bot: object) => (bot as { url?: string }).url

const botCount = async () => (await admin.listBots({})).bots.length
const botUrl = async (id: string) => urlOf((await admin.getBot({ id })).bot)

/** The call is refused with @botpress/client's InvalidPayloadError, its message saying why. */
async function expectInvalidPayload(call: Promise<unknown>, why: RegExp) {
  const error = await call.then(
    (value) => new Error(`expected InvalidPayload, got ${JSON.stringify(value)}`),
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(InvalidPayloadError)
  expect(error).toMatchObject({ code: 400, type: 'InvalidPayload', message: expect.stringMatching(why) })
}

describe('createBot / updateBot — a url at a link-local or metadata address is refused (InvalidPayload, 400)', () => {
  beforeEach(() => start())

  it('REST: POST /v1/admin/bots and PUT /v1/admin/bots/:id, nothing written', async () => {
    const before = await botCount()
    const created = await adminFetch('POST', '/bots', { name: 'Probe', url: METADATA })
    expect(created).toEqual({ status: 400, body: { ...errorBody(400, 'InvalidPayload'), message: expect.any(String) } })
    expect(created.body.message).toBe(
      'url points at 169.254.169.254, a link-local address (cloud metadata services answer at 169.254.169.254), which Confab never connects to',
    )
    expect(await botCount()).toBe(before)

    await admin.updateBot({ id: s.botId, url: 'http://127.0.0.1:9/bot' })
    const updated = await adminFetch('PUT', `/bots/${s.botId}`, { url: METADATA })
    expect(updated.status).toBe(400)
    expect(updated.body).toMatchObject({ code: 400, type: 'InvalidPayload', message: expect.stringMatching(/169\.254\.169\.254, a link-local address/) })
    expect(await botUrl(s.botId)).toBe('http://127.0.0.1:9/bot')
  })

  it('GraphQL: createBot and updateBot answer the error with type InvalidPayload and status 400', async () => {
    for (const [query, input] of [
      [createBotMutation, { name: 'Probe', url: METADATA }],
      [updateBotMutation, { id: s.botId, url: METADATA }],
    ] as const) {
      // As every resolver's refusal: the operation's HTTP status is 200, the error carries the type and status.
      const { status, body } = await adminGraphql(query, input)
      expect(status).toBe(200)
      expect(body).toEqual({
        data: null,
        errors: [
          expect.objectContaining({
            message: expect.stringMatching(/^url points at 169\.254\.169\.254, a link-local address/),
            extensions: expect.objectContaining({ type: 'InvalidPayload', status: 400 }),
          }),
        ],
      })
    }
    expect(await botUrl(s.botId)).toBeUndefined()
  })

  it('@botpress/client: createBot and updateBot throw InvalidPayloadError', async () => {
    await expectInvalidPayload(admin.createBot({ name: 'Probe', url: METADATA }), /169\.254\.169\.254, a link-local address/)
    await expectInvalidPayload(admin.updateBot({ id: s.botId, url: METADATA }), /169\.254\.169\.254, a link-local address/)
  })

  it.each([
    ['an IPv4-mapped IPv6 form', 'http://[::ffff:169.254.169.254]/', /::ffff:a9fe:a9fe, a link-local address/],
    ['a decimal IPv4 form', 'http://2852039166/', /169\.254\.169\.254, a link-local address/],
    ['a NAT64 form', 'http://[64:ff9b::a9fe:a9fe]/', /a link-local address/],
    ['the AWS IPv6 metadata address', 'http://[fd00:ec2::254]/', /fd00:ec2::254, a cloud metadata address/],
    ['the Alibaba Cloud metadata address', 'http://100.100.100.200/', /100\.100\.100\.200, a cloud metadata address/],
    ['IPv6 link-local', 'http://[fe80::1]:8080/', /fe80::1, a link-local address/],
    ['0.0.0.0', 'http://0.0.0.0:3000/', /0\.0\.0\.0, a "this network" address/],
    ['multicast', 'https://224.0.0.1/', /224\.0\.0\.1, a multicast address/],
    ['broadcast', 'http://255.255.255.255/', /255\.255\.255\.255, a reserved or broadcast address/],
  ])('refuses %s (%s)', async (_, url, why) => {
    await expectInvalidPayload(admin.createBot({ url }), why)
  })

  it('refuses a host name that resolves to one, or to one among other addresses (every address is checked)', async () => {
    resolver.set('metadata.test', ['169.254.169.254'])
    resolver.set('mixed.test', ['127.0.0.1', 'fe80::1'])
    await expectInvalidPayload(
      admin.createBot({ url: 'http://metadata.test/x' }),
      /^url's host metadata\.test resolves to 169\.254\.169\.254, a link-local address/,
    )
    await expectInvalidPayload(admin.updateBot({ id: s.botId, url: 'https://mixed.test/x' }), /mixed\.test resolves to fe80::1, a link-local address/)
    expect(resolver.asked).toEqual(['metadata.test', 'mixed.test'])
  })

  it('takes a name that does not resolve (yet): it is checked again at every connection', async () => {
    const { bot } = await admin.createBot({ url: 'https://not-yet.test/hook' })
    expect(urlOf(bot)).toBe('https://not-yet.test/hook')
    expect(resolver.asked).toEqual(['not-yet.test'])
  })

  it('takes only http and https urls', async () => {
    await expectInvalidPayload(
      admin.createBot({ url: 'ftp://127.0.0.1/bot' }),
      /^url: expected an absolute http or https URL, got the string "ftp:\/\/127\.0\.0\.1\/bot"$/,
    )
    await expectInvalidPayload(admin.createBot({ url: 'file:///etc/passwd' }), /^url: expected an absolute http or https URL/)
  })
})

describe('private networks — allowed by default, refused with BOT_URLS_PRIVATE=deny', () => {
  const privateUrls = [
    ['loopback', 'http://127.0.0.1:9/bot', /127\.0\.0\.1, a loopback address/],
    ['IPv6 loopback', 'http://[::1]:9/bot', /::1, a loopback address/],
    ['localhost', 'http://localhost:9/bot', /localhost resolves to 127\.0\.0\.1, a loopback address/],
    ['10/8', 'http://10.1.2.3/bot', /10\.1\.2\.3, a private address/],
    ['172.16/12', 'http://172.20.0.5/bot', /172\.20\.0\.5, a private address/],
    ['192.168/16', 'http://192.168.1.10/bot', /192\.168\.1\.10, a private address/],
    ['fc00::/7', 'http://[fd12:3456::1]/bot', /fd12:3456::1, a private \(unique local\) address/],
    ['CGNAT', 'http://100.64.1.1/bot', /100\.64\.1\.1, a shared \(CGNAT\) address/],
    ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/bot', /::ffff:7f00:1, a loopback address/],
  ] as const

  it('by default, takes every private url', async () => {
    await start()
    for (const [, url] of privateUrls) expect(urlOf((await admin.createBot({ url })).bot)).toBe(url)
  })

  it.each(privateUrls)('with BOT_URLS_PRIVATE=deny, refuses %s (%s) naming the setting', async (_, url, why) => {
    await start('deny')
    const before = await botCount()
    await expectInvalidPayload(admin.createBot({ url }), why)
    await expectInvalidPayload(admin.createBot({ url }), /which BOT_URLS_PRIVATE=deny refuses$/)
    expect(await botCount()).toBe(before)
  })

  it('with BOT_URLS_PRIVATE=deny, takes a public address and a name that resolves to one', async () => {
    await start('deny', { 'bot.public.test': ['93.184.216.34', '2606:2800:220:1::1'] })
    expect(urlOf((await admin.createBot({ url: 'https://203.0.114.7/hook' })).bot)).toBe('https://203.0.114.7/hook')
    expect(urlOf((await admin.createBot({ url: 'https://bot.public.test/hook' })).bot)).toBe('https://bot.public.test/hook')
  })
})

describe('delivery — each connection checks what the name resolves to then (DNS rebinding)', () => {
  let receiver: Receiver
  let user: AuthenticatedClient
  let conversationId: string

  /** The bootstrap bot at `http://<name>:<receiver's port>/bot`, the name resolving to 127.0.0.1 when it is set. */
  async function botAt(name: string, answer: Answer = { status: 200, body: { messages: [{ payload: { type: 'text', text: 'from the bot' } }] } }) {
    receiver = await startReceiver(() => answer)
    cleanups.push(receiver.close)
    resolver.set(name, ['127.0.0.1'])
    const url = receiver.url.replace('127.0.0.1', name)
    expect(urlOf((await admin.updateBot({ id: s.botId, url })).bot)).toBe(url)
    user = await ChatClient.connect({ apiUrl: s.apiUrl })
    conversationId = (await user.createConversation({})).conversation.id
    return url
  }

  const say = async (text: string) => {
    await user.createMessage({ conversationId, payload: { type: 'text', text } })
    await s.t.app.bots.idle()
  }
  const texts = async () => (await user.listMessages({ conversationId })).messages.map((m) => (m.payload as { text: string }).text)
  const logs = async () => (await admin.getBotLogs({ id: s.botId, timeStart: new Date(0).toISOString() })).logs.map((l) => [l.level, l.message])

  it('connects to the name (Host header kept) while it resolves to an allowed address, and posts the answer', async () => {
    await start()
    const url = await botAt('bot.test')
    await say('hello')
    expect(receiver.received).toHaveLength(1)
    expect(receiver.received[0]!.headers.host).toBe(new URL(url).host)
    await eventually(async () => expect(await texts()).toEqual(['from the bot', 'hello']))
  })

  it('refuses the attempt when the name resolves to a metadata address at delivery: nothing connects, nothing is posted', async () => {
    await start()
    const url = await botAt('rebind.test')
    resolver.set('rebind.test', ['169.254.169.254'])
    const socketsBefore = connections.length
    await say('hello')
    expect(receiver.received).toEqual([])
    expect(await texts()).toEqual(['hello'])
    expect(await logs()).toEqual([
      ['error', expect.stringMatching(/is dead after 1 attempts; the event was not delivered$/)],
      [
        'warn',
        expect.stringMatching(
          new RegExp(
            `^POST ${url.replace(/[.]/g, '\\.')} \\(attempt 1 of 1\\): connection error: refused by the outbound policy: rebind\\.test resolves to 169\\.254\\.169\\.254, a link-local address .*, after \\d+ ms$`,
          ),
        ),
      ],
    ])
    // The delivery's socket was made and never connected: the refusal came at its lookup.
    const attempt = connections.slice(socketsBefore).filter((c) => c.remoteAddress === undefined)
    expect(attempt.length).toBeGreaterThan(0)
    expect(resolver.asked.filter((name) => name === 'rebind.test')).toEqual(['rebind.test', 'rebind.test'])

    // The same name back on loopback: the next message is delivered and answered (the refusal was the address's).
    resolver.set('rebind.test', ['127.0.0.1'])
    await say('again')
    expect(receiver.received).toHaveLength(1)
    await eventually(async () => expect(await texts()).toEqual(['from the bot', 'again', 'hello']))
  })

  it('refuses a name that resolves to an allowed address and a metadata one, connecting to neither', async () => {
    await start()
    await botAt('split.test')
    resolver.set('split.test', ['127.0.0.1', '::ffff:169.254.169.254'])
    await say('hello')
    expect(receiver.received).toEqual([])
    expect(await texts()).toEqual(['hello'])
    expect((await logs())[1]![1]).toMatch(/refused by the outbound policy: split\.test resolves to ::ffff:169\.254\.169\.254, a link-local address/)
  })

  it('never follows a redirect: a 3xx is a failed attempt, its Location not visited', async () => {
    await start()
    receiver = await startReceiver((_, index) => ({ status: 302, headers: { location: `${receiver.url}?hop=${index + 1}` } }))
    cleanups.push(receiver.close)
    await admin.updateBot({ id: s.botId, url: receiver.url })
    user = await ChatClient.connect({ apiUrl: s.apiUrl })
    conversationId = (await user.createConversation({})).conversation.id
    await say('hello')
    expect(receiver.received).toHaveLength(1)
    expect((await logs())[1]).toEqual(['warn', expect.stringMatching(/: HTTP 302 in \d+ ms$/)])
  })

  it('with BOT_URLS_PRIVATE=deny, refuses a name that resolved to a public address when set and to loopback at delivery', async () => {
    await start('deny', { 'public.test': ['93.184.216.34'] })
    receiver = await startReceiver()
    cleanups.push(receiver.close)
    const url = receiver.url.replace('127.0.0.1', 'public.test')
    await admin.updateBot({ id: s.botId, url })
    // Only now, before any delivery, does the name lead to the receiver.
    resolver.set('public.test', ['127.0.0.1'])
    user = await ChatClient.connect({ apiUrl: s.apiUrl })
    conversationId = (await user.createConversation({})).conversation.id
    await say('hello')
    expect(receiver.received).toEqual([])
    expect((await logs())[1]![1]).toMatch(
      /refused by the outbound policy: public\.test resolves to 127\.0\.0\.1, a loopback address, which BOT_URLS_PRIVATE=deny refuses/,
    )
  })
})

describe("a failed attempt's log — the status and at most a short excerpt of the body", () => {
  let receiver: Receiver

  /** A `botpress` bot (whose refusals' bodies are logged) answering every event with `answer`. */
  async function refusingBot(answer: Answer) {
    await start()
    receiver = await startReceiver(() => answer)
    cleanups.push(receiver.close)
    expect(await adminFetch('PUT', `/bots/${s.botId}`, { url: receiver.url, protocol: 'botpress' })).toMatchObject({ status: 200 })
    const user = await ChatClient.connect({ apiUrl: s.apiUrl })
    const { conversation } = await user.createConversation({})
    await user.createMessage({ conversationId: conversation.id, payload: { type: 'text', text: 'hi' } })
    await s.t.app.bots.idle()
    const { logs } = await admin.getBotLogs({ id: s.botId, timeStart: new Date(0).toISOString() })
    const line = logs.find((l) => l.level === 'warn')?.message ?? ''
    const [, status, excerpt] = /: HTTP (\d+) in \d+ ms(?:: (.*))?$/s.exec(line) ?? []
    return { line, status, excerpt }
  }

  it(`keeps ${excerptBytes} bytes of a long text body, control and format characters replaced, an ellipsis for the rest`, async () => {
    const body = `secret\r\n\u001b[31mline\u202e\u0000 ${'é'.repeat(4000)}`
    const { status, excerpt } = await refusingBot({ status: 500, body, headers: { 'content-type': 'text/plain; charset=utf-8' } })
    expect(status).toBe('500')
    // The text before the é is 22 bytes: 117 two-byte é fill the remaining 234.
    expect(excerpt).toBe(`secret [31mline ${'é'.repeat(117)}…`)
    expect(Buffer.byteLength(excerpt!.replace(/…$/, ''))).toBeLessThanOrEqual(excerptBytes)
  })

  it('keeps a short JSON body whole', async () => {
    const { excerpt } = await refusingBot({ status: 503, body: { message: 'down for maintenance' } })
    expect(excerpt).toBe('{"message":"down for maintenance"}')
  })

  it('keeps the status alone for a body that is not text', async () => {
    const { line, status, excerpt } = await refusingBot({ status: 502, body: 'x'.repeat(10_000), headers: { 'content-type': 'application/octet-stream' } })
    expect(status).toBe('502')
    expect(excerpt).toBeUndefined()
    expect(line).not.toMatch(/xxx/)
  })
})

describe('BOT_URLS_PRIVATE', () => {
  it('is allow by default, takes allow and deny, and stops the start on anything else', () => {
    expect(loadConfig({}).botUrlsPrivate).toBe('allow')
    expect(loadConfig({ BOT_URLS_PRIVATE: 'allow' }).botUrlsPrivate).toBe('allow')
    expect(loadConfig({ BOT_URLS_PRIVATE: 'deny' }).botUrlsPrivate).toBe('deny')
    expect(() => loadConfig({ BOT_URLS_PRIVATE: 'no' })).toThrow('BOT_URLS_PRIVATE must be "allow" or "deny", got "no"')
  })

  it(
    'reaches the server `npm start` runs: deny refuses a loopback url, a metadata url is refused either way',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'confab-outbound-'))
      const adminToken = randomAdminToken()
      const env = { CONFAB_WORKSPACE_ID: WORKSPACE_ID, CONFAB_ADMIN_TOKEN: adminToken, BOT_URLS_PRIVATE: 'deny', READ_REPLICAS: '0' }
      const server = await startServer({ databaseUrl: join(dir, 'confab.db'), env })
      try {
        const client = new Client({ apiUrl: server.baseUrl, token: adminToken, workspaceId: WORKSPACE_ID })
        await expectInvalidPayload(client.createBot({ url: 'http://127.0.0.1:9/bot' }), /which BOT_URLS_PRIVATE=deny refuses$/)
        await expectInvalidPayload(client.createBot({ url: METADATA }), /which Confab never connects to$/)
      } finally {
        await server.stop()
        rmSync(dir, { recursive: true, force: true })
      }
    },
    START_TIMEOUT + 30_000,
  )
})
