import { eq } from 'drizzle-orm'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type BotRow, bots } from '../../src/db/schema.ts'
import { createTenant } from '../../src/domain/tenancy.ts'
import { ADMIN_TOKEN, BASE, createTestApp, errorBody, type TestApp, WORKSPACE_ID } from '../helpers/app.ts'

const OTHER_WORKSPACE_ID = 'wkspace_other'
const OTHER_ADMIN_TOKEN = 'bp_pat_other_admin_token'
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

let t: TestApp
beforeEach(async () => {
  t = createTestApp()
  await t.ready
})
afterEach(() => t.close())

/** A GET of the admin API with exactly `headers` (t.admin always adds the valid credentials). */
async function getWith(path: string, headers: Record<string, string>) {
  const response = await t.send('GET', `${BASE}/v1/admin${path}`, { headers })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
}

/** The listBots body of a row: optional fields are left out, never null. */
const botBody = (row: BotRow) => ({
  id: row.id,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  name: row.name,
  ...(row.deployedAt === null ? {} : { deployedAt: row.deployedAt }),
  tags: row.tags,
})

const at = (base: string, seconds: number) => new Date(Date.parse(base) + seconds * 1000).toISOString()

/**
 * 45 bots whose ids, createdAt and updatedAt orders all differ: createdAt comes in groups of 3 and
 * updatedAt in pairs, so ties must be broken by id; every 4th bot was never deployed.
 */
function seedBots(workspaceId = WORKSPACE_ID, count = 45, prefix = 'bot') {
  const rows = Array.from({ length: count }, (_, i): BotRow => ({
    id: `${prefix}_${String(count - 1 - ((i * 29) % count)).padStart(2, '0')}`,
    workspaceId,
    name: `Bot ${i}`,
    handler: 'echo',
    tags: i % 5 === 0 ? { team: `t${i}` } : {},
    createdAt: at('2020-01-01T00:00:00.000Z', Math.floor(i / 3) * 60),
    updatedAt: at('2021-01-01T00:00:00.000Z', Math.floor(((i * 17) % count) / 2)),
    deployedAt: i % 4 === 0 ? null : at('2022-01-01T00:00:00.000Z', i),
    url: null,
    signingSecret: null,
    previousSigningSecret: null,
    previousSigningSecretExpiresAt: null,
    goneUrl: null,
  }))
  t.db.insert(bots).values(rows).run()
}

const workspaceRows = (workspaceId = WORKSPACE_ID) =>
  t.db.select().from(bots).where(eq(bots.workspaceId, workspaceId)).all()

/** The workspace's bots in the order asked: by the field, then by id; desc is asc reversed. */
function expectedOrder(field: 'createdAt' | 'updatedAt', direction: 'asc' | 'desc', workspaceId = WORKSPACE_ID) {
  const key = (row: BotRow) => [row[field], row.id] as const
  const sorted = workspaceRows(workspaceId).sort((a, b) => {
    const [ka, kb] = [key(a), key(b)]
    if (ka[0] !== kb[0]) return ka[0] < kb[0] ? -1 : 1
    return ka[1] < kb[1] ? -1 : ka[1] > kb[1] ? 1 : 0
  })
  return direction === 'asc' ? sorted : sorted.reverse()
}

/** Walks listBots page by page until meta.nextToken is absent; returns the pages. */
async function walk(query: Record<string, string>, headers?: Record<string, string>) {
  const pages: { bots: any[]; meta: { nextToken?: string } }[] = []
  let nextToken: string | undefined
  do {
    const params = new URLSearchParams({ ...query, ...(nextToken === undefined ? {} : { nextToken }) })
    const res = await t.admin('GET', `/bots?${params}`, { headers })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    pages.push(res.body)
    nextToken = res.body.meta.nextToken
    if (pages.length > 60) throw new Error('listBots never stops paging')
  } while (nextToken !== undefined)
  return pages
}

describe('listBots (GET /v1/admin/bots)', () => {
  it('lists the bootstrap bot with exactly the Bot fields', async () => {
    const res = await t.admin('GET', '/bots')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    const [row] = workspaceRows()
    expect(row?.createdAt).toMatch(ISO)
    expect(res.body).toEqual({
      bots: [
        {
          id: t.tenant?.botId,
          createdAt: row?.createdAt,
          updatedAt: row?.createdAt,
          name: 'Echo bot',
          deployedAt: row?.createdAt,
          tags: {},
        },
      ],
      meta: {},
    })
  })

  it('leaves deployedAt out for a bot that was never deployed', async () => {
    seedBots()
    const res = await t.admin('GET', '/bots?pageSize=100')
    expect(res.status).toBe(200)
    const never = res.body.bots.filter((bot: any) => bot.name === 'Bot 0')
    expect(never).toEqual([
      { id: 'bot_44', createdAt: expect.any(String), updatedAt: expect.any(String), name: 'Bot 0', tags: { team: 't0' } },
    ])
  })

  describe.each([
    ['createdAt', 'asc'],
    ['createdAt', 'desc'],
    ['updatedAt', 'asc'],
    ['updatedAt', 'desc'],
  ] as const)('pagination by %s %s', (sortField, sortDirection) => {
    it('lists every bot once, in that order, pageSize at a time, until meta.nextToken is absent', async () => {
      seedBots()
      const pages = await walk({ pageSize: '10', sortField, sortDirection })
      expect(pages.map((p) => p.bots.length)).toEqual([10, 10, 10, 10, 6])
      for (const page of pages.slice(0, -1)) expect(page.meta).toEqual({ nextToken: expect.any(String) })
      expect(pages.at(-1)?.meta).toEqual({})
      expect(pages.flatMap((p) => p.bots)).toEqual(expectedOrder(sortField, sortDirection).map(botBody))
    })

    it('ends on a full last page without a trailing empty page', async () => {
      seedBots()
      const pages = await walk({ pageSize: '23', sortField, sortDirection })
      expect(pages.map((p) => p.bots.length)).toEqual([23, 23])
      expect(pages[1]?.meta).toEqual({})
      expect(pages.flatMap((p) => p.bots.map((b) => b.id))).toEqual(
        expectedOrder(sortField, sortDirection).map((r) => r.id),
      )
    })
  })

  it('lists every bot once when no page size or sort is given', async () => {
    seedBots()
    const pages = await walk({})
    const ids = pages.flatMap((p) => p.bots.map((b) => b.id))
    expect(ids).toHaveLength(46)
    expect(new Set(ids)).toEqual(new Set(workspaceRows().map((r) => r.id)))
  })

  it('accepts the page size bounds 1 and 100', async () => {
    seedBots()
    const one = await t.admin('GET', '/bots?pageSize=1&sortField=createdAt&sortDirection=asc')
    expect(one.status).toBe(200)
    expect(one.body).toEqual({
      bots: [botBody(expectedOrder('createdAt', 'asc')[0] as BotRow)],
      meta: { nextToken: expect.any(String) },
    })
    const hundred = await t.admin('GET', '/bots?pageSize=100&sortField=createdAt&sortDirection=asc')
    expect(hundred.status).toBe(200)
    expect(hundred.body).toEqual({ bots: expectedOrder('createdAt', 'asc').map(botBody), meta: {} })
  })

  describe('workspaces', () => {
    beforeEach(async () => {
      await createTenant(t.store, {
        workspaceId: OTHER_WORKSPACE_ID,
        adminToken: OTHER_ADMIN_TOKEN,
        webhookId: 'other-webhook',
        encryptionKey: 'other-encryption-key',
        botName: 'Other bot',
        botHandler: 'echo',
      })
      seedBots(OTHER_WORKSPACE_ID, 7, 'other')
    })

    it('never lists the bots of another workspace', async () => {
      seedBots()
      const pages = await walk({ pageSize: '10' })
      const ids = pages.flatMap((p) => p.bots.map((b) => b.id))
      expect(ids).toHaveLength(46)
      expect(new Set(ids)).toEqual(new Set(workspaceRows().map((r) => r.id)))
      expect(ids.filter((id) => id.startsWith('other'))).toEqual([])
    })

    it("lists only the other workspace's bots with that workspace's token", async () => {
      const pages = await walk(
        { pageSize: '3', sortField: 'updatedAt', sortDirection: 'desc' },
        { authorization: `Bearer ${OTHER_ADMIN_TOKEN}`, 'x-workspace-id': OTHER_WORKSPACE_ID },
      )
      expect(pages.flatMap((p) => p.bots)).toEqual(expectedOrder('updatedAt', 'desc', OTHER_WORKSPACE_ID).map(botBody))
      expect(pages.flatMap((p) => p.bots).map((b) => b.name)).toContain('Other bot')
    })

    it("refuses a token with another workspace's x-workspace-id (401)", async () => {
      const res = await getWith('/bots', { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': OTHER_WORKSPACE_ID })
      expect(res.status).toBe(401)
      expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
      const other = await getWith('/bots', { authorization: `Bearer ${OTHER_ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID })
      expect(other.status).toBe(401)
      expect(other.body).toEqual(errorBody(401, 'Unauthorized'))
    })
  })

  describe('authentication', () => {
    it.each([
      ['no Authorization header', { 'x-workspace-id': WORKSPACE_ID }],
      ['a wrong token', { authorization: 'Bearer bp_pat_wrong', 'x-workspace-id': WORKSPACE_ID }],
      ['the token without the Bearer scheme', { authorization: ADMIN_TOKEN, 'x-workspace-id': WORKSPACE_ID }],
      ['no x-workspace-id header', { authorization: `Bearer ${ADMIN_TOKEN}` }],
      ['an unknown x-workspace-id', { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': 'wkspace_nope' }],
    ])('answers 401 Unauthorized for %s', async (_case, headers) => {
      const res = await getWith('/bots', headers)
      expect(res.status).toBe(401)
      expect(res.body).toEqual(errorBody(401, 'Unauthorized'))
      expect(res.headers.get('x-request-id')).toBe(res.body.id)
    })
  })

  describe('query parameters', () => {
    it.each([
      ['pageSize=0'],
      ['pageSize=101'],
      ['pageSize=abc'],
      ['pageSize=1.5'],
      ['pageSize=-1'],
      ['sortField=name'],
      ['sortDirection=up'],
      ['nextToken=not-a-token'],
    ])('answers 400 InvalidPayload for %s', async (query) => {
      const res = await t.admin('GET', `/bots?${query}`)
      expect(res.status).toBe(400)
      expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    })

    it('refuses a tampered nextToken (400)', async () => {
      seedBots()
      const first = await t.admin('GET', '/bots?pageSize=5')
      const token: string = first.body.meta.nextToken
      expect(token).toEqual(expect.any(String))
      for (const tampered of [`AAAA${token.slice(4)}`, token.slice(0, -3), [...token].reverse().join('')]) {
        const res = await t.admin('GET', `/bots?pageSize=5&nextToken=${encodeURIComponent(tampered)}`)
        expect(res.status, tampered).toBe(400)
        expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
      }
    })

    it.each([
      ['createdAt', 'asc', 'updatedAt', 'asc'],
      ['createdAt', 'asc', 'createdAt', 'desc'],
      ['updatedAt', 'desc', 'createdAt', 'desc'],
      ['updatedAt', 'desc', 'updatedAt', 'asc'],
    ])('refuses a nextToken of %s %s reused with %s %s (400)', async (field, direction, otherField, otherDirection) => {
      seedBots()
      const first = await t.admin('GET', `/bots?pageSize=5&sortField=${field}&sortDirection=${direction}`)
      const token: string = first.body.meta.nextToken
      expect(token).toEqual(expect.any(String))
      const params = new URLSearchParams({ pageSize: '5', sortField: otherField, sortDirection: otherDirection, nextToken: token })
      const res = await t.admin('GET', `/bots?${params}`)
      expect(res.status).toBe(400)
      expect(res.body).toEqual(errorBody(400, 'InvalidPayload'))
    })
  })
})

describe('unknown administration paths', () => {
  it('answers 404 ResourceNotFound with the error body', async () => {
    const res = await t.admin('GET', '/no-such-thing')
    expect(res.status).toBe(404)
    expect(res.body).toEqual(errorBody(404, 'ResourceNotFound'))
    expect(res.headers.get('x-request-id')).toBe(res.body.id)
  })

  it('answers 404 for an unknown path under /bots', async () => {
    const res = await t.admin('GET', '/bots/some-bot/no-such-thing')
    expect(res.status).toBe(404)
    expect(res.body).toEqual(errorBody(404, 'ResourceNotFound'))
  })

  it('answers 405 MethodNotFound for a method /bots does not take', async () => {
    const res = await t.admin('DELETE', '/bots')
    expect(res.status).toBe(405)
    expect(res.body).toEqual(errorBody(405, 'MethodNotFound'))
  })
})
