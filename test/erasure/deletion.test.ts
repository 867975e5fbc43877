import { Client, UnauthorizedError } from '@botpress/chat'
import { afterEach, describe, expect, it } from 'vitest'
import type { BotHandler } from '../../src/bots/handler.ts'
import { BASE, errorBody, type TestApp, useTestApp } from '../helpers/app.ts'
import { rowsHolding } from '../helpers/every-row.ts'
import { onPostgres } from '../helpers/engine.ts'
import { fieldError } from '../helpers/graphql.ts'
import { expectApiError, sign, useOfficialClient } from '../helpers/listening.ts'
import { eventually } from '../helpers/wait.ts'

// Deleting a user, a conversation or a bot deletes every row that holds its content, on both
// engines, in one unit: checked over every table of the drizzle schema (a table added later is
// checked too), for the ids and the texts of what was deleted, after checking they were there.

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3])

/**
 * A bot that answers every message "noted" and stores what the user said in its user state and a
 * mark in its conversation state; a message "hold" keeps its delivery under way until released.
 */
function recordingBot() {
  let release: () => void = () => {}
  let holding = false
  const handler: BotHandler = async ({ message }) => {
    const text = message?.payload.type === 'text' ? String(message.payload.text) : 'event'
    if (text === 'hold') {
      holding = true
      await new Promise<void>((resolve) => (release = resolve))
    }
    return { messages: [{ payload: { type: 'text', text: 'noted' } }], state: { user: { said: text }, conversation: { seen: true } } }
  }
  return {
    handler,
    release: () => {
      holding = false
      release()
    },
    holding: () => holding,
  }
}

const bot = recordingBot()
// A test that fails while a delivery is held must not hold its app's closing too.
afterEach(() => bot.release())

/** A file of `key`'s user, for a conversation, with its bytes uploaded. */
async function uploadedFile(t: TestApp, key: string, conversationId: string): Promise<string> {
  const created = await t.chat('POST', '/files', { key, body: { key: 'photo.png', size: png.byteLength, tags: { conversation: conversationId } } })
  expect(created.status).toBe(200)
  const uploaded = await t.app.fetch(new Request(created.body.file.uploadUrl, { method: 'PUT', body: Buffer.from(png) }))
  expect(uploaded.status).toBe(200)
  return created.body.file.id
}

/** Waits until every delivery but those `left` is settled. */
const deliveriesSettled = (t: TestApp, left = 0) => eventually(async () => expect(await t.count('select count(*) as n from bot_deliveries')).toBe(left))

const ownTables = ['bot_deliveries', 'bot_events', 'bot_logs', 'bot_states', 'conversations', 'events', 'files', 'messages', 'participants', 'users']

describe('deleting a user', () => {
  const t = useTestApp({ handlers: { echo: bot.handler } })

  /**
   * alice owns a conversation with bob in it, and talks in bob's: messages, events, files (bytes
   * uploaded), the bot's events, logs and state about her; her last message's delivery is still
   * under way. The needles are what must be gone once she is: her id, her conversation's id, what
   * she said, what bob said in her conversation, the files'.
   */
  async function aliceEverywhere() {
    const alice = await t.user('alice-erased')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'owned-erased', ['bob'])
    await t.conversation(bob.key, 'kept-c', ['alice-erased'])
    await t.message(alice.key, 'owned-erased', { type: 'text', text: 'alice-secret-1' })
    await t.event(alice.key, 'owned-erased', { note: 'alice-secret-2' })
    await t.message(bob.key, 'owned-erased', { type: 'text', text: 'bob-in-owned' })
    // The bot's state about bob is bob's: his next message is what it holds once settled.
    await deliveriesSettled(t)
    const kept = await t.message(bob.key, 'kept-c', { type: 'text', text: 'bob-kept' })
    await t.message(alice.key, 'kept-c', { type: 'text', text: 'alice-secret-3' })
    const files = [await uploadedFile(t, alice.key, 'owned-erased'), await uploadedFile(t, alice.key, 'kept-c'), await uploadedFile(t, bob.key, 'owned-erased')]
    await deliveriesSettled(t)
    // Her delivery under way in bob's conversation: a row no foreign key takes along with her.
    await t.message(alice.key, 'kept-c', { type: 'text', text: 'hold' })
    await eventually(() => expect(bot.holding()).toBe(true))
    const needles = ['alice-erased', 'owned-erased', 'alice-secret', 'bob-in-owned', ...files]
    const before = await rowsHolding(t, needles)
    expect(Object.keys(before)).toEqual(expect.arrayContaining(onPostgres ? [...ownTables, 'file_bytes'] : ownTables))
    return { alice, bob, kept, files, needles }
  }

  const ways = {
    'DELETE /users/me': (key: string) => t.chat('DELETE', '/users/me', { key }),
    'GraphQL deleteUser': (key: string) => t.graphql('mutation { deleteUser { userId } }', {}, { key }),
    'admin DELETE /v1/admin/bots/{id}/users/{userId}': () => t.admin('DELETE', `/bots/${t.tenant!.botId}/users/alice-erased`),
    'admin GraphQL deleteBotUser': () =>
      t.adminGraphql('mutation ($id: String!, $userId: String!) { deleteBotUser(input: { id: $id, userId: $userId }) { userId } }', {
        id: t.tenant!.botId,
        userId: 'alice-erased',
      }),
  }

  describe.each(Object.keys(ways) as (keyof typeof ways)[])('%s', (way) => {
    it('leaves no row of any table holding her id, her conversation, what was said in it or her files', async () => {
      const { alice, bob, kept, files, needles } = await aliceEverywhere()
      const deleted = await ways[way](alice.key)
      expect(deleted.status).toBe(200)
      expect(deleted.body.errors).toBeUndefined()

      expect(await rowsHolding(t, needles)).toEqual({})
      // The delivery that was under way finds itself gone and writes nothing back.
      bot.release()
      await t.app.bots.idle()
      expect(await rowsHolding(t, needles)).toEqual({})
      for (const id of files) await eventually(async () => expect(await t.store.files.read(id)).toBeUndefined())
      // What was bob's alone stays.
      expect(await t.messageIds(bob.key, 'kept-c')).toContain(kept.id)
      expect(await rowsHolding(t, ['bob-kept'])).toMatchObject({ messages: [expect.anything()] })
    })
  })

  describe('a deleted user stays deleted', () => {
    const deleteAlice = async () => {
      const alice = await t.user('alice-erased')
      expect((await t.chat('DELETE', '/users/me', { key: alice.key })).status).toBe(200)
      return alice
    }

    it('its old key is 401 everywhere, getOrCreateUser included, and re-creates nothing', async () => {
      const alice = await deleteAlice()
      for (const [method, path] of [
        ['GET', '/users/me'],
        ['POST', '/users/get-or-create'],
        ['POST', '/conversations'],
      ] as const) {
        const res = await t.chat(method, path, { key: alice.key, body: method === 'POST' ? {} : undefined })
        expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: errorBody(401, 'Unauthorized') })
      }
      const again = await t.chat('POST', '/users/get-or-create', { key: alice.key, body: {} })
      expect(again.body.message).toMatch(/"alice-erased" was deleted/)
      expect(await t.count("select count(*) as n from users where id = 'alice-erased'")).toBe(0)
    })

    it('a new key for its id is refused as the old one is (401)', async () => {
      const alice = await deleteAlice()
      // Signed anew (its own iat and exp), as an operator's backend would for the id.
      const newKey = await sign({ id: 'alice-erased', iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 3600 })
      expect(newKey).not.toBe(alice.key)
      const res = await t.graphql('mutation { getOrCreateUser(input: {}) { user { userId } } }', {}, { key: newKey })
      expect(res.body).toEqual(fieldError('Unauthorized', 401, ['getOrCreateUser']))
      expect(await t.count("select count(*) as n from users where id = 'alice-erased'")).toBe(0)
    })

    it('createUser with its id is 409 AlreadyExists, creating nobody', async () => {
      await deleteAlice()
      const res = await t.chat('POST', '/users', { body: { id: 'alice-erased' } })
      expect({ status: res.status, body: res.body }).toEqual({ status: 409, body: errorBody(409, 'AlreadyExists') })
      expect(await t.count("select count(*) as n from users where id = 'alice-erased'")).toBe(0)
    })

    it('the bot API’s createUser with its id is 409 AlreadyExists too', async () => {
      await deleteAlice()
      const botId = t.tenant!.botId
      const { value } = (await t.admin('POST', '/bots/baks', { body: { botId } })).body
      const created = await t.app.fetch(
        new Request(`${BASE}/v1/chat/users`, {
          method: 'POST',
          headers: { authorization: `Bearer ${value}`, 'x-bot-id': botId, 'content-type': 'application/json' },
          body: JSON.stringify({ tags: { id: 'alice-erased' } }),
        }),
      )
      expect({ status: created.status, body: await created.json() }).toEqual({ status: 409, body: errorBody(409, 'AlreadyExists') })
      expect(await t.count("select count(*) as n from users where id = 'alice-erased'")).toBe(0)
    })

    it('keeps its id as a digest only, and other ids are free', async () => {
      await deleteAlice()
      expect(await rowsHolding(t, ['alice-erased'])).toEqual({})
      // Its tombstone, and the integration's tombstone key (test/erasure/tombstones.test.ts).
      expect(await t.count("select count(*) as n from deleted_users where user_digest not like 'hmac-key:%'")).toBe(1)
      expect((await t.chat('POST', '/users', { body: { id: 'alice-2' } })).status).toBe(200)
    })

    describe('official client', () => {
      const client = useOfficialClient(t)

      it('Client.connect with the old key fails with UnauthorizedError', async () => {
        const alice = await client.connect('alice-erased')
        expect(await alice.deleteUser({})).toEqual({})
        await expectApiError(Client.connect({ apiUrl: client.apiUrl, userKey: alice.user.key }), UnauthorizedError, 401, 'Unauthorized')
      })
    })
  })
})

describe('deleting a conversation', () => {
  const t = useTestApp({ handlers: { echo: bot.handler } })

  it('leaves no row of any table holding its id, what was said in it or its files', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.conversation(alice.key, 'gone-c', ['bob'])
    await t.conversation(alice.key, 'other-c')
    await t.message(alice.key, 'gone-c', { type: 'text', text: 'said-in-gone-1' })
    await t.message(bob.key, 'gone-c', { type: 'text', text: 'said-in-gone-2' })
    await t.event(bob.key, 'gone-c', { note: 'said-in-gone-3' })
    await t.message(alice.key, 'other-c', { type: 'text', text: 'said-elsewhere' })
    const file = await uploadedFile(t, bob.key, 'gone-c')
    await deliveriesSettled(t)
    const needles = ['gone-c', 'said-in-gone', file]
    expect(Object.keys(await rowsHolding(t, needles))).toEqual(
      expect.arrayContaining(['bot_events', 'bot_logs', 'bot_states', 'conversations', 'events', 'files', 'messages', 'participants']),
    )

    const res = await t.chat('DELETE', '/conversations/gone-c', { key: alice.key })
    expect(res.status).toBe(200)

    expect(await rowsHolding(t, needles)).toEqual({})
    await eventually(async () => expect(await t.store.files.read(file)).toBeUndefined())
    // A message is stored once (its bot events refer to it): what was said elsewhere is in its message.
    expect(Object.keys(await rowsHolding(t, ['said-elsewhere']))).toEqual(expect.arrayContaining(['messages']))
    expect((await t.me(bob.key)).id).toBe('bob')
  })
})

describe('deleting a message', () => {
  const t = useTestApp({ handlers: { echo: bot.handler } })

  it('takes the bot events that carried its payload and preview along', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const gone = await t.message(alice.key, 'c1', { type: 'text', text: 'regretted-text' })
    await t.message(alice.key, 'c1', { type: 'text', text: 'kept-text' })
    await deliveriesSettled(t)
    // The message is stored once: its bot events refer to it, and are deleted with it.
    expect(Object.keys(await rowsHolding(t, ['regretted-text']))).toEqual(expect.arrayContaining(['messages']))
    const eventsOf = (id: string) => t.count('select count(*) as n from bot_events where message_id = ?', id)
    expect(await eventsOf(gone.id)).toBe(1)

    expect((await t.chat('DELETE', `/messages/${gone.id}`, { key: alice.key })).status).toBe(200)

    // The bot's own state (what it chose to remember of alice) is the bot's: only what carried the message goes.
    const left = await rowsHolding(t, ['regretted-text'])
    expect(left.messages).toBeUndefined()
    expect(left.bot_events).toBeUndefined()
    expect(await eventsOf(gone.id)).toBe(0)
    expect(Object.keys(await rowsHolding(t, ['kept-text']))).toEqual(expect.arrayContaining(['messages']))
  })
})

describe('deleting a bot', () => {
  const t = useTestApp({ handlers: { echo: bot.handler } })

  it('leaves no row of any table holding its id, its chat integration or anything said to it', async () => {
    const created = await t.admin('POST', '/bots', { body: { name: 'Doomed' } })
    const { id: botId, integrations } = created.body.bot
    const webhookId: string = integrations.chat.webhookId
    const [integration] = await t.query<{ id: string }>('select id from chat_integrations where bot_id = ?', botId)
    const integrationId = integration!.id
    const chat = async (method: string, path: string, options: { key?: string; body?: unknown } = {}) => {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.key && { 'x-user-key': options.key }) }
      const response = await t.app.fetch(
        new Request(`${BASE}/${webhookId}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) }),
      )
      return { status: response.status, body: await response.json() }
    }
    const { key } = (await chat('POST', '/users', { body: { id: 'doomed-user' } })).body
    expect((await chat('POST', '/conversations', { key, body: { id: 'doomed-c' } })).status).toBe(200)
    expect((await chat('POST', '/messages', { key, body: { conversationId: 'doomed-c', payload: { type: 'text', text: 'said-to-doomed' } } })).status).toBe(200)
    expect((await chat('POST', '/events', { key, body: { conversationId: 'doomed-c', payload: { note: 'said-to-doomed' } } })).status).toBe(200)
    await deliveriesSettled(t)
    await t.user('kept-user')
    const needles = [botId, integrationId, webhookId, 'doomed-user', 'doomed-c', 'said-to-doomed']
    expect(Object.keys(await rowsHolding(t, needles))).toEqual(
      expect.arrayContaining(['bots', 'chat_integrations', ...ownTables.filter((n) => n !== 'bot_deliveries' && n !== 'files')]),
    )

    expect((await t.admin('DELETE', `/bots/${botId}`)).status).toBe(200)

    expect(await rowsHolding(t, needles)).toEqual({})
    expect(await t.count("select count(*) as n from users where id = 'kept-user'")).toBe(1)
  })
})
