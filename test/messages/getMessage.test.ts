import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { payloadToInput } from '../../src/graphql/types/payload-input.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
beforeEach(() => {
  t = createTestApp()
})
afterEach(() => t.close())

const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

// Each kind's members; FilePayload/LocationPayload `title` (String) and ImagePayload `imageUrl`
// (String!) would clash with CardPayload's fields of the same name, so those are aliased.
const PAYLOAD = /* GraphQL */ `
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
    ... on TextPayload { type text }
    ... on MarkdownPayload { type markdown }
    ... on ImagePayload { type image: imageUrl }
    ... on AudioPayload { type audioUrl }
    ... on VideoPayload { type videoUrl }
    ... on FilePayload { type fileUrl fileTitle: title }
    ... on LocationPayload { type latitude longitude address locationTitle: title }
    ... on CardPayload { ...Card }
    ... on CarouselPayload { type items { ...Card } }
    ... on ChoicePayload { type text options { label value } }
    ... on DropdownPayload { type text options { label value } }
    ... on BlocPayload { type items { ...BlocMember } }
  }
  fragment MessageFields on Message {
    id
    messageId
    conversationId
    userId
    createdAt
    payload { ...Payload }
    rawPayload
    metadata
  }
`

const CREATE_MESSAGE = /* GraphQL */ `
  ${PAYLOAD}
  mutation ($input: CreateMessageInput!) {
    createMessage(input: $input) { message { ...MessageFields } }
  }
`

/** createMessage with a Chat API `{type, …}` payload, sent as the @oneOf MessagePayloadInput it maps onto. */
const createMessage = (input: { conversationId: string; payload: unknown; metadata?: unknown }, key?: string) =>
  t.graphql(CREATE_MESSAGE, { input: { ...input, payload: payloadToInput(input.payload) } }, { key })

const MESSAGE = /* GraphQL */ `
  ${PAYLOAD}
  query ($id: String!) { message(id: $id) { ...MessageFields } }
`

const fieldError = (type: string, status: number, path: string[]) => ({
  errors: [expect.objectContaining({ path, extensions: { type, status, requestId: expect.any(String) } })],
  data: null,
})

const extra = { extra: { nested: [1, 'two', null, { deep: true }] }, flag: false }

const fullCard = {
  type: 'card',
  title: 'A card',
  subtitle: 'Its subtitle',
  imageUrl: 'https://example.com/card.png',
  actions: [
    { action: 'postback', label: 'Post', value: 'p', tracking: 'kept' },
    { action: 'url', label: 'Open', value: 'https://example.com' },
    { action: 'say', label: 'Say', value: 'hello' },
  ],
  ...extra,
}
const fullCardRead = {
  __typename: 'CardPayload',
  type: 'card',
  title: 'A card',
  subtitle: 'Its subtitle',
  imageUrl: 'https://example.com/card.png',
  actions: [
    { action: 'postback', label: 'Post', value: 'p' },
    { action: 'url', label: 'Open', value: 'https://example.com' },
    { action: 'say', label: 'Say', value: 'hello' },
  ],
}

/** [kind, payload written (with properties the kind does not name), what the union reads]. */
const kinds: [string, Record<string, unknown>, Record<string, unknown>][] = [
  ['text', { type: 'text', text: 'Hello', ...extra }, { __typename: 'TextPayload', type: 'text', text: 'Hello' }],
  [
    'markdown',
    { type: 'markdown', markdown: '**bold**', ...extra },
    { __typename: 'MarkdownPayload', type: 'markdown', markdown: '**bold**' },
  ],
  [
    'image',
    { type: 'image', imageUrl: 'https://example.com/i.png', ...extra },
    { __typename: 'ImagePayload', type: 'image', image: 'https://example.com/i.png' },
  ],
  [
    'audio',
    { type: 'audio', audioUrl: 'https://example.com/a.mp3', ...extra },
    { __typename: 'AudioPayload', type: 'audio', audioUrl: 'https://example.com/a.mp3' },
  ],
  [
    'video',
    { type: 'video', videoUrl: 'https://example.com/v.mp4', ...extra },
    { __typename: 'VideoPayload', type: 'video', videoUrl: 'https://example.com/v.mp4' },
  ],
  [
    'file with a title',
    { type: 'file', fileUrl: 'https://example.com/f.pdf', title: 'Report', ...extra },
    { __typename: 'FilePayload', type: 'file', fileUrl: 'https://example.com/f.pdf', fileTitle: 'Report' },
  ],
  [
    'file without a title',
    { type: 'file', fileUrl: 'https://example.com/f.pdf' },
    { __typename: 'FilePayload', type: 'file', fileUrl: 'https://example.com/f.pdf', fileTitle: null },
  ],
  [
    'location with address and title',
    { type: 'location', latitude: 45.5017, longitude: -73.5673, address: '1 Main St', title: 'Office', ...extra },
    {
      __typename: 'LocationPayload',
      type: 'location',
      latitude: 45.5017,
      longitude: -73.5673,
      address: '1 Main St',
      locationTitle: 'Office',
    },
  ],
  [
    'location with coordinates only',
    { type: 'location', latitude: 0, longitude: 12 },
    { __typename: 'LocationPayload', type: 'location', latitude: 0, longitude: 12, address: null, locationTitle: null },
  ],
  ['card with every field', fullCard, fullCardRead],
  [
    'card with the required fields only',
    { type: 'card', title: 'Bare', actions: [] },
    { __typename: 'CardPayload', type: 'card', title: 'Bare', subtitle: null, imageUrl: null, actions: [] },
  ],
  [
    'carousel',
    {
      type: 'carousel',
      items: [fullCard, { type: 'card', title: 'Second', actions: [{ action: 'say', label: 'Hi', value: 'hi' }] }],
      ...extra,
    },
    {
      __typename: 'CarouselPayload',
      type: 'carousel',
      items: [
        { type: 'card', title: 'A card', subtitle: 'Its subtitle', imageUrl: 'https://example.com/card.png', actions: fullCardRead.actions },
        { type: 'card', title: 'Second', subtitle: null, imageUrl: null, actions: [{ action: 'say', label: 'Hi', value: 'hi' }] },
      ],
    },
  ],
  [
    'choice',
    { type: 'choice', text: 'Pick one', options: [{ label: 'Yes', value: 'y', extra: 1 }, { label: 'No', value: 'n' }], ...extra },
    {
      __typename: 'ChoicePayload',
      type: 'choice',
      text: 'Pick one',
      options: [
        { label: 'Yes', value: 'y' },
        { label: 'No', value: 'n' },
      ],
    },
  ],
  [
    'dropdown',
    { type: 'dropdown', text: 'Choose', options: [{ label: 'A', value: 'a' }], ...extra },
    { __typename: 'DropdownPayload', type: 'dropdown', text: 'Choose', options: [{ label: 'A', value: 'a' }] },
  ],
  [
    'bloc',
    {
      type: 'bloc',
      items: [
        { type: 'text', text: 'First', note: 'kept' },
        { type: 'markdown', markdown: '_second_' },
        { type: 'image', imageUrl: 'https://example.com/b.png' },
        { type: 'audio', audioUrl: 'https://example.com/b.mp3' },
        { type: 'video', videoUrl: 'https://example.com/b.mp4' },
        { type: 'file', fileUrl: 'https://example.com/b.pdf', title: 'Doc' },
        { type: 'location', latitude: 1.5, longitude: 2.5, title: 'Here' },
      ],
      ...extra,
    },
    {
      __typename: 'BlocPayload',
      type: 'bloc',
      items: [
        { __typename: 'TextPayload', type: 'text', text: 'First' },
        { __typename: 'MarkdownPayload', type: 'markdown', markdown: '_second_' },
        { __typename: 'ImagePayload', type: 'image', image: 'https://example.com/b.png' },
        { __typename: 'AudioPayload', type: 'audio', audioUrl: 'https://example.com/b.mp3' },
        { __typename: 'VideoPayload', type: 'video', videoUrl: 'https://example.com/b.mp4' },
        { __typename: 'FilePayload', type: 'file', fileUrl: 'https://example.com/b.pdf', fileTitle: 'Doc' },
        {
          __typename: 'LocationPayload',
          type: 'location',
          latitude: 1.5,
          longitude: 2.5,
          address: null,
          locationTitle: 'Here',
        },
      ],
    },
  ],
]

async function setup() {
  const alice = await t.user('alice', { name: 'Alice' })
  const bob = await t.user('bob', { name: 'Bob' })
  const carol = await t.user('carol')
  await t.conversation(alice.key, 'c1', ['bob'])
  return { alice, bob, carol }
}

describe('createMessage', () => {
  it.each(kinds)('stores a %s payload and reads it back through the union and as rawPayload', async (_kind, payload, read) => {
    const { alice } = await setup()
    const res = await createMessage({ conversationId: 'c1', payload }, alice.key)
    expect(res.status).toBe(200)
    const expected = {
      id: expect.any(String),
      messageId: expect.any(String),
      conversationId: 'c1',
      userId: 'alice',
      createdAt: iso,
      payload: read,
      rawPayload: payload,
      metadata: null,
    }
    expect(res.body).toEqual({ data: { createMessage: { message: expected } } })
    const message = res.body.data.createMessage.message
    const again = await t.graphql(MESSAGE, { id: message.messageId }, { key: alice.key })
    expect(again.body).toEqual({ data: { message } })
  })

  it('keeps every property of the payload, in canonical order: type, the kind\'s fields, then the extras', async () => {
    const { alice } = await setup()
    const payload = { zeta: 1, type: 'text', alpha: { b: [3, 2, 1], a: 'x' }, text: 'ordered' }
    const res = await createMessage({ conversationId: 'c1', payload }, alice.key)
    const id = res.body.data.createMessage.message.messageId
    const again = await t.graphql(MESSAGE, { id }, { key: alice.key })
    expect(again.body.data.message.rawPayload).toEqual(payload)
    expect(JSON.stringify(again.body.data.message.rawPayload)).toBe(
      JSON.stringify({ type: 'text', text: 'ordered', zeta: 1, alpha: { b: [3, 2, 1], a: 'x' } }),
    )
  })

  it('takes exactly one payload kind: none or two are refused before execution', async () => {
    const { alice } = await setup()
    for (const payload of [{}, { text: { text: 'a' }, markdown: { markdown: 'b' } }]) {
      const res = await t.graphql(CREATE_MESSAGE, { input: { conversationId: 'c1', payload } }, { key: alice.key })
      expect(res.body.data).toBeUndefined()
      expect(res.body.errors).toEqual([
        expect.objectContaining({ message: expect.stringContaining('MessagePayloadInput') }),
      ])
    }
  })

  it('keeps the extra properties of every level given through `extra`', async () => {
    const { alice } = await setup()
    const payload = {
      card: {
        title: 'T',
        actions: [{ action: 'url', label: 'Open', value: 'https://x', extra: { tracking: 1 } }],
        extra: { theme: 'dark' },
      },
    }
    const res = await t.graphql(CREATE_MESSAGE, { input: { conversationId: 'c1', payload } }, { key: alice.key })
    expect(res.body.data.createMessage.message.rawPayload).toEqual({
      type: 'card',
      title: 'T',
      actions: [{ action: 'url', label: 'Open', value: 'https://x', tracking: 1 }],
      theme: 'dark',
    })
  })

  it('keeps metadata beside the payload', async () => {
    const { alice } = await setup()
    const metadata = { source: 'web', nested: { n: 1, list: ['a', null] } }
    const res = await createMessage({ conversationId: 'c1', payload: { type: 'text', text: 'hi' }, metadata }, alice.key)
    expect(res.body.data.createMessage.message.metadata).toEqual(metadata)
    const again = await t.graphql(MESSAGE, { id: res.body.data.createMessage.message.messageId }, { key: alice.key })
    expect(again.body.data.message.metadata).toEqual(metadata)
  })

  it.each([
    ['an unknown kind', { type: 'sticker', stickerUrl: 'x' }],
    ['no type', { text: 'hello' }],
    ['a text without text', { type: 'text' }],
    ['a text whose text is a number', { type: 'text', text: 5 }],
    ['a location with a string latitude', { type: 'location', latitude: '45', longitude: 1 }],
    ['a card with an unknown action', { type: 'card', title: 'c', actions: [{ action: 'call', label: 'l', value: 'v' }] }],
    ['a card without actions', { type: 'card', title: 'c' }],
    ['a carousel whose item is not a card', { type: 'carousel', items: [{ type: 'text', text: 'x' }] }],
    ['a choice option without a value', { type: 'choice', text: 'c', options: [{ label: 'l' }] }],
    ['a bloc holding a card', { type: 'bloc', items: [{ type: 'card', title: 'c', actions: [] }] }],
    ['a bloc without items', { type: 'bloc' }],
  ])('refuses %s before execution, as its input does not fit MessagePayloadInput', async (_name, payload) => {
    const { alice } = await setup()
    const res = await createMessage({ conversationId: 'c1', payload }, alice.key)
    expect(res.body.data).toBeUndefined()
    expect(res.body.errors.length).toBeGreaterThan(0)
    expect(res.body.errors.every((e: { message: string; path?: unknown }) => e.path === undefined)).toBe(true)
    expect(t.db.$client.prepare('select count(*) as n from messages').get()).toEqual({ n: 0 })
  })

  it('refuses a caller who does not participate as Forbidden', async () => {
    const { carol } = await setup()
    const res = await createMessage({ conversationId: 'c1', payload: { type: 'text', text: 'hi' } }, carol.key)
    expect(res.body).toEqual(fieldError('Forbidden', 403, ['createMessage']))
  })

  it('answers ResourceNotFound for an unknown conversation', async () => {
    const { alice } = await setup()
    const res = await createMessage({ conversationId: 'nope', payload: { type: 'text', text: 'hi' } }, alice.key)
    expect(res.body).toEqual(fieldError('ResourceNotFound', 404, ['createMessage']))
  })

  it('refuses a request without a user key as Unauthorized', async () => {
    await setup()
    const res = await createMessage({ conversationId: 'c1', payload: { type: 'text', text: 'hi' } })
    expect(res.body).toEqual(fieldError('Unauthorized', 401, ['createMessage']))
  })

  it('refuses a payload that is not a JSON object as a request error, before execution', async () => {
    const { alice } = await setup()
    const res = await createMessage({ conversationId: 'c1', payload: 'hello' }, alice.key)
    expect(res.body.data).toBeUndefined()
    expect(res.body.errors).toHaveLength(1)
    expect(res.body.errors[0].path).toBeUndefined()
  })
})

describe('message', () => {
  const AUTHOR_AND_CONVERSATION = /* GraphQL */ `
    query ($id: String!) {
      message(id: $id) {
        messageId
        userId
        author { userId name }
        conversation { conversationId owner { userId } }
      }
    }
  `

  async function post(key: string, text: string) {
    const res = await createMessage({ conversationId: 'c1', payload: { type: 'text', text } }, key)
    return res.body.data.createMessage.message.messageId as string
  }

  it('resolves the author and the conversation', async () => {
    const { alice, bob } = await setup()
    const id = await post(bob.key, 'from bob')
    const res = await t.graphql(AUTHOR_AND_CONVERSATION, { id }, { key: alice.key })
    expect(res.body).toEqual({
      data: {
        message: {
          messageId: id,
          userId: 'bob',
          author: { userId: 'bob', name: 'Bob' },
          conversation: { conversationId: 'c1', owner: { userId: 'alice' } },
        },
      },
    })
  })

  it('shows a message to every participant of its conversation', async () => {
    const { alice, bob } = await setup()
    const id = await post(alice.key, 'hi')
    const asAlice = await t.graphql(MESSAGE, { id }, { key: alice.key })
    const asBob = await t.graphql(MESSAGE, { id }, { key: bob.key })
    expect(asAlice.body.data.message.payload).toEqual({ __typename: 'TextPayload', type: 'text', text: 'hi' })
    expect(asBob.body).toEqual(asAlice.body)
  })

  it('refuses a user who does not participate as Forbidden', async () => {
    const { alice, carol } = await setup()
    const id = await post(alice.key, 'secret')
    const res = await t.graphql(MESSAGE, { id }, { key: carol.key })
    expect(res.body).toEqual(fieldError('Forbidden', 403, ['message']))
  })

  it('answers ResourceNotFound for an unknown message id', async () => {
    const { alice } = await setup()
    const res = await t.graphql(MESSAGE, { id: 'nope' }, { key: alice.key })
    expect(res.body).toEqual(fieldError('ResourceNotFound', 404, ['message']))
  })

  it('gives each message its own id', async () => {
    const { alice } = await setup()
    const first = await post(alice.key, 'one')
    const second = await post(alice.key, 'two')
    expect(first).not.toBe(second)
    const res = await t.graphql(MESSAGE, { id: second }, { key: alice.key })
    expect(res.body.data.message.rawPayload).toEqual({ type: 'text', text: 'two' })
  })
})
