import { describe, expect, it } from 'vitest'
import { errorBody, iso, OTHER, useTestApp } from '../helpers/app.ts'
import { fieldError } from '../helpers/graphql.ts'
import { eventually } from '../helpers/wait.ts'

// The administration of a bot's users (admin token): listBotUsers — GET /v1/admin/bots/{id}/users,
// listBotConversations — GET /v1/admin/bots/{id}/conversations (both newest first, paged with
// pageSize and nextToken), exportBotUser — GET /v1/admin/bots/{id}/users/{userId}/export (JSON of
// everything Confab holds about the user), deleteBotUser — DELETE /v1/admin/bots/{id}/users/{userId}
// (test/erasure/deletion.test.ts checks what it deletes). GraphQL: botUsers, botConversations,
// botUserExport, deleteBotUser.

describe('a bot’s users, as its administrator sees them', () => {
  const t = useTestApp()
  const botId = () => t.tenant!.botId

  /** Every page of a list, following nextToken. */
  async function walk(path: string, field: string, pageSize: number) {
    const pages: { id: string }[][] = []
    let nextToken: string | undefined
    do {
      const query = new URLSearchParams({ pageSize: String(pageSize), ...(nextToken && { nextToken }) })
      const res = await t.admin('GET', `${path}?${query}`)
      expect(res.status).toBe(200)
      pages.push(res.body[field])
      nextToken = res.body.meta.nextToken
    } while (nextToken)
    return pages.map((page) => page.map((item) => item.id))
  }

  describe('listBotUsers — GET /v1/admin/bots/{id}/users', () => {
    it('lists the users newest first, the bot’s own user aside, page by page', async () => {
      for (const id of ['u1', 'u2', 'u3']) await t.user(id, { name: `User ${id}` })
      const first = await t.admin('GET', `/bots/${botId()}/users?pageSize=2`)
      expect(first.status).toBe(200)
      expect(first.body.users[0]).toEqual({ id: 'u3', name: 'User u3', createdAt: iso, updatedAt: iso })
      expect(await walk(`/bots/${botId()}/users`, 'users', 2)).toEqual([['u3', 'u2'], ['u1']])
    })

    it('GraphQL botUsers pages with first/after', async () => {
      for (const id of ['u1', 'u2', 'u3']) await t.user(id)
      const query =
        'query ($id: String!, $after: String) { botUsers(id: $id, first: 2, after: $after) { edges { node { userId } } pageInfo { hasNextPage endCursor } } }'
      const first = (await t.adminGraphql(query, { id: botId() })).body.data.botUsers
      expect(first.edges.map((e: any) => e.node.userId)).toEqual(['u3', 'u2'])
      expect(first.pageInfo.hasNextPage).toBe(true)
      const second = (await t.adminGraphql(query, { id: botId(), after: first.pageInfo.endCursor })).body.data.botUsers
      expect(second.edges.map((e: any) => e.node.userId)).toEqual(['u1'])
      expect(second.pageInfo.hasNextPage).toBe(false)
    })

    it('refuses a nextToken of another list (400), a bot of another workspace (404) and no admin token (401)', async () => {
      await t.conversation((await t.user('u3')).key, 'c1')
      await t.conversation((await t.user('u4')).key, 'c2')
      const token = (await t.admin('GET', `/bots/${botId()}/conversations?pageSize=1`)).body.meta.nextToken
      const replayed = await t.admin('GET', `/bots/${botId()}/users?nextToken=${token}`)
      expect({ status: replayed.status, body: replayed.body }).toEqual({ status: 400, body: errorBody(400, 'InvalidPayload') })
      await t.otherTenant()
      const [other] = await t.query<{ id: string }>('select id from bots where workspace_id = ?', OTHER.workspaceId)
      expect(other?.id).toEqual(expect.any(String))
      const foreign = await t.admin('GET', `/bots/${other?.id}/users`)
      expect({ status: foreign.status, body: foreign.body }).toEqual({ status: 404, body: errorBody(404, 'ResourceNotFound') })
      const anonymous = await t.admin('GET', `/bots/${botId()}/users`, { headers: { authorization: '' } })
      expect(anonymous.status).toBe(401)
    })
  })

  describe('listBotConversations — GET /v1/admin/bots/{id}/conversations', () => {
    it('lists every conversation of the bot newest first, whoever is in it, page by page', async () => {
      const alice = await t.user('alice')
      const bob = await t.user('bob')
      await t.conversation(alice.key, 'c1')
      await t.conversation(bob.key, 'c2')
      await t.conversation(alice.key, 'c3')
      const first = await t.admin('GET', `/bots/${botId()}/conversations?pageSize=2`)
      expect(first.body.conversations[0]).toEqual({ id: 'c3', ownerId: 'alice', handledBy: 'bot', createdAt: iso, updatedAt: iso })
      expect(await walk(`/bots/${botId()}/conversations`, 'conversations', 2)).toEqual([['c3', 'c2'], ['c1']])
      const graphql = await t.adminGraphql('query ($id: String!) { botConversations(id: $id) { edges { node { conversationId ownerId } } } }', { id: botId() })
      expect(graphql.body.data.botConversations.edges.map((e: any) => e.node)).toEqual([
        { conversationId: 'c3', ownerId: 'alice' },
        { conversationId: 'c2', ownerId: 'bob' },
        { conversationId: 'c1', ownerId: 'alice' },
      ])
    })
  })

  describe('exportBotUser — GET /v1/admin/bots/{id}/users/{userId}/export', () => {
    it('answers everything Confab holds about the user as JSON', async () => {
      const alice = await t.user('alice', { name: 'Alice', profile: '{"plan":"pro"}' })
      const bob = await t.user('bob')
      await t.conversation(alice.key, 'c1', ['bob'])
      await t.conversation(bob.key, 'c2', ['alice'])
      await t.conversation(bob.key, 'not-hers')
      const said = await t.message(alice.key, 'c1', { type: 'text', text: 'hello' })
      const event = await t.event(alice.key, 'c2', { note: 'clicked' })
      await t.message(bob.key, 'not-hers', { type: 'text', text: 'not about alice' })
      const file = (await t.chat('POST', '/files', { key: alice.key, body: { key: 'a.png', size: 10, tags: { conversation: 'c1' } } })).body.file
      // The echo bot's answers are part of the conversations she is in.
      await eventually(async () => expect(await t.count('select count(*) as n from bot_deliveries')).toBe(0))

      const res = await t.admin('GET', `/bots/${botId()}/users/alice/export`)
      expect(res.status).toBe(200)
      expect(res.body).toEqual({
        exportedAt: iso,
        botId: botId(),
        user: { id: 'alice', name: 'Alice', pictureUrl: null, profile: '{"plan":"pro"}', createdAt: iso, updatedAt: iso },
        conversations: [
          {
            id: 'c1',
            ownerId: 'alice',
            handledBy: 'bot',
            createdAt: iso,
            updatedAt: iso,
            participantIds: expect.arrayContaining(['alice', 'bob', botId()]),
            messages: [
              { id: said.id, userId: 'alice', payload: { type: 'text', text: 'hello' }, metadata: null, feedback: null, createdAt: said.createdAt },
              expect.objectContaining({ userId: botId(), payload: { type: 'text', text: 'hello' } }),
            ],
            events: [],
            // Hers: the notes agents wrote on it (none), never shown to her elsewhere.
            notes: [],
          },
          expect.objectContaining({
            id: 'c2',
            ownerId: 'bob',
            messages: [],
            events: [
              { id: event.id, userId: 'alice', payload: { note: 'clicked' }, createdAt: event.createdAt },
              expect.objectContaining({ userId: botId(), payload: { note: 'clicked' } }),
            ],
          }),
        ],
        files: [{ id: file.id, conversationId: 'c1', key: 'a.png', contentType: 'image/png', size: 10, uploadedAt: null, createdAt: iso }],
        botState: {},
      })
      expect(JSON.stringify(res.body)).not.toContain('not about alice')
      const graphql = await t.adminGraphql('query ($id: String!, $userId: String!) { botUserExport(id: $id, userId: $userId) }', {
        id: botId(),
        userId: 'alice',
      })
      expect(graphql.body.data.botUserExport).toEqual({ ...res.body, exportedAt: iso })
    })

    it('is 404 for a user the bot does not have, and for the bot’s own user', async () => {
      for (const userId of ['nobody', botId()]) {
        const res = await t.admin('GET', `/bots/${botId()}/users/${userId}/export`)
        expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: errorBody(404, 'ResourceNotFound') })
      }
    })
  })

  describe('deleteBotUser — DELETE /v1/admin/bots/{id}/users/{userId}', () => {
    it('answers {} and the user is gone from the list; 404 the second time, and for the bot’s own user', async () => {
      await t.user('alice')
      const res = await t.admin('DELETE', `/bots/${botId()}/users/alice`)
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: {} })
      expect((await t.admin('GET', `/bots/${botId()}/users`)).body.users).toEqual([])
      for (const userId of ['alice', botId()]) {
        const again = await t.admin('DELETE', `/bots/${botId()}/users/${userId}`)
        expect({ status: again.status, body: again.body }).toEqual({ status: 404, body: errorBody(404, 'ResourceNotFound') })
      }
      const graphql = await t.adminGraphql('mutation ($id: String!) { deleteBotUser(input: { id: $id, userId: "alice" }) { userId } }', { id: botId() })
      expect(graphql.body).toEqual(fieldError('ResourceNotFound', 404, ['deleteBotUser']))
    })
  })
})
