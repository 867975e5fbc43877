import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { bots } from '../../src/db/schema.ts'
import { createTenant } from '../../src/domain/tenancy.ts'
import { ADMIN_TOKEN, BASE, createTestApp, WEBHOOK_ID, WORKSPACE_ID, type TestApp } from '../helpers/app.ts'

let t: TestApp
beforeEach(async () => {
  t = createTestApp()
  await t.ready
})
afterEach(() => t.close())

const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

const BOTS = /* GraphQL */ `
  query ($first: Int, $after: String, $last: Int, $before: String, $sortField: BotSortField, $sortDirection: SortDirection) {
    bots(first: $first, after: $after, last: $last, before: $before, sortField: $sortField, sortDirection: $sortDirection) {
      edges { cursor node { id botId name createdAt updatedAt deployedAt tags } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`

const BOT_IDS = /* GraphQL */ `
  query ($first: Int, $after: String, $last: Int, $before: String, $sortField: BotSortField, $sortDirection: SortDirection) {
    bots(first: $first, after: $after, last: $last, before: $before, sortField: $sortField, sortDirection: $sortDirection) {
      edges { node { botId } }
      pageInfo { hasNextPage hasPreviousPage endCursor }
    }
  }
`

const fieldError = (type: string, status: number, path: string[]) => ({
  errors: [expect.objectContaining({ path, extensions: { type, status, requestId: expect.any(String) } })],
  data: null,
})

const ECHO = 'echo'

/**
 * Five bots next to the bootstrapped Echo bot: created long before it and updated long after it, in
 * opposite orders, so that each sort field and direction gives a different order.
 */
function seedBots() {
  t.db
    .insert(bots)
    .values(
      [1, 2, 3, 4, 5].map((i) => ({
        id: `bot-${i}`,
        workspaceId: WORKSPACE_ID,
        name: `Bot ${i}`,
        handler: 'echo',
        tags: (i % 2 === 0 ? { team: `t${i}` } : {}) as Record<string, string>,
        createdAt: `2020-01-0${i}T00:00:00.000Z`,
        updatedAt: `2099-01-0${6 - i}T00:00:00.000Z`,
        deployedAt: i === 2 ? null : `2021-02-0${i}T00:00:00.000Z`,
      })),
    )
    .run()
}

const ids = (body: { data: { bots: { edges: { node: { botId: string } }[] } } }) =>
  body.data.bots.edges.map((e) => (e.node.botId === t.tenant?.botId ? ECHO : e.node.botId))

const otherTenant = () =>
  createTenant(t.store, {
    workspaceId: 'wkspace_other',
    adminToken: 'bp_pat_other_token',
    webhookId: 'other-webhook',
    encryptionKey: 'other-encryption-key',
    botName: 'Other bot',
    botHandler: 'echo',
  })

const otherHeaders = { authorization: 'Bearer bp_pat_other_token', 'x-workspace-id': 'wkspace_other' }

describe('bots', () => {
  it('lists the bootstrapped Echo bot', async () => {
    const res = await t.adminGraphql(BOTS)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      data: {
        bots: {
          edges: [
            {
              cursor: expect.any(String),
              node: {
                id: expect.any(String),
                botId: t.tenant?.botId,
                name: 'Echo bot',
                createdAt: iso,
                updatedAt: iso,
                deployedAt: iso,
                tags: {},
              },
            },
          ],
          pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: expect.any(String), endCursor: expect.any(String) },
        },
      },
    })
  })

  it('reads every field of a bot, with deployedAt null when it never was deployed', async () => {
    seedBots()
    const res = await t.adminGraphql(BOTS, { first: 2 })
    expect(res.body.data.bots.edges.map((e: { node: unknown }) => e.node)).toEqual([
      {
        id: expect.any(String),
        botId: 'bot-1',
        name: 'Bot 1',
        createdAt: '2020-01-01T00:00:00.000Z',
        updatedAt: '2099-01-05T00:00:00.000Z',
        deployedAt: '2021-02-01T00:00:00.000Z',
        tags: {},
      },
      {
        id: expect.any(String),
        botId: 'bot-2',
        name: 'Bot 2',
        createdAt: '2020-01-02T00:00:00.000Z',
        updatedAt: '2099-01-04T00:00:00.000Z',
        deployedAt: null,
        tags: { team: 't2' },
      },
    ])
  })

  it('sorts by createdAt ascending by default', async () => {
    seedBots()
    const res = await t.adminGraphql(BOT_IDS)
    expect(ids(res.body)).toEqual(['bot-1', 'bot-2', 'bot-3', 'bot-4', 'bot-5', ECHO])
  })

  const orders = [
    ['createdAt', 'asc', ['bot-1', 'bot-2', 'bot-3', 'bot-4', 'bot-5', ECHO]],
    ['createdAt', 'desc', [ECHO, 'bot-5', 'bot-4', 'bot-3', 'bot-2', 'bot-1']],
    ['updatedAt', 'asc', [ECHO, 'bot-5', 'bot-4', 'bot-3', 'bot-2', 'bot-1']],
    ['updatedAt', 'desc', ['bot-1', 'bot-2', 'bot-3', 'bot-4', 'bot-5', ECHO]],
  ] as const

  it.each(orders)('sorts by %s %s', async (sortField, sortDirection, expected) => {
    seedBots()
    const res = await t.adminGraphql(BOT_IDS, { sortField, sortDirection })
    expect(ids(res.body)).toEqual(expected)
    expect(res.body.data.bots.pageInfo.hasNextPage).toBe(false)
  })

  it.each(orders)('pages with first/after by %s %s, each bot once, in order', async (sortField, sortDirection, expected) => {
    seedBots()
    const seen: string[] = []
    const hasNext: boolean[] = []
    let after: string | undefined
    for (let page = 0; page < 10; page++) {
      const res = await t.adminGraphql(BOT_IDS, { first: 2, after, sortField, sortDirection })
      expect(res.body.errors).toBeUndefined()
      seen.push(...ids(res.body))
      hasNext.push(res.body.data.bots.pageInfo.hasNextPage)
      if (!res.body.data.bots.pageInfo.hasNextPage) break
      after = res.body.data.bots.pageInfo.endCursor
    }
    expect(hasNext).toEqual([true, true, false])
    expect(seen).toEqual(expected)
  })

  it('pages backwards with last/before', async () => {
    seedBots()
    const tail = await t.adminGraphql(BOTS, { last: 2 })
    expect(ids(tail.body)).toEqual(['bot-5', ECHO])
    expect(tail.body.data.bots.pageInfo).toEqual(
      expect.objectContaining({ hasPreviousPage: true, hasNextPage: false }),
    )
    const before = tail.body.data.bots.pageInfo.startCursor
    const previous = await t.adminGraphql(BOT_IDS, { last: 2, before })
    expect(ids(previous.body)).toEqual(['bot-3', 'bot-4'])
    expect(previous.body.data.bots.pageInfo.hasPreviousPage).toBe(true)
  })

  it('lists only the bots of the caller’s workspace', async () => {
    seedBots()
    await otherTenant()
    const ours = await t.adminGraphql(BOT_IDS)
    expect(ids(ours.body)).toEqual(['bot-1', 'bot-2', 'bot-3', 'bot-4', 'bot-5', ECHO])
    const theirs = await t.adminGraphql(
      '{ bots { edges { node { name } } pageInfo { hasNextPage } } }',
      {},
      otherHeaders,
    )
    expect(theirs.body).toEqual({
      data: { bots: { edges: [{ node: { name: 'Other bot' } }], pageInfo: { hasNextPage: false } } },
    })
  })

  it.each([
    ['first', 0],
    ['first', 101],
    ['last', 0],
    ['last', 101],
  ])('refuses %s: %i as InvalidPayload', async (name, size) => {
    const res = await t.adminGraphql(BOT_IDS, { [name]: size })
    expect(res.status).toBe(200)
    expect(res.body).toEqual(fieldError('InvalidPayload', 400, ['bots']))
  })

  it('accepts first: 100', async () => {
    seedBots()
    const res = await t.adminGraphql(BOT_IDS, { first: 100 })
    expect(ids(res.body)).toHaveLength(6)
  })

  it.each([
    ['garbage', () => 'not-a-cursor'],
    ['a truncated cursor', (cursor: string) => cursor.slice(0, -3)],
    ['a cursor with altered characters', (cursor: string) => `${cursor.slice(0, -4)}AAAA`],
  ])('refuses %s as after with InvalidPayload', async (_name, tamper) => {
    seedBots()
    const page = await t.adminGraphql(BOT_IDS, { first: 2 })
    const res = await t.adminGraphql(BOT_IDS, { first: 2, after: tamper(page.body.data.bots.pageInfo.endCursor) })
    expect(res.body).toEqual(fieldError('InvalidPayload', 400, ['bots']))
  })

  it.each([
    ['createdAt', 'desc'],
    ['updatedAt', 'asc'],
    ['updatedAt', 'desc'],
  ])('refuses a createdAt-asc cursor under sort %s %s as InvalidPayload', async (sortField, sortDirection) => {
    seedBots()
    const page = await t.adminGraphql(BOT_IDS, { first: 2 })
    const after = page.body.data.bots.pageInfo.endCursor
    const res = await t.adminGraphql(BOT_IDS, { first: 2, after, sortField, sortDirection })
    expect(res.body).toEqual(fieldError('InvalidPayload', 400, ['bots']))
  })

  it('refuses an unknown sortField before execution', async () => {
    const res = await t.adminGraphql(BOT_IDS, { sortField: 'name' })
    expect(res.body.data).toBeUndefined()
    expect(res.body.errors).toHaveLength(1)
    expect(res.body.errors[0].path).toBeUndefined()
  })
})

describe('admin node', () => {
  const NODE = /* GraphQL */ `
    query ($id: ID!) { node(id: $id) { __typename id ... on Bot { botId name } } }
  `

  it('fetches a Bot by its global id, alone and through nodes', async () => {
    seedBots()
    const list = await t.adminGraphql('{ bots(first: 2) { edges { node { id } } } }')
    const [first, second] = list.body.data.bots.edges.map((e: { node: { id: string } }) => e.node.id)
    const one = await t.adminGraphql(NODE, { id: second })
    expect(one.body).toEqual({ data: { node: { __typename: 'Bot', id: second, botId: 'bot-2', name: 'Bot 2' } } })
    const many = await t.adminGraphql('query ($ids: [ID!]!) { nodes(ids: $ids) { id ... on Bot { botId } } }', {
      ids: [second, first],
    })
    expect(many.body).toEqual({
      data: {
        nodes: [
          { id: second, botId: 'bot-2' },
          { id: first, botId: 'bot-1' },
        ],
      },
    })
  })

  it('answers null for a bot of another workspace', async () => {
    await otherTenant()
    const theirs = await t.adminGraphql('{ bots { edges { node { id } } } }', {}, otherHeaders)
    const id = theirs.body.data.bots.edges[0].node.id
    const res = await t.adminGraphql(NODE, { id })
    expect(res.body).toEqual({ data: { node: null } })
  })
})

describe('admin authentication', () => {
  const QUERY = '{ bots { edges { node { name } } } }'

  it.each([
    ['a wrong token', { authorization: 'Bearer bp_pat_wrong', 'x-workspace-id': WORKSPACE_ID }],
    ['no token', { 'x-workspace-id': WORKSPACE_ID }],
    ['a token that is not a bearer token', { authorization: ADMIN_TOKEN, 'x-workspace-id': WORKSPACE_ID }],
    ['no x-workspace-id', { authorization: `Bearer ${ADMIN_TOKEN}` }],
    ['an unknown x-workspace-id', { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': 'wkspace_nope' }],
  ])('answers HTTP 401 Unauthorized for %s', async (_name, headers) => {
    const res = await t.adminGraphql(QUERY, {}, headers as Record<string, string>)
    expect(res.status).toBe(401)
    expect(res.body.data).toBeUndefined()
    expect(res.body.errors[0].extensions).toEqual(expect.objectContaining({ type: 'Unauthorized', status: 401 }))
  })

  it('answers HTTP 401 for a token used with another workspace’s id', async () => {
    await otherTenant()
    for (const headers of [
      { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': 'wkspace_other' },
      { authorization: 'Bearer bp_pat_other_token', 'x-workspace-id': WORKSPACE_ID },
    ]) {
      const res = await t.adminGraphql(QUERY, {}, headers)
      expect(res.status).toBe(401)
      expect(res.body.errors[0].extensions).toEqual(expect.objectContaining({ type: 'Unauthorized', status: 401 }))
    }
  })

  it('does not accept a chat user key', async () => {
    const alice = await t.user('alice')
    const res = await t.adminGraphql(QUERY, {}, { 'x-user-key': alice.key, 'x-workspace-id': WORKSPACE_ID })
    expect(res.status).toBe(401)
  })
})

describe('scope separation', () => {
  const FIELDS = '{ __schema { queryType { fields { name } } mutationType { fields { name } } } }'
  const names = (type: { fields: { name: string }[] } | null) => type?.fields.map((f) => f.name).sort() ?? null

  it('the chat schema has the chat fields and no admin field', async () => {
    const alice = await t.user('alice')
    const res = await t.graphql(FIELDS, {}, { key: alice.key })
    expect(names(res.body.data.__schema.queryType)).toEqual([
      'conversation',
      'conversations',
      'event',
      'me',
      'message',
      'node',
      'nodes',
    ])
    expect(names(res.body.data.__schema.mutationType)).toEqual([
      'addParticipant',
      'createConversation',
      'createEvent',
      'createMessage',
      'createUser',
      'deleteConversation',
      'deleteMessage',
      'deleteUser',
      'getOrCreateConversation',
      'getOrCreateUser',
      'removeParticipant',
      'updateUser',
    ])
  })

  it('the admin schema has the admin fields and no chat field', async () => {
    const res = await t.adminGraphql(FIELDS)
    expect(names(res.body.data.__schema.queryType)).toEqual(['bot', 'botLogs', 'bots', 'node', 'nodes'])
    expect(names(res.body.data.__schema.mutationType)).toEqual([
      'createBot',
      'deleteBot',
      'rotateBotSigningSecrets',
      'updateBot',
    ])
  })

  it('the chat schema rejects bots with a validation error', async () => {
    const alice = await t.user('alice')
    const res = await t.graphql('{ bots { edges { node { name } } } }', {}, { key: alice.key })
    expect(res.body.data).toBeUndefined()
    expect(res.body.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED' }) }),
    ])
  })

  it('the admin schema rejects me with a validation error', async () => {
    const res = await t.adminGraphql('{ me { userId } }')
    expect(res.body.data).toBeUndefined()
    expect(res.body.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED' }) }),
    ])
  })

  it('the admin schema rejects chat mutations', async () => {
    const res = await t.adminGraphql('mutation { createConversation(input: {}) { conversation { id } } }')
    expect(res.body.data ?? null).toBeNull()
    expect(res.body.errors).toHaveLength(1)
    expect(res.body.errors[0].path).toBeUndefined()
  })
})

describe('GraphiQL', () => {
  it.each([
    ['chat', `${BASE}/${WEBHOOK_ID}/graphql`, `/${WEBHOOK_ID}/graphql`],
    ['admin', `${BASE}/v1/admin/graphql`, '/v1/admin/graphql'],
  ])('serves an HTML page on GET for the %s endpoint, posting to that endpoint', async (_name, url, path) => {
    const response = await t.send('GET', url, { headers: { accept: 'text/html' } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    const html = await response.text()
    expect(html).toMatch(/^\s*<!doctype html>/i)
    expect(html).toContain(`"endpoint":"${path}"`)
  })

  it('inlines everything it runs, and its Content-Security-Policy lets it load nothing from elsewhere', async () => {
    const response = await t.send('GET', `${BASE}/v1/admin/graphql`, { headers: { accept: 'text/html' } })
    const html = await response.text()
    expect(html).not.toMatch(/<script[^>]*\ssrc=|<link[^>]*\shref=["']?(https?:)?\/\//i)
    const policy = response.headers.get('content-security-policy')
    expect(policy).toContain("default-src 'none'")
    expect(policy).toContain("connect-src 'self'")
  })
})
