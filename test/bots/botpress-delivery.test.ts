import { Webhook } from 'standardwebhooks'
import { afterEach, describe, expect, it } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import { iso } from '../helpers/app.ts'
import { aliceC1 } from '../helpers/bot-events.ts'
import { serve } from '../helpers/listening.ts'
import { logsOf, type Receiver, startReceiver, webhookBotApp } from './receiver.ts'
import { eventually } from '../helpers/wait.ts'

// A bot whose protocol is `botpress` is POSTed what an @botpress/sdk bot reads: its headers and
// the `{event}` body of `event_received`, with the Standard Webhooks signature besides (ignored by
// the SDK), and with the durability, retries and logs of any delivery.

let t: TestApp
let receiver: Receiver
let botId: string
let secret: string
const cleanups: (() => Promise<void>)[] = []

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function start(answer?: Parameters<typeof startReceiver>[0], options: { botTimeoutMs?: number } = {}) {
  receiver = await startReceiver(answer)
  cleanups.push(receiver.close)
  ;({ t, botId, secret } = await webhookBotApp({ url: receiver.url, ...options }))
  cleanups.push(t.close)
  const put = await t.admin('PUT', `/bots/${botId}`, { body: { protocol: 'botpress' } })
  expect(put.body.bot.protocol).toBe('botpress')
  const alice = await t.user('alice')
  await t.conversation(alice.key, 'c1')
  return alice
}

const configuration = Buffer.from('{}').toString('base64')

describe('botpress delivery format', () => {
  it('POSTs a user message as message_created, with the message, its author and the conversation', async () => {
    const alice = await start()
    const message = await t.message(alice.key, 'c1', { type: 'text', text: 'hello' })
    await eventually(() => expect(receiver.received).toHaveLength(1))
    const [request] = receiver.received
    expect(request!.headers).toMatchObject({
      'x-bot-id': botId,
      'x-bot-user-id': botId,
      'x-bp-operation': 'event_received',
      'x-bp-type': 'message_created',
      'x-bp-configuration': configuration,
      'content-type': 'application/json',
    })
    expect(() => new Webhook(secret).verify(request!.body, request!.headers)).not.toThrow()
    expect(request!.json).toEqual({
      event: {
        id: request!.headers['webhook-id'],
        createdAt: message.createdAt,
        type: 'message_created',
        payload: {
          message: {
            id: message.id,
            createdAt: message.createdAt,
            updatedAt: message.createdAt,
            type: 'text',
            payload: { text: 'hello' },
            direction: 'incoming',
            userId: 'alice',
            conversationId: 'c1',
            tags: {},
          },
          user: { id: 'alice', createdAt: iso, updatedAt: iso, tags: {} },
          conversation: aliceC1(iso),
        },
        conversationId: 'c1',
        userId: 'alice',
        messageId: message.id,
        status: 'pending',
        failureReason: null,
      },
    })
  })

  it('POSTs a message with metadata, which the payload carries, as the chat integration does', async () => {
    const alice = await start()
    const sent = await t.chat('POST', '/messages', {
      key: alice.key,
      body: { conversationId: 'c1', payload: { type: 'image', imageUrl: 'https://x.test/a.png' }, metadata: { lang: 'fr' } },
    })
    expect(sent.status).toBe(200)
    await eventually(() => expect(receiver.received).toHaveLength(1))
    expect(receiver.received[0]!.json.event.payload.message).toMatchObject({
      type: 'image',
      payload: { imageUrl: 'https://x.test/a.png', metadata: { lang: 'fr' } },
    })
  })

  it("POSTs a custom event as the chat integration's chat:custom, the payload as sent inside {userId, conversationId, payload}", async () => {
    const alice = await start()
    const sent = await t.chat('POST', '/events', { key: alice.key, body: { conversationId: 'c1', payload: { type: 'ping', n: 1 } } })
    expect(sent.status).toBe(200)
    await eventually(() => expect(receiver.received).toHaveLength(1))
    const [request] = receiver.received
    expect(request!.headers['x-bp-type']).toBe('chat:custom')
    expect(request!.json.event).toEqual({
      id: sent.body.event.id,
      createdAt: sent.body.event.createdAt,
      type: 'chat:custom',
      payload: { userId: 'alice', conversationId: 'c1', payload: { type: 'ping', n: 1 } },
      conversationId: 'c1',
      userId: 'alice',
      messageId: null,
      status: 'pending',
      failureReason: null,
    })
  })

  it('does not time out while the bot is calling the runtime API back, and does when it is silent', async () => {
    let served: Awaited<ReturnType<typeof serve>> | undefined
    let key = ''
    // The bot spends 3 timeouts on one slow runtime call (its body trickling in), then answers 200.
    const slowCall = async () => {
      let sent = 0
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await new Promise((resolve) => setTimeout(resolve, 100))
          if (sent === 0) controller.enqueue(new TextEncoder().encode('{"payload":{"step":'))
          else if (sent < 9) controller.enqueue(new TextEncoder().encode(' '))
          else {
            controller.enqueue(new TextEncoder().encode('1}}'))
            controller.close()
          }
          sent++
        },
      })
      const res = await fetch(`${served!.baseUrl}/v1/chat/states/conversation/c1/progress`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'x-bot-id': botId, 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit)
      expect(res.status).toBe(200)
    }
    const alice = await start(
      async (request) => {
        if (request.json.event.payload.message.payload.text === 'slow') await slowCall()
        else return 'hang'
        return { status: 200, body: {} }
      },
      { botTimeoutMs: 300 },
    )
    served = await serve(t)
    cleanups.push(served.close)
    key = (await t.admin('POST', '/bots/baks', { body: { botId } })).body.value
    await t.message(alice.key, 'c1', { type: 'text', text: 'slow' })
    await eventually(async () => expect((await logsOf(t)).map((l) => l.message)).toEqual([expect.stringMatching(/attempt 1 of \d+\): HTTP 200 in \d+ ms$/)]))
    const took = Number(/HTTP 200 in (\d+) ms/.exec((await logsOf(t))[0]!.message)?.[1])
    expect(took).toBeGreaterThan(900)
    await t.message(alice.key, 'c1', { type: 'text', text: 'silent' })
    await eventually(async () => expect((await logsOf(t)).at(-1)?.message).toMatch(/attempt 1 of \d+\): timed out after 300 ms/))
  }, 30_000)
})
