import { describe, expect, it } from 'vitest'
import { errorBody } from '../helpers/app.ts'
import { type Bounded, useBounded } from '../helpers/bounded.ts'

// A user message is capped (MESSAGE_MAX_BYTES; 1 MiB by default, the body limit; Botpress' is 128 KB):
// its payload and metadata, as JSON. Over it: 413 PayloadTooLarge naming the limit,
// nothing written; REST and GraphQL alike.

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
    const refused = await post(b.current, '/messages', alice.key, { conversationId: 'c1', payload: { type: 'text', text: 'hi' }, metadata: { note: 'n'.repeat(cap) } })
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
