import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Logger, pino } from 'pino'
import { expect } from 'vitest'
import type { BotHandler } from '../../src/bots/handler.ts'
import type { ResourceLimits } from '../../src/config.ts'
import type { BotChanges } from '../../src/db/store.ts'
import { newSigningSecret } from '../../src/domain/bots/admin/secrets.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

/** One request a receiver got: its headers and raw body, and whether its connection was closed. */
export interface Received {
  headers: Record<string, string>
  body: string
  json: any
  closed: Promise<void>
}

/** What the receiver answers to a request: a status with an optional body and headers, or nothing ever. */
export type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang'

/**
 * A bot played by a real node:http server in the test process: it records every request and
 * answers as `answer` says (which the test may change between requests).
 */
export async function startReceiver(answer: (request: Received, index: number) => Answer | Promise<Answer> = () => ({ status: 200 })) {
  const received: Received[] = []
  const hanging = new Set<ServerResponse>()
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const closed = new Promise<void>((resolve) => res.once('close', () => resolve()))
    const request: Received = {
      headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
      body,
      json: JSON.parse(body),
      closed,
    }
    received.push(request)
    const reply = await receiver.answer(request, received.length - 1)
    if (reply === 'hang') {
      hanging.add(res)
      return
    }
    const payload = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body)
    res.writeHead(reply.status, {
      ...(typeof reply.body === 'object' ? { 'content-type': 'application/json' } : {}),
      ...reply.headers,
    })
    res.end(payload)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const receiver = {
    url: `http://127.0.0.1:${port}/bot`,
    received,
    answer,
    close: async () => {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return receiver
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>

/**
 * A clock the test moves by hand: retries come due when the test says, never after a real wait.
 * It starts a minute ahead of the wall clock, by which events are stamped, so that a new event is
 * due on it at once.
 */
export function manualClock(start = Date.now() + 60_000) {
  let now = start
  return {
    now: () => new Date(now),
    advance: (ms: number) => {
      now += ms
    },
  }
}

/** The test app whose bot POSTs to `url` (the bootstrap bot, given a url and a signing secret). */
export async function webhookBotApp(options: {
  url?: string
  databaseUrl?: string
  botRetrySchedule?: number[]
  botTimeoutMs?: number
  clock?: () => Date
  handlers?: Record<string, BotHandler>
  caps?: ResourceLimits
  log?: Logger
  onQuery?: (sql: string) => void
}) {
  const { url, ...appOptions } = options
  const t = createTestApp({ log: pino({ level: 'silent' }), ...appOptions } as Parameters<typeof createTestApp>[0])
  await t.ready
  const botId = t.tenant?.botId as string
  const secret = newSigningSecret()
  if (url !== undefined) await setBot(t, botId, { url, signingSecret: secret })
  return { t, botId, secret }
}

/**
 * Changes the bot row through the store, as the admin API's writes do (a write behind the server's
 * back would not reach what it keeps of its bots): a url and a secret the test knows, in one step.
 */
export const setBot = async (t: TestApp, botId: string, changes: BotChanges) => {
  const workspaceId = t.tenant?.workspaceId as string
  expect(await t.store.write((q) => q.bots.update(workspaceId, botId, changes))).toBeDefined()
}

export const logsOf = async (t: TestApp) => t.db.select().from(t.tables.botLogs).orderBy(t.tables.botLogs.timestamp, t.tables.botLogs.id)

/** The outbox rows, oldest first (without PostgreSQL's lease column). */
export const pendingDeliveries = async (t: TestApp) =>
  (await t.db.select().from(t.tables.botDeliveries).orderBy(t.tables.botDeliveries.seq)).map(
    ({ leasedUntil: _, ...row }: typeof t.tables.botDeliveries.$inferSelect & { leasedUntil?: unknown }) => row,
  )
