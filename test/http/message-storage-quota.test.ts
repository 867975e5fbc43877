import { describe, expect, it } from 'vitest'
import { errorBody } from '../helpers/app.ts'
import { type Bounded, useBounded } from '../helpers/bounded.ts'

// What a user writes is kept: their messages (payload and metadata) and custom events (payload), as
// stored JSON, may take at most MESSAGE_STORAGE_PER_USER_BYTES (50 MiB by default). A write that
// would pass it is refused with 413 PayloadTooLarge (waiting does not help, deleting does), writing
// nothing; another user is not counted; deleting frees the bytes, whichever way the rows go.

const quota = 1_000

/** A text payload of exactly `size` bytes as JSON. */
const textOf = (size: number) => ({ type: 'text', text: 'a'.repeat(size - JSON.stringify({ type: 'text', text: '' }).length) })

const request = (b: Bounded, method: string, path: string, key: string, body?: unknown) =>
  fetch(`${b.apiUrl}${path}`, {
    method,
    headers: { 'x-user-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

const postMessage = (b: Bounded, key: string, size: number, conversationId = 'c1') =>
  request(b, 'POST', '/messages', key, { conversationId, payload: textOf(size) })

/** The bytes user_storage holds for the user (what the quota reads). */
const storedBytes = async (b: Bounded, userId: string) =>
  Number((await b.t.query<{ bytes: number }>('select bytes from user_storage where user_id = ?', userId))[0]?.bytes ?? 0)

const messagesOf = async (b: Bounded, userId: string) =>
  Number((await b.t.query<{ n: number }>('select count(*) as n from messages where user_id = ?', userId))[0]?.n)

const refusal = (used: number, adding: number) => ({
  ...errorBody(413, 'PayloadTooLarge'),
  message: `the user's messages and events would take ${used + adding} bytes, over their storage quota of ${quota} bytes (MESSAGE_STORAGE_PER_USER_BYTES); ${used} bytes are in use`,
})

async function aliceAndBob(b: Bounded) {
  const alice = await b.t.user('alice')
  const bob = await b.t.user('bob')
  await b.t.conversation(alice.key, 'c1')
  await b.t.conversation(bob.key, 'b1')
  return { alice, bob }
}

describe('the message storage quota (MESSAGE_STORAGE_PER_USER_BYTES) on createMessage over REST', () => {
  const b = useBounded({ messageStoragePerUser: quota }, { handlers: {} })

  it('takes messages up to the quota, refuses the one that would pass it with 413 PayloadTooLarge, and leaves another user unaffected', async () => {
    const { alice, bob } = await aliceAndBob(b.current)
    expect((await postMessage(b.current, alice.key, 600)).status).toBe(200)
    expect((await postMessage(b.current, alice.key, 400)).status).toBe(200)
    expect(await storedBytes(b.current, 'alice')).toBe(1_000)

    const refused = await postMessage(b.current, alice.key, 26)
    expect(refused.status).toBe(413)
    expect(await refused.json()).toEqual(refusal(1_000, 26))
    expect(await messagesOf(b.current, 'alice')).toBe(2)
    expect(await storedBytes(b.current, 'alice')).toBe(1_000)

    expect((await postMessage(b.current, bob.key, 1_000, 'b1')).status).toBe(200)
  })
})

describe('the message storage quota over GraphQL, and on custom events', () => {
  const b = useBounded({ messageStoragePerUser: quota }, { handlers: {} })

  it('refuses createMessage and createEvent past the quota with a PayloadTooLarge error, counting events with messages', async () => {
    const { alice } = await aliceAndBob(b.current)
    const event = await request(b.current, 'POST', '/events', alice.key, { conversationId: 'c1', payload: { note: 'n'.repeat(889) } })
    expect(event.status).toBe(200)
    expect(await storedBytes(b.current, 'alice')).toBe(900)

    const refusedEvent = await request(b.current, 'POST', '/events', alice.key, { conversationId: 'c1', payload: { note: 'n'.repeat(90) } })
    expect(refusedEvent.status).toBe(413)
    expect(await refusedEvent.json()).toEqual(refusal(900, 101))

    const graphql = await request(b.current, 'POST', '/graphql', alice.key, {
      query: 'mutation ($text: String!) { createMessage(input: { conversationId: "c1", payload: { text: { text: $text } } }) { message { messageId } } }',
      variables: { text: 'a'.repeat(100) },
    })
    expect((await graphql.json()).errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/over their storage quota of 1000 bytes/),
        extensions: expect.objectContaining({ type: 'PayloadTooLarge', status: 413 }),
      }),
    ])
    expect(await messagesOf(b.current, 'alice')).toBe(0)
  })
})

describe('the message storage quota on updateMessage', () => {
  const b = useBounded({ messageStoragePerUser: quota }, { handlers: {} })

  it('counts what an update adds, and what it takes away', async () => {
    const { alice } = await aliceAndBob(b.current)
    const posted = await (await postMessage(b.current, alice.key, 500)).json()
    const update = (size: number) => request(b.current, 'PUT', `/messages/${posted.message.id}`, alice.key, { payload: textOf(size) })
    const refused = await update(1_001)
    expect(refused.status).toBe(413)
    expect(await refused.json()).toEqual(refusal(500, 501))
    expect((await update(1_000)).status).toBe(200)
    expect(await storedBytes(b.current, 'alice')).toBe(1_000)
    expect((await update(100)).status).toBe(200)
    expect(await storedBytes(b.current, 'alice')).toBe(100)
  })
})

describe('the message storage quota freed by deletion', () => {
  const b = useBounded({ messageStoragePerUser: quota }, { handlers: {} })

  it('frees what a deleted message, a deleted conversation (its messages and events of every author) and a deleted user took', async () => {
    const { alice, bob } = await aliceAndBob(b.current)
    const first = await (await postMessage(b.current, alice.key, 600)).json()
    expect((await postMessage(b.current, alice.key, 400)).status).toBe(200)
    expect((await request(b.current, 'DELETE', `/messages/${first.message.id}`, alice.key)).status).toBe(200)
    expect(await storedBytes(b.current, 'alice')).toBe(400)
    expect((await postMessage(b.current, alice.key, 600)).status).toBe(200)

    // Bob writes in alice's conversation: its deletion frees his bytes too.
    expect((await request(b.current, 'POST', '/conversations/c1/participants', alice.key, { userId: 'bob' })).status).toBe(200)
    expect((await postMessage(b.current, bob.key, 300, 'c1')).status).toBe(200)
    expect((await request(b.current, 'POST', '/events', bob.key, { conversationId: 'c1', payload: { n: 1 } })).status).toBe(200)
    expect((await postMessage(b.current, bob.key, 200, 'b1')).status).toBe(200)
    expect(await storedBytes(b.current, 'bob')).toBe(300 + 7 + 200)
    expect((await request(b.current, 'DELETE', '/conversations/c1', alice.key)).status).toBe(200)
    expect(await storedBytes(b.current, 'alice')).toBe(0)
    expect(await storedBytes(b.current, 'bob')).toBe(200)

    expect((await request(b.current, 'DELETE', '/users/me', bob.key)).status).toBe(200)
    expect(await b.current.t.query('select * from user_storage where user_id = ?', 'bob')).toEqual([])
  })
})
