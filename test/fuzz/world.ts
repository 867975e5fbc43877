import { SignJWT } from 'jose'
import { ADMIN_TOKEN, ENCRYPTION_KEY, type TestApp, WEBHOOK_ID, WORKSPACE_ID } from '../helpers/app.ts'

const secret = new TextEncoder().encode(ENCRYPTION_KEY)
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const sign = (claims: Record<string, unknown>, alg = 'HS256', key = secret) => new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(key)

/**
 * The state the fuzzer works against: a user (alice) whose valid key it holds, so that
 * valid-looking requests reach the deep code paths, and a sentinel user (bob) whose key it never
 * holds, who checks after the run that the server still serves ordinary requests.
 */
export async function seedWorld(t: TestApp) {
  const alice = await t.user('alice', { name: 'Alice' })
  const bob = await t.user('bob', { name: 'Bob' })
  await t.conversation(alice.key, 'c1', ['bob'])
  await t.conversation(bob.key, 'c2', ['alice'])

  const content = await t.graphql(
    `mutation ($m: CreateMessageInput!, $e: CreateEventInput!) {
      createMessage(input: $m) { message { id messageId conversation { id } } }
      createEvent(input: $e) { event { id eventId } }
      }`,
    { m: { conversationId: 'c1', payload: { text: { text: 'seed' } } }, e: { conversationId: 'c1', payload: { seed: true } } },
    { key: alice.key },
  )
  const me = await t.graphql('{ me { id } }', {}, { key: alice.key })
  const bots = await t.adminGraphql('{ bots { edges { node { id botId } } } }')
  const { createMessage, createEvent } = content.body.data
  const bot = bots.body.data.bots.edges[0].node
  // The bot's API key, so that runtime requests (/v1/chat/…) reach past authentication.
  const botApiKey = await t.admin<{ value: string }>('POST', '/bots/baks', { body: { botId: bot.botId } })
  if (botApiKey.status !== 200) throw new Error(`createBotApiKey answered ${botApiKey.status}`)
  const botKey = botApiKey.body.value

  const now = Math.floor(Date.now() / 1000)
  const [header, , signature] = alice.key.split('.')
  const forgedKeys = await Promise.all([
    sign({ id: 'alice' }, 'HS256', new TextEncoder().encode('another-secret')),
    sign({ id: 'alice' }, 'HS384'),
    sign({ id: 'alice' }, 'HS512'),
    sign({ id: 'alice', exp: now - 3600 }),
    sign({ id: 'alice', nbf: now + 3600 }),
    sign({ sub: 'alice' }),
    sign({ id: 42 }),
    sign({ id: { $ne: null } }),
    sign({ id: ['alice'] }),
    sign({ id: '' }),
    sign({ id: '../alice' }),
    sign({ id: 'a'.repeat(65) }),
    sign({ id: 'alice\u0000' }),
    sign({ id: 'ghost' }), // valid, for a user that does not exist
    `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ id: 'alice' })}.`,
    `${header}.${b64url({ id: 'bob' })}.${signature}`,
    `${alice.key}.`,
    alice.key.slice(0, -2),
    `Bearer ${alice.key}`,
  ])

  const ids: Record<string, string[]> = {
    id: ['c1', 'c2', createMessage.message.messageId as string, createEvent.event.eventId as string],
    conversationId: ['c1', 'c2'],
    userId: ['alice', 'bob'],
    type: ['conversation', 'user', 'bot'],
    name: ['counter'],
  }

  return {
    webhookId: WEBHOOK_ID,
    adminToken: ADMIN_TOKEN,
    workspaceId: WORKSPACE_ID,
    userKey: alice.key,
    forgedKeys,
    /** The bootstrap bot, and its API key: the runtime API's credentials. */
    botId: bot.botId as string,
    botKey,
    /** Ids of what alice may read and write, by the name of the path parameter that takes them. */
    ids,
    globalIds: {
      chat: [me.body.data.me.id, createMessage.message.conversation.id, createMessage.message.id, createEvent.event.id] as string[],
      admin: [bot.id] as string[],
    },
    sentinel: { key: bob.key, conversationId: 'c2' },
    /**
     * Counts what the run has made since as existing (a fuzzed request may create a conversation of
     * any id, "constructor" say), so that no later property draws its id as one that names nothing.
     */
    learnMade: async () => {
      for (const table of ['conversations', 'users', 'messages', 'events']) {
        for (const { id } of await t.query<{ id: string }>(`select id from ${table}`)) if (!ids.id?.includes(id)) ids.id?.push(id)
      }
    },
    /** Puts back alice and her conversation, should a fuzzed request have deleted them. */
    restore: async () => {
      // A deleted user stays deleted (no API brings one back): the fixture forgets that she was.
      await t.query('delete from deleted_users')
      await t.user('alice', { name: 'Alice' })
      await t.chat('POST', '/conversations/get-or-create', { key: alice.key, body: { id: 'c1' } })
    },
  }
}

export type World = Awaited<ReturnType<typeof seedWorld>>
