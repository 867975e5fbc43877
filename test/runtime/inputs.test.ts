import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Listening, startListening } from '../helpers/listening.ts'
import { adminClient } from '../bots/sdk-bot.ts'

// The runtime operations' inputs (src/contracts/bot-api-inputs.ts): a bad one is a 400 InvalidPayload
// naming the field, and an operation refuses a property it does not take.

let confab: Listening
let botId: string
let key: string

beforeAll(async () => {
  confab = await startListening({ handlers: {} })
  botId = confab.botId
  ;({ value: key } = await adminClient(confab.baseUrl).createBotApiKey({ botId, note: 'inputs test' }))
}, 60_000)

afterAll(async () => {
  await confab?.close()
})

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${confab.baseUrl}/v1/chat${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'x-bot-id': botId, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  return { status: res.status, body: await res.json() }
}

const invalid = (message: string) => ({ status: 400, body: { code: 400, type: 'InvalidPayload', message } })

describe('runtime inputs', () => {
  it('refuses a property the operation does not take, naming it', async () => {
    expect(await call('POST', '/conversations', { tags: {}, colour: 'red' })).toMatchObject(
      invalid('the request has a property "colour" that this operation does not take'),
    )
    expect(await call('POST', '/users', { nickname: 'x' })).toMatchObject(invalid('the request has a property "nickname" that this operation does not take'))
  })

  it('names the field of a wrong type', async () => {
    expect(await call('POST', '/conversations', { tags: 'c9' })).toMatchObject(invalid('tags must be an object'))
    expect(await call('POST', '/conversations', { tags: { id: 9 } })).toMatchObject(invalid('tags.id must be a string'))
    expect(await call('POST', '/users', { name: 3 })).toMatchObject(invalid('name must be a string'))
    const message = { conversationId: 'c1', userId: botId, type: 'text', payload: { text: 'hi' } }
    expect(await call('POST', '/messages', { ...message, payload: [] })).toMatchObject(invalid('payload must be an object'))
    expect(await call('POST', '/messages', { ...message, type: '' })).toMatchObject(invalid('type must be a non-empty string'))
    const { type: _, ...untyped } = message
    expect(await call('POST', '/messages', untyped)).toMatchObject(invalid('type must be a non-empty string'))
    expect(await call('POST', '/messages', { ...message, payload: { text: 'hi', metadata: 'x' } })).toMatchObject(invalid('payload.metadata must be an object'))
    expect(await call('POST', '/messages', { ...message, type: 'bloc', payload: { items: [{ type: 'text', text: 'flat' }] } })).toMatchObject(
      invalid('payload.items.0.payload must be an object'),
    )
    expect(await call('POST', '/messages', { ...message, schedule: { delay: 1 } })).toMatchObject(invalid('scheduled messages are not supported'))
    expect(await call('POST', '/events', { conversationId: 'c1', type: 'x', payload: {}, userId: 4 })).toMatchObject(invalid('userId must be a string'))
  })

  it('checks a state’s address and payload', async () => {
    expect(await call('GET', '/states/workflow/w1/counter')).toMatchObject(invalid('type must be conversation, user or bot, got "workflow"'))
    expect(await call('POST', `/states/bot/${botId}/counter`, { payload: 'x' })).toMatchObject(invalid('payload must be an object'))
    expect(await call('POST', `/states/bot/${botId}/counter/get-or-set`, { payload: null })).toMatchObject(invalid('payload must be an object'))
    expect(await call('POST', `/states/bot/${botId}/counter`, { payload: { n: 1 }, ttl: 5 })).toMatchObject(
      invalid('the request has a property "ttl" that this operation does not take'),
    )
    expect(await call('POST', `/states/bot/${botId}/counter`, { payload: { n: 1 }, expiry: 5 })).toMatchObject({
      status: 200,
      body: { state: { type: 'bot', name: 'counter', payload: { n: 1 } } },
    })
    expect(await call('POST', `/states/bot/${botId}/counter`, { payload: null })).toMatchObject({ status: 200 })
    expect((await call('GET', `/states/bot/${botId}/counter`)).status).toBe(404)
  })

  it('callAction: names an action it does not have, and what is wrong with an input', async () => {
    const action = (body: unknown) => call('POST', '/actions', body)
    expect(await action({ type: 'chat:startTypingIndicator', input: {} })).toMatchObject(
      invalid(
        'type names no action: "chat:startTypingIndicator" is not one of "chat:sendEvent", "chat:publishMessageStream", "hitl:startHitl", "hitl:stopHitl", "hitl:createUser"',
      ),
    )
    expect(await action({ type: 'sendEvent', input: { conversationId: 'c1', payload: {} } })).toMatchObject(
      invalid(
        'type names no action: "sendEvent" is not one of "chat:sendEvent", "chat:publishMessageStream", "hitl:startHitl", "hitl:stopHitl", "hitl:createUser"',
      ),
    )
    expect(await action({ input: {} })).toMatchObject(invalid('type must be a non-empty string'))
    expect(await action({ type: 'chat:sendEvent' })).toMatchObject(invalid('input must be an object'))
    expect(await action({ type: 'chat:sendEvent', input: { payload: {} } })).toMatchObject(invalid('input.conversationId must be a non-empty string'))
    expect(await action({ type: 'chat:sendEvent', input: { conversationId: 'c1', payload: 'hi' } })).toMatchObject(invalid('input.payload must be an object'))
    expect(await action({ type: 'chat:sendEvent', input: { conversationId: 'c1', payload: {} }, when: 'now' })).toMatchObject(
      invalid('the request has a property "when" that this operation does not take'),
    )
    expect(await action({ type: 'chat:sendEvent', input: { conversationId: 'nowhere', payload: {} } })).toMatchObject({
      status: 404,
      body: { code: 404, type: 'ResourceNotFound' },
    })
  })
})
