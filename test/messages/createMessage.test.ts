import { InvalidPayloadError } from '@botpress/chat'
import { describe, expect, it } from 'vitest'
import { errorBody, iso, type JsonResponse, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { expectRequestError, graphqlMessage } from '../helpers/graphql.ts'
import { expectApiError, useOfficialClient } from '../helpers/listening.ts'
import { INVALID_PAYLOADS, KINDS } from '../helpers/payloads.ts'
import { expectRefusal, type Transport, TRANSPORTS } from '../helpers/transports.ts'

// Each kind's members; FilePayload/LocationPayload `title` (String) and ImagePayload `imageUrl`
// (String!) would clash with CardPayload's fields of the same name, so those are aliased.
const UNION = /* GraphQL */ `
  fragment Card on CardPayload { type title subtitle imageUrl actions { action label value } }
  fragment BlocMember on BlocItem {
    __typename
    ... on TextPayload { type text }
    ... on MarkdownPayload { type markdown }
    ... on ImagePayload { type image: imageUrl }
    ... on AudioPayload { type audioUrl }
    ... on VideoPayload { type videoUrl }
    ... on FilePayload { type fileUrl fileTitle: title }
    ... on LocationPayload { type latitude longitude address locationTitle: title }
  }
  fragment Payload on MessagePayload {
    __typename
    ...BlocMember
    ... on CardPayload { ...Card }
    ... on CarouselPayload { type items { ...Card } }
    ... on ChoicePayload { type text options { label value } }
    ... on DropdownPayload { type text options { label value } }
    ... on BlocPayload { type items { ...BlocMember } }
  }
  mutation ($input: CreateMessageInput!) { createMessage(input: $input) { message { messageId payload { ...Payload } rawPayload } } }
`

const RAW = 'mutation ($input: CreateMessageInput!) { createMessage(input: $input) { message { rawPayload } } }'

type Message = { id: string; createdAt: string; payload: unknown; userId: string; conversationId: string; metadata?: unknown }

describe('createMessage', () => {
  const t = useTestApp({ handlers: {} })
  const createMessage = {
    REST: (key: string | undefined, body: { conversationId: string; payload: unknown; metadata?: unknown }) => t.chat('POST', '/messages', { key, body }),
    GraphQL: (key: string | undefined, input: { conversationId: string; payload: unknown; metadata?: unknown }) => graphqlMessage(t, key, input),
  }
  /** The message a transport answered with, in the REST shape (no metadata when there is none). */
  const created: Record<Transport, (res: JsonResponse) => Message> = {
    REST: (res) => res.body.message,
    GraphQL: (res) => {
      const { messageId, rawPayload, metadata, ...fields } = res.body.data.createMessage.message
      return { id: messageId, payload: rawPayload, ...fields, ...(metadata === null ? {} : { metadata }) }
    },
  }
  const messages = () => t.count('select count(*) as n from messages')
  const getMessage = async (key: string, id: string) => (await t.chat('GET', `/messages/${id}`, { key })).body.message
  const text = (value: string) => ({ type: 'text', text: value })
  const aliceInC1 = async () => (await t.c1({ profiles: { alice: { name: 'Alice' } } })).alice

  describe.each(TRANSPORTS)('%s', (transport) => {
    it('creates the message by the caller, answers every field of it, and getMessage reads it back', async () => {
      const alice = await aliceInC1()
      const res = await createMessage[transport](alice.key, { conversationId: 'c1', payload: text('hello') })
      expect(res.status).toBe(200)
      const message = created[transport](res)
      expect(message).toStrictEqual({ id: expect.any(String), createdAt: iso, payload: text('hello'), userId: 'alice', conversationId: 'c1' })
      expect(message.id).not.toBe('')
      expect(await messages()).toBe(1)
      expect(await getMessage(alice.key, message.id)).toEqual(message)
    })

    it('gives every message its own id and the author of its key', async () => {
      const alice = await aliceInC1()
      const bob = await t.user('bob')
      await t.chat('POST', '/conversations/c1/participants', { key: alice.key, body: { userId: 'bob' } })
      const first = created[transport](await createMessage[transport](alice.key, { conversationId: 'c1', payload: text('one') }))
      const second = created[transport](await createMessage[transport](bob.key, { conversationId: 'c1', payload: text('two') }))
      expect(second).toEqual({ id: expect.any(String), createdAt: iso, payload: text('two'), userId: 'bob', conversationId: 'c1' })
      expect(second.id).not.toBe(first.id)
      expect(await messages()).toBe(2)
    })

    it.each(KINDS)('keeps a %s payload exactly, extra properties included', async (_kind, payload) => {
      const alice = await aliceInC1()
      const message = created[transport](await createMessage[transport](alice.key, { conversationId: 'c1', payload }))
      expect(message.payload).toEqual(payload)
      expect((await getMessage(alice.key, message.id)).payload).toEqual(payload)
    })

    it.each([
      ['keeps metadata exactly', { source: 'web', nested: { list: [1, 'two', null], on: false }, count: 3.5, 'odd key': 'é' }],
      ['keeps empty metadata as an empty object', {}],
      ['treats null metadata as none, and leaves it out', null],
      ['leaves metadata out when none is given', undefined],
    ])('%s', async (_what, metadata) => {
      const alice = await aliceInC1()
      const res = await createMessage[transport](alice.key, { conversationId: 'c1', payload: text('hi'), ...(metadata !== undefined && { metadata }) })
      const expected = { id: expect.any(String), createdAt: iso, payload: text('hi'), userId: 'alice', conversationId: 'c1', ...(metadata && { metadata }) }
      expect(created[transport](res)).toStrictEqual(expected)
      expect(await getMessage(alice.key, created[transport](res).id)).toStrictEqual(expected)
    })

    it.each(INVALID_PAYLOADS)('refuses %s payload with a bad %s, writing nothing', async (_kind, field, payload) => {
      const alice = await aliceInC1()
      const res = await createMessage[transport](alice.key, { conversationId: 'c1', payload })
      if (transport === 'REST') {
        // The field path from the body down (`payload.actions[0].label`), ending at the field at fault, then what was expected.
        expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: errorBody(400, 'InvalidPayload') })
        const [path = ''] = res.body.message.split(/:| is required/)
        expect(path).toMatch(/^payload(\.\w+|\[\d+\])*$/)
        expect(path.split('.').at(-1)).toBe(field)
        expect(res.body.message).toContain('expected')
      } else {
        // The @oneOf input does not take it: refused before execution.
        expectRequestError(res.body)
      }
      expect(await messages()).toBe(0)
    })
  })

  it.each([
    ['without conversationId', { payload: text('hi') }, 'conversationId is required: expected a string'],
    ['without payload', { conversationId: 'c1' }, 'payload is required: expected an object'],
    ['with a conversationId that is a number', { conversationId: 1, payload: text('hi') }, 'conversationId: expected a string, got the number 1'],
    ['with metadata that is a string', { conversationId: 'c1', payload: text('hi'), metadata: 'm' }, 'metadata: expected an object, got the string "m"'],
    ['with metadata that is an array', { conversationId: 'c1', payload: text('hi'), metadata: [1] }, 'metadata: expected an object, got a list'],
  ])('REST refuses a body %s with 400 InvalidPayload, saying so, writing nothing', async (_what, body, message) => {
    const alice = await aliceInC1()
    expectRefusal(await t.chat('POST', '/messages', { key: alice.key, body }), 'REST', 400, 'InvalidPayload', null, message)
    expect(await messages()).toBe(0)
  })

  describe('GraphQL createMessage', () => {
    it.each(KINDS)('reads a %s payload back through the MessagePayload union', async (_kind, payload, read) => {
      const alice = await aliceInC1()
      const res = await graphqlMessage(t, alice.key, { conversationId: 'c1', payload }, UNION)
      expect(res.body).toEqual({ data: { createMessage: { message: { messageId: expect.any(String), payload: read, rawPayload: payload } } } })
    })

    it("keeps every property of the payload in canonical order: type, the kind's fields, then the extras", async () => {
      const alice = await aliceInC1()
      const payload = { zeta: 1, type: 'text', alpha: { b: [3, 2, 1], a: 'x' }, text: 'ordered' }
      const { id } = created.GraphQL(await createMessage.GraphQL(alice.key, { conversationId: 'c1', payload }))
      const read = (await t.graphql('query ($id: String!) { message(id: $id) { rawPayload } }', { id }, { key: alice.key })).body.data.message.rawPayload
      expect(JSON.stringify(read)).toBe(JSON.stringify({ type: 'text', text: 'ordered', zeta: 1, alpha: { b: [3, 2, 1], a: 'x' } }))
    })

    it('takes exactly one payload kind: none or two are refused before execution', async () => {
      const alice = await aliceInC1()
      for (const payload of [{}, { text: { text: 'a' }, markdown: { markdown: 'b' } }]) {
        const res = await t.graphql(RAW, { input: { conversationId: 'c1', payload } }, { key: alice.key })
        expect(res.body).toEqual({ errors: [expect.objectContaining({ message: expect.stringContaining('MessagePayloadInput') })] })
      }
      expect(await messages()).toBe(0)
    })

    it('keeps the extra properties given through `extra` at every level', async () => {
      const alice = await aliceInC1()
      const payload = {
        card: { title: 'T', actions: [{ action: 'url', label: 'Open', value: 'https://x', extra: { tracking: 1 } }], extra: { theme: 'dark' } },
      }
      const res = await t.graphql(RAW, { input: { conversationId: 'c1', payload } }, { key: alice.key })
      expect(res.body.data.createMessage.message.rawPayload).toEqual({
        type: 'card',
        title: 'T',
        actions: [{ action: 'url', label: 'Open', value: 'https://x', tracking: 1 }],
        theme: 'dark',
      })
    })
  })

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('creates messages of every kind, with or without metadata, as getMessage returns them', async () => {
      const alice = await client.connect('alice')
      await alice.createConversation({ id: 'c1' })
      const metadata = { locale: 'fr', nested: { n: 1, list: [true, null] } }
      const withMetadata = await alice.createMessage({ conversationId: 'c1', payload: { type: 'text', text: 'Hello' }, metadata })
      expect(withMetadata).toEqual({
        message: { id: expect.any(String), createdAt: iso, payload: { type: 'text', text: 'Hello' }, userId: 'alice', conversationId: 'c1', metadata },
      })
      for (const [, payload] of KINDS) {
        const { message } = await alice.createMessage({ conversationId: 'c1', payload: structuredClone(payload) as never })
        expect(message).toStrictEqual({ id: expect.any(String), createdAt: iso, payload, userId: 'alice', conversationId: 'c1' })
        expect(await alice.getMessage({ id: message.id })).toEqual({ message })
      }
    })

    it('reports a payload that does not fit its kind as InvalidPayloadError, its message naming the field', async () => {
      const alice = await client.connect('alice')
      await alice.createConversation({ id: 'c1' })
      const sent = alice.createMessage({ conversationId: 'c1', payload: { type: 'text' } as never })
      await expectApiError(sent, InvalidPayloadError, 400, 'InvalidPayload')
      await expect(alice.createMessage({ conversationId: 'c1', payload: { type: 'text' } as never })).rejects.toMatchObject({
        message: 'payload.text is required: expected a string',
      })
    })
  })

  describeAccess(t, 'createMessage', createMessage, ({ conversationId }) => [{ conversationId, payload: text('intrusion') }])
})
