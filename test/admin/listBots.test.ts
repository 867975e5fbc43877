import { Client, UnauthorizedError } from '@botpress/client'
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import type { BotRow } from '../../src/db/schema.ts'
import { tables } from '../helpers/tables.ts'

const { bots } = tables
import { ADMIN_TOKEN, BASE, errorBody, iso, type JsonResponse, OTHER, type TestApp, toJson, useTestApp, WORKSPACE_ID } from '../helpers/app.ts'
import { requestError } from '../helpers/graphql.ts'
import { serve } from '../helpers/listening.ts'
import { expectSpoiledTokensRefused, foreignToken } from '../helpers/paging.ts'
import { expectRefusal, type Transport, TRANSPORTS } from '../helpers/transports.ts'

// listBots — GET /v1/admin/bots and the admin schema's `bots` connection, for the bearer of an
// admin token and its x-workspace-id.

const BOTS = /* GraphQL */ `
  query ($first: Int, $after: String, $last: Int, $before: String, $sortField: BotSortField, $sortDirection: SortDirection) {
    bots(first: $first, after: $after, last: $last, before: $before, sortField: $sortField, sortDirection: $sortDirection) {
      edges { cursor node { id botId name createdAt updatedAt deployedAt tags } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`

const otherHeaders = { authorization: `Bearer ${OTHER.adminToken}`, 'x-workspace-id': OTHER.workspaceId }

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

type Sort = { sortField?: 'createdAt' | 'updatedAt'; sortDirection?: 'asc' | 'desc' }
const SORTS = [
  ['createdAt', 'asc'],
  ['createdAt', 'desc'],
  ['updatedAt', 'asc'],
  ['updatedAt', 'desc'],
] as const

describe('listBots', () => {
  const t = useTestApp({ handlers: {} })

  /**
   * `count` bots whose ids, createdAt and updatedAt orders all differ: createdAt comes in groups of 3
   * and updatedAt in pairs, so ties must be broken by id; every 4th bot was never deployed.
   */
  async function seedBots(workspaceId = WORKSPACE_ID, count = 45, prefix = 'bot') {
    const rows = Array.from(
      { length: count },
      (_, i): BotRow => ({
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
        protocol: 'webhook',
      }),
    )
    await t.db.insert(bots).values(rows)
  }

  const workspaceRows = async (workspaceId = WORKSPACE_ID) => t.db.select().from(bots).where(eq(bots.workspaceId, workspaceId))

  /** The workspace's bots in the order asked: by the field, then by id; desc is asc reversed. */
  async function expectedOrder({ sortField = 'createdAt', sortDirection = 'asc' }: Sort, workspaceId = WORKSPACE_ID) {
    const sorted = (await workspaceRows(workspaceId)).sort((a, b) =>
      a[sortField] !== b[sortField] ? (a[sortField] < b[sortField] ? -1 : 1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    )
    return (sortDirection === 'asc' ? sorted : sorted.reverse()).map(botBody)
  }

  /** One page of listBots over a transport, in the REST shape, with the token of the next page. */
  const page: Record<
    Transport,
    (query: Sort & { size?: number; token?: string }, headers?: Record<string, string>) => Promise<{ res: JsonResponse; bots: unknown[]; next?: string }>
  > = {
    REST: async ({ size, token, ...sort }, headers) => {
      const params = new URLSearchParams({
        ...sort,
        ...(size === undefined ? {} : { pageSize: String(size) }),
        ...(token === undefined ? {} : { nextToken: token }),
      })
      const res = await t.admin('GET', `/bots?${params}`, { headers })
      return { res, bots: res.body.bots, next: res.body.meta?.nextToken }
    },
    GraphQL: async ({ size, token, ...sort }, headers) => {
      const res = await t.adminGraphql(BOTS, { first: size, after: token, ...sort }, headers)
      const connection = res.body.data?.bots
      const nodes = connection?.edges.map(({ node: { id: _, botId, deployedAt, ...fields } }: { node: any }) => ({
        id: botId,
        ...fields,
        ...(deployedAt === null ? {} : { deployedAt }),
      }))
      return { res, bots: nodes, next: connection?.pageInfo.hasNextPage ? connection.pageInfo.endCursor : undefined }
    },
  }

  /** Walks listBots page by page until there is no next page; returns the size of each page and every bot. */
  async function walk(transport: Transport, query: Sort & { size?: number }, headers?: Record<string, string>) {
    const sizes: number[] = []
    const all: unknown[] = []
    let token: string | undefined
    do {
      const { res, bots: found, next } = await page[transport]({ ...query, token }, headers)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      sizes.push(found.length)
      all.push(...found)
      token = next
      if (sizes.length > 60) throw new Error('listBots never stops paging')
    } while (token !== undefined)
    return { sizes, bots: all }
  }

  describe.each(TRANSPORTS)('%s', (transport) => {
    it('lists the bootstrapped Echo bot, alone on its page', async () => {
      const [row] = await workspaceRows()
      expect(row?.createdAt).toEqual(iso)
      const { res, bots: found, next } = await page[transport]({})
      expect(res.status).toBe(200)
      expect(found).toEqual([
        { id: t.tenant?.botId, createdAt: row?.createdAt, updatedAt: row?.createdAt, name: 'Echo bot', deployedAt: row?.createdAt, tags: {} },
      ])
      expect(next).toBeUndefined()
    })

    it.each(SORTS)('lists every bot once, by %s %s then id, page by page, with no trailing empty page', async (sortField, sortDirection) => {
      await seedBots()
      const expected = await expectedOrder({ sortField, sortDirection })
      expect(await walk(transport, { size: 10, sortField, sortDirection })).toEqual({ sizes: [10, 10, 10, 10, 6], bots: expected })
      expect(await walk(transport, { size: 23, sortField, sortDirection })).toEqual({ sizes: [23, 23], bots: expected })
    })

    it('sorts by createdAt ascending when no sort is given, and answers from 1 to 100 bots a page', async () => {
      await seedBots()
      const expected = await expectedOrder({})
      expect((await walk(transport, {})).bots).toEqual(expected)
      const one = await page[transport]({ size: 1 })
      expect({ bots: one.bots, next: one.next }).toEqual({ bots: expected.slice(0, 1), next: expect.any(String) })
      const hundred = await page[transport]({ size: 100 })
      expect({ bots: hundred.bots, next: hundred.next }).toEqual({ bots: expected, next: undefined })
    })

    it("lists only the caller's workspace: never another's bots, and the other's token its own", async () => {
      await seedBots()
      await t.otherTenant()
      await seedBots(OTHER.workspaceId, 7, 'other')
      expect((await walk(transport, { size: 10 })).bots).toEqual(await expectedOrder({}))
      const theirs = await walk(transport, { size: 3, sortField: 'updatedAt', sortDirection: 'desc' }, otherHeaders)
      expect(theirs.bots).toEqual(await expectedOrder({ sortField: 'updatedAt', sortDirection: 'desc' }, OTHER.workspaceId))
      expect(theirs.bots.map((bot) => (bot as { name: string }).name)).toContain('Other bot')
    })

    it('refuses a spoiled page token with 400 InvalidPayload', async () => {
      await seedBots()
      const { next } = await page[transport]({ size: 5 })
      await expectSpoiledTokensRefused(
        next as string,
        foreignToken('conversations'),
        async (token) => (await page[transport]({ size: 5, token })).res,
        transport,
        ['bots'],
      )
    })

    it.each([
      ['createdAt', 'asc', 'updatedAt', 'asc'],
      ['createdAt', 'asc', 'createdAt', 'desc'],
      ['updatedAt', 'desc', 'createdAt', 'desc'],
      ['updatedAt', 'desc', 'updatedAt', 'asc'],
    ] as const)('refuses a page token of %s %s reused with %s %s with 400 InvalidPayload', async (sortField, sortDirection, otherField, otherDirection) => {
      await seedBots()
      const { next } = await page[transport]({ size: 5, sortField, sortDirection })
      const { res } = await page[transport]({ size: 5, sortField: otherField, sortDirection: otherDirection, token: next })
      expectRefusal(res, transport, 400, 'InvalidPayload', ['bots'])
    })

    it.each([
      ['no Authorization header', { 'x-workspace-id': WORKSPACE_ID }],
      ['a wrong token', { authorization: 'Bearer bp_pat_wrong', 'x-workspace-id': WORKSPACE_ID }],
      ['the token without the Bearer scheme', { authorization: ADMIN_TOKEN, 'x-workspace-id': WORKSPACE_ID }],
      ['no x-workspace-id header', { authorization: `Bearer ${ADMIN_TOKEN}` }],
      ['an unknown x-workspace-id', { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': 'wkspace_nope' }],
      ['the token with the id of another workspace', { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': OTHER.workspaceId }],
      ["another workspace's token with this workspace's id", { authorization: `Bearer ${OTHER.adminToken}`, 'x-workspace-id': WORKSPACE_ID }],
      ['a chat user key instead of a token', { 'x-user-key': 'a-user-key', 'x-workspace-id': WORKSPACE_ID }],
    ])('answers 401 Unauthorized for %s', async (_case, headers) => {
      await t.otherTenant()
      const res = await send(t, transport, headers)
      if (transport === 'REST') {
        expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: errorBody(401, 'Unauthorized') })
        expect(res.body.id).toBe(`err_${res.headers.get('x-request-id')}`)
      } else {
        expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: requestError('Unauthorized', 401) })
      }
    })
  })

  describe('REST GET /v1/admin/bots', () => {
    it('leaves deployedAt out for a bot that was never deployed', async () => {
      await seedBots()
      const res = await t.admin('GET', '/bots?pageSize=100')
      expect(res.body.bots.filter((bot: { name: string }) => bot.name === 'Bot 0')).toEqual([
        { id: 'bot_44', createdAt: expect.any(String), updatedAt: expect.any(String), name: 'Bot 0', tags: { team: 't0' } },
      ])
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    })

    it.each([
      ['pageSize=0', 'pageSize: expected a number at least 1, got the number 0'],
      ['pageSize=101', 'pageSize: expected a number at most 100, got the number 101'],
      ['pageSize=abc', 'pageSize: expected a number, got the string "abc"'],
      ['pageSize=1.5', 'pageSize: expected an integer, got the string "1.5"'],
      ['pageSize=-1', 'pageSize: expected a number at least 1, got the number -1'],
      ['sortField=name', 'sortField: expected one of createdAt, updatedAt, got the string "name"'],
      ['sortDirection=up', 'sortDirection: expected one of asc, desc, got the string "up"'],
      ['nextToken=not-a-token', 'nextToken is not a token this list issued'],
    ])('answers 400 InvalidPayload for %s, saying why', async (query, message) => {
      expectRefusal(await t.admin('GET', `/bots?${query}`), 'REST', 400, 'InvalidPayload', null, message)
    })
  })

  describe('GraphQL bots', () => {
    it('reads every field of a bot, with deployedAt null when it never was deployed, and a cursor for each', async () => {
      await seedBots()
      const res = await t.adminGraphql(BOTS, { first: 1, sortField: 'updatedAt', sortDirection: 'desc' })
      const first = (await expectedOrder({ sortField: 'updatedAt', sortDirection: 'desc' }))[0] as ReturnType<typeof botBody>
      expect(res.body.data.bots.edges).toEqual([
        {
          cursor: expect.any(String),
          node: {
            id: expect.any(String),
            botId: first.id,
            name: first.name,
            createdAt: first.createdAt,
            updatedAt: first.updatedAt,
            deployedAt: first.deployedAt ?? null,
            tags: first.tags,
          },
        },
      ])
      const never = (await t.adminGraphql(BOTS, { first: 100 })).body.data.bots.edges.find((e: { node: { name: string } }) => e.node.name === 'Bot 0')
      expect(never.node).toEqual(expect.objectContaining({ botId: 'bot_44', deployedAt: null, tags: { team: 't0' } }))
    })

    it('pages backwards with last and before', async () => {
      await seedBots()
      const ids = (await expectedOrder({})).map((bot) => bot.id)
      const tail = (await t.adminGraphql(BOTS, { last: 2 })).body.data.bots
      expect(tail.edges.map((e: { node: { botId: string } }) => e.node.botId)).toEqual(ids.slice(-2))
      expect(tail.pageInfo).toEqual(expect.objectContaining({ hasPreviousPage: true, hasNextPage: false }))
      const previous = (await t.adminGraphql(BOTS, { last: 2, before: tail.pageInfo.startCursor })).body.data.bots
      expect(previous.edges.map((e: { node: { botId: string } }) => e.node.botId)).toEqual(ids.slice(-4, -2))
      expect(previous.pageInfo.hasPreviousPage).toBe(true)
    })

    it('refuses an unknown sortField before execution', async () => {
      const res = await t.adminGraphql(BOTS, { sortField: 'name' })
      expect(res.body.data).toBeUndefined()
      expect(res.body.errors).toEqual([expect.objectContaining({ message: expect.stringContaining('BotSortField') })])
    })
  })

  describe('@botpress/client', () => {
    it('listBots returns the bootstrapped bot, list.bots collects every bot, and a wrong token is an UnauthorizedError', async () => {
      const served = await serve(t)
      try {
        const client = (token = ADMIN_TOKEN) => new Client({ apiUrl: served.baseUrl, token, workspaceId: WORKSPACE_ID })
        expect(await client().listBots({})).toEqual({
          bots: [{ id: t.tenant?.botId, name: 'Echo bot', createdAt: iso, updatedAt: iso, deployedAt: iso, tags: {} }],
          meta: {},
        })
        await seedBots()
        expect((await client().list.bots({}).collect()).map((bot) => bot.id)).toEqual((await expectedOrder({})).map((bot) => bot.id))
        const error = await client('bp_pat_wrong')
          .listBots({})
          .catch((e: unknown) => e)
        expect(error).toBeInstanceOf(UnauthorizedError)
        expect(error).toMatchObject({ code: 401, type: 'Unauthorized' })
      } finally {
        await served.close()
      }
    })
  })
})

/** listBots with exactly `headers` (t.admin and t.adminGraphql otherwise send the valid credentials). */
async function send(t: TestApp, transport: Transport, headers: Record<string, string>) {
  if (transport === 'GraphQL') return t.adminGraphql('{ bots { edges { node { name } } } }', {}, headers)
  return toJson(await t.send('GET', `${BASE}/v1/admin/bots`, { headers }))
}
