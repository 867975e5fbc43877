import { describe, expect, it } from 'vitest'
import { defaultLimits } from '../../src/config.ts'
import { errorBody } from '../helpers/app.ts'
import { type Bounded, useBounded } from '../helpers/bounded.ts'

// A user message is capped (MESSAGE_MAX_BYTES; 128 KiB by default, Botpress' message payload size):
// its payload and metadata, as JSON, posted or updated. Over it: 413 PayloadTooLarge naming the
// limit, nothing written; REST and GraphQL alike.

const cap = 1_000

async function setUp(b: Bounded) {
  const alice = await b.t.user('alice')
  await b.t.conversation(alice.key, 'c1')
  return alice
}

const post = (b: Bounded, path: string, key: string, body: unknown) =>
  fetch(`${b.apiUrl}${path}`, { method: 'POST', headers: { 'x-user-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) })

/** A text payload whose `{payload, metadata: null}` JSON is exactly `size` bytes. */
const payloadOf = (size: number) => {
  const empty = JSON.stringify({ payload: { type: 'text', text: '' }, metadata: null }).length
  return { type: 'text', text: 'a'.repeat(size - empty) }
}

const messages = async (b: Bounded) => Number((await b.t.query<{ n: number }>('select count(*) as n from messages'))[0]?.n)

describe('the message size cap (MESSAGE_MAX_BYTES) over REST', () => {
  const b = useBounded({ messageMaxBytes: cap })

  it('takes a message of exactly the cap and refuses one byte more with 413 naming the limit, writing nothing', async () => {
    const alice = await setUp(b.current)
    const accepted = await post(b.current, '/messages', alice.key, { conversationId: 'c1', payload: payloadOf(cap) })
    expect(accepted.status).toBe(200)
    const refused = await post(b.current, '/messages', alice.key, { conversationId: 'c1', payload: payloadOf(cap + 1) })
    expect(refused.status).toBe(413)
    expect(await refused.json()).toEqual({
      ...errorBody(413, 'PayloadTooLarge'),
      message: `the message is ${cap + 1} bytes as JSON (payload and metadata), over the limit of ${cap} bytes (MESSAGE_MAX_BYTES)`,
    })
    expect(await messages(b.current)).toBe(1)
  })

  it('counts the metadata with the payload', async () => {
    const alice = await setUp(b.current)
    const refused = await post(b.current, '/messages', alice.key, {
      conversationId: 'c1',
      payload: { type: 'text', text: 'hi' },
      metadata: { note: 'n'.repeat(cap) },
    })
    expect(refused.status).toBe(413)
    expect(await messages(b.current)).toBe(0)
  })
})

describe('the message size cap (MESSAGE_MAX_BYTES) over GraphQL', () => {
  const b = useBounded({ messageMaxBytes: cap })

  it('refuses createMessage over the cap with a PayloadTooLarge error, writing nothing', async () => {
    const alice = await setUp(b.current)
    const send = (text: string) =>
      post(b.current, '/graphql', alice.key, {
        query: 'mutation ($text: String!) { createMessage(input: { conversationId: "c1", payload: { text: { text: $text } } }) { message { messageId } } }',
        variables: { text },
      })
    const accepted = await (await send('hello')).json()
    expect(accepted.errors).toBeUndefined()
    const response = await send('a'.repeat(cap))
    const body = await response.json()
    expect(body.data).toBeNull()
    expect(body.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/over the limit of 1000 bytes \(MESSAGE_MAX_BYTES\)$/),
        extensions: expect.objectContaining({ type: 'PayloadTooLarge', status: 413 }),
      }),
    ])
    expect(await messages(b.current)).toBe(1)
  })
})

describe('the message size cap (MESSAGE_MAX_BYTES) on updateMessage', () => {
  const b = useBounded({ messageMaxBytes: cap })

  it('refuses to grow a message past the cap with 413, leaving it as it was', async () => {
    const alice = await setUp(b.current)
    const posted = await (await post(b.current, '/messages', alice.key, { conversationId: 'c1', payload: payloadOf(100) })).json()
    const update = (payload: unknown) =>
      fetch(`${b.current.apiUrl}/messages/${posted.message.id}`, {
        method: 'PUT',
        headers: { 'x-user-key': alice.key, 'content-type': 'application/json' },
        body: JSON.stringify({ payload }),
      })
    const refused = await update(payloadOf(cap + 1))
    expect(refused.status).toBe(413)
    expect(await refused.json()).toEqual({
      ...errorBody(413, 'PayloadTooLarge'),
      message: `the message is ${cap + 1} bytes as JSON (payload and metadata), over the limit of ${cap} bytes (MESSAGE_MAX_BYTES)`,
    })
    const stored = await b.current.t.query<{ payload: unknown }>('select payload from messages')
    // SQLite answers the JSON's text, PostgreSQL the value.
    expect(stored.map(({ payload }) => (typeof payload === 'string' ? JSON.parse(payload) : payload))).toEqual([payloadOf(100)])
    expect((await update(payloadOf(cap))).status).toBe(200)
  })
})

describe('the message size cap (MESSAGE_MAX_BYTES) by default', () => {
  const b = useBounded()

  it("is Botpress' 128 KiB: 131,072 bytes taken, one more refused", async () => {
    expect(defaultLimits.messageMaxBytes).toBe(131_072)
    const alice = await setUp(b.current)
    expect((await post(b.current, '/messages', alice.key, { conversationId: 'c1', payload: payloadOf(131_072) })).status).toBe(200)
    expect((await post(b.current, '/messages', alice.key, { conversationId: 'c1', payload: payloadOf(131_073) })).status).toBe(413)
  })
})
