import { InvalidPayloadError } from '@botpress/chat'
import { describe, expect, it } from 'vitest'
import { BASE, errorBody, type JsonResponse, toJson, useC1, useTestApp } from '../helpers/app.ts'
import { expectApiError, useOfficialClient } from '../helpers/listening.ts'

// A refused REST request says, in the caller's words, where (the field path), what was expected and,
// for a value from a set, the values allowed; never a GraphQL variable, type or input name.

const KINDS = 'audio, bloc, card, carousel, choice, dropdown, file, image, location, markdown, text, video'
const GRAPHQL_WORDS = /Variable "\$|is not defined by type|Expected type|String!|Int!|[A-Z]\w*Input\b|\$\w+/

describe('REST refusals in the caller’s words', () => {
  const t = useTestApp()
  const users = useC1(t)
  const post = (payload: unknown) => t.chat('POST', '/messages', { key: users.alice.key, body: { conversationId: 'c1', payload } })
  const refused = (res: JsonResponse, message: string) =>
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { ...errorBody(400, 'InvalidPayload'), message } })

  it('an unknown payload type: names payload.type, what was sent, and lists the valid kinds', async () => {
    refused(await post({ type: 'button', text: 'Go' }), `payload.type: "button" is not a known kind; expected one of ${KINDS}`)
  })

  it('a payload without its text: names payload.text and the string expected', async () => {
    refused(await post({ type: 'text' }), 'payload.text is required: expected a string')
  })

  it('a payload without type: names payload.type and lists the valid kinds', async () => {
    refused(await post({ text: 'hello' }), `payload.type is required: expected one of ${KINDS}`)
  })

  it('a nested field: the path through lists and objects, and the values allowed', async () => {
    const card = { type: 'card', title: 'T', actions: [{ action: 'jump', label: 'L', value: 'V' }] }
    refused(await post(card), 'payload.actions[0].action: expected one of postback, say, url, got the string "jump"')
    refused(
      await post({ type: 'bloc', items: [{ type: 'card' }] }),
      'payload.items[0].type: "card" is not a known kind; expected one of audio, file, image, location, markdown, text, video',
    )
  })

  it('several faults at once: each, in the order of the body', async () => {
    const res = await t.chat('POST', '/messages', { key: users.alice.key, body: { conversationId: 5, payload: { type: 'image' } } })
    refused(res, 'conversationId: expected a string, got the number 5; payload.imageUrl is required: expected a string')
  })

  it('query parameters by their own names, not the variables they feed', async () => {
    const res = await t.admin('GET', '/bots?pageSize=abc&sortDirection=sideways')
    refused(res, 'pageSize: expected a number, got the string "abc"; sortDirection: expected one of asc, desc, got the string "sideways"')
  })

  it.each([
    ['chat', () => t.chat('POST', '/messages', { key: users.alice.key, body: { conversationId: 'c1', payload: { type: 'button' } } })],
    ['chat', () => t.chat('PUT', '/users/me', { key: users.alice.key, body: { name: ['x'], userData: 5 } })],
    ['chat', () => t.chat('POST', '/conversations/c1/typing', { key: users.alice.key, body: { timeout: 'long' } })],
    ['web chat', () => t.chat('POST', '/files', { key: users.alice.key, body: { key: 5, size: 'big' } })],
    ['web chat', () => t.chat('PUT', '/messages/m/feedback', { key: users.alice.key, body: { value: 1 } })],
    ['admin', () => t.admin('POST', '/bots', { body: { integrations: { chat: { enabled: 'yes' } } } })],
    ['admin', () => t.admin('GET', '/bots/baks')],
    [
      'bot API',
      async () => {
        const botId = t.tenant!.botId
        const { value } = (await t.admin('POST', '/bots/baks', { body: { botId } })).body
        const headers = { authorization: `Bearer ${value}`, 'x-bot-id': botId }
        return toJson(await t.send('POST', `${BASE}/v1/chat/messages`, { headers, body: { conversationId: 5 } }))
      },
    ],
  ])('%s: no GraphQL variable, type or input name in the message', async (_api, call) => {
    const res = await call()
    expect(res).toMatchObject({
      status: 400,
      body: { type: 'InvalidPayload', message: expect.stringMatching(/^[a-z]\w*(\.\w+|\[\d+\])*(: | is required| must)/) },
    })
    expect(res.body.message).not.toMatch(GRAPHQL_WORDS)
  })

  it('GraphQL keeps its own words for the same mistake', async () => {
    const res = await t.graphql(
      'mutation ($p: MessagePayloadInput!) { createMessage(input: { conversationId: "c1", payload: $p }) { message { id } } }',
      { p: { button: { text: 'Go' } } },
      { key: users.alice.key },
    )
    expect(res.body.errors[0].message).toMatch(/Field "button" is not defined by type "MessagePayloadInput"/)
  })
})

describe('@botpress/chat sees the same refusal', () => {
  const t = useTestApp()
  const client = useOfficialClient(t)

  it('as an InvalidPayloadError whose message names the field and the kinds', async () => {
    const alice = await client.connect('alice')
    await alice.createConversation({ id: 'c1' })
    const sent = () => alice.createMessage({ conversationId: 'c1', payload: { type: 'button' } as never })
    await expectApiError(sent(), InvalidPayloadError, 400, 'InvalidPayload')
    await expect(sent()).rejects.toMatchObject({ message: `payload.type: "button" is not a known kind; expected one of ${KINDS}` })
  })
})
