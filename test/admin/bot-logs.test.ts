import { type Client, InvalidPayloadError } from '@botpress/client'
import { describe, expect, it } from 'vitest'
import { type BotLogEntry, type BotLogLevel, recordBotLog } from '../../src/domain/bots/admin/logs.ts'
import { ADMIN_TOKEN, WORKSPACE_ID } from '../helpers/app.ts'
import { eachListening, type Listening } from '../helpers/listening.ts'

let s: Listening
let admin: Client
eachListening((started, client) => ([s, admin] = [started, client]))

const second = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString()
const LEVELS: BotLogLevel[] = ['debug', 'info', 'warn', 'error']

/**
 * 30 log lines of the bootstrap bot, one a second from 00:00:00, in conversations c0–c2 and users
 * u0–u1 (every 5th line has neither), cycling through the levels; lines 10 and 11 share a timestamp.
 */
function seed(botId: string) {
  const entries: BotLogEntry[] = Array.from({ length: 30 }, (_, i) => ({
    botId,
    timestamp: second(i === 11 ? 10 : i),
    level: LEVELS[i % 4] as BotLogLevel,
    message: `line ${i}`,
    ...(i % 5 === 0 ? {} : { conversationId: `c${i % 3}`, userId: `u${i % 2}` }),
  }))
  return s.t.store.write(async (q) => {
    for (const entry of entries) await recordBotLog(q, entry)
    return entries
  })
}

/** What getBotLogs returns for an entry: optional ids only when set. */
const logOf = (entry: BotLogEntry) => ({
  timestamp: entry.timestamp,
  level: entry.level,
  message: entry.message,
  ...(entry.conversationId === undefined ? {} : { conversationId: entry.conversationId }),
  ...(entry.userId === undefined ? {} : { userId: entry.userId }),
})

/** Newest first; entries of one timestamp in reverse order of recording (their ids are monotonic). */
const newestFirst = (entries: BotLogEntry[]) => [...entries].reverse().sort((a, b) => (a.timestamp! < b.timestamp! ? 1 : a.timestamp! > b.timestamp! ? -1 : 0))

async function walk(input: Omit<Parameters<Client['getBotLogs']>[0], 'nextToken'>) {
  const pages: Awaited<ReturnType<Client['getBotLogs']>>[] = []
  let nextToken: string | undefined
  do {
    const page = await admin.getBotLogs({ ...input, nextToken })
    pages.push(page)
    nextToken = page.nextToken
    if (pages.length > 10) throw new Error('getBotLogs never stops paging')
  } while (nextToken !== undefined)
  return pages
}

describe('getBotLogs through @botpress/client', () => {
  it('pages the time range newest first, 20 a page, with nextToken absent on the last page', async () => {
    const entries = await seed(s.botId)
    const pages = await walk({ id: s.botId, timeStart: second(0) })
    expect(pages.map((page) => page.logs.length)).toEqual([20, 10])
    expect(pages[0]).toEqual({ logs: newestFirst(entries).slice(0, 20).map(logOf), nextToken: expect.any(String) })
    expect(pages[1]).toEqual({ logs: newestFirst(entries).slice(20).map(logOf) })
  })

  it('filters by timeStart and timeEnd (both inclusive), conversationId, userId and level', async () => {
    const entries = await seed(s.botId)
    const expectLogs = async (input: Record<string, string>, keep: (entry: BotLogEntry) => boolean) => {
      const logs = (await walk({ id: s.botId, timeStart: second(0), ...input })).flatMap((page) => page.logs)
      expect(logs).toEqual(newestFirst(entries.filter(keep)).map(logOf))
      expect(logs.length).toBeGreaterThan(0)
    }
    await expectLogs({ timeStart: second(10), timeEnd: second(12) }, (e) => e.timestamp! >= second(10) && e.timestamp! <= second(12))
    await expectLogs({ conversationId: 'c1' }, (e) => e.conversationId === 'c1')
    await expectLogs({ userId: 'u0', level: 'warn' }, (e) => e.userId === 'u0' && e.level === 'warn')
    await expectLogs({ level: 'error', timeEnd: second(15) }, (e) => e.level === 'error' && e.timestamp! <= second(15))
    // A time with another offset is the same instant.
    await expectLogs({ timeStart: '2026-01-01T01:00:25+01:00' }, (e) => e.timestamp! >= second(25))
  })

  it('shows only the bot’s own logs, and nothing before timeStart', async () => {
    const { bot } = await admin.createBot({ name: 'Other' })
    await seed(bot.id)
    expect(await admin.getBotLogs({ id: s.botId, timeStart: second(0) })).toEqual({ logs: [] })
    expect(await admin.getBotLogs({ id: bot.id, timeStart: second(30) })).toEqual({ logs: [] })
  })

  it('refuses a bad time, level or nextToken, and a token of another filter, with 400 InvalidPayload', async () => {
    await seed(s.botId)
    const { nextToken } = await admin.getBotLogs({ id: s.botId, timeStart: second(0) })
    const bad = [
      { timeStart: 'yesterday' },
      { timeStart: second(0), timeEnd: 'soon' },
      { timeStart: second(0), level: 'fatal' },
      { timeStart: second(0), nextToken: 'not-a-token' },
      { timeStart: second(1), nextToken },
    ]
    for (const input of bad) {
      const error = await admin.getBotLogs({ id: s.botId, ...input }).catch((e: unknown) => e)
      expect(error, JSON.stringify(input)).toBeInstanceOf(InvalidPayloadError)
      expect(error).toMatchObject({ code: 400, type: 'InvalidPayload' })
    }
    const missing = await fetch(`${s.baseUrl}/v1/admin/bots/${s.botId}/logs`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID },
    })
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ code: 400, type: 'InvalidPayload', message: 'timeStart is required: expected a string' })
  })

  it('a deleted bot’s logs go with it', async () => {
    const { bot } = await admin.createBot({})
    await seed(bot.id)
    await admin.deleteBot({ id: bot.id })
    const rows = await s.t.store.read((q) => q.botLogs.page(bot.id, { timeStart: second(0) }, { limit: 100, inverted: false }))
    expect(rows).toEqual([])
  })
})

describe('botLogs in admin GraphQL', () => {
  it('is a connection of the same lines', async () => {
    const entries = await seed(s.botId)
    const response = await fetch(`${s.baseUrl}/v1/admin/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `query ($id: String!, $from: String!) {
          botLogs(id: $id, timeStart: $from, conversationId: "c2", first: 3) {
            edges { node { timestamp level message conversationId userId } }
            pageInfo { hasNextPage }
          }
        }`,
        variables: { id: s.botId, from: second(0) },
      }),
    })
    const expected = newestFirst(entries.filter((e) => e.conversationId === 'c2'))
      .slice(0, 3)
      .map((e) => ({ node: { ...logOf(e), conversationId: 'c2', userId: e.userId } }))
    expect(await response.json()).toEqual({ data: { botLogs: { edges: expected, pageInfo: { hasNextPage: true } } } })
  })
})
