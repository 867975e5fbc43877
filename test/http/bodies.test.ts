import { describe, expect, it } from 'vitest'
import { defaultLimits } from '../../src/config.ts'
import { BASE, errorBody, useC1, useTestApp, WEBHOOK_ID } from '../helpers/app.ts'
import { expectRefusal } from '../helpers/transports.ts'

// Request bodies of the chat REST API: JSON only, at most 1 MiB, never a 500 for what a client sends.

const MiB = 1024 * 1024

describe('request bodies', () => {
  // The body limit is what is tested: a message may be as large (128 KiB by default).
  const t = useTestApp({ handlers: {}, caps: { ...defaultLimits, messageMaxBytes: MiB } })
  const users = useC1(t, { profiles: { alice: { name: 'Alice' } } })

  const raw = (path: string, rawBody: BodyInit, contentType = 'application/json') =>
    t.chat('POST', path, { key: users.alice.key, rawBody, headers: { 'content-type': contentType } })

  describe('JSON only', () => {
    const notJson = 'the request body is not valid JSON'
    const notObject = 'the request body must be a JSON object'
    it.each([
      ['a truncated object', '{"userId": "alice"', notJson],
      ['a trailing comma', '{"userId": "alice",}', notJson],
      ['single quotes', "{'userId': 'alice'}", notJson],
      ['plain text', 'userId=alice', notJson],
      ['a body that is not UTF-8', new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), notJson],
      ['an array', JSON.stringify([{ userId: 'alice' }]), notObject],
      ['a string', JSON.stringify('alice'), notObject],
      ['a number', '5', notObject],
      ['true', 'true', notObject],
      ['null', 'null', notObject],
    ])('answers 400 InvalidPayload to %s, saying so, writing nothing', async (_what, body, message) => {
      const before = await t.rows()
      expectRefusal(await raw('/conversations/c1/participants', body), 'REST', 400, 'InvalidPayload', null, message)
      expect(await t.rows()).toEqual(before)
    })

    it.each([
      ['text/plain', 'text/plain'],
      ['form data', 'application/x-www-form-urlencoded'],
      ['XML', 'application/xml'],
    ])('answers 415 UnsupportedMediaType to a body sent as %s, writing nothing', async (_what, contentType) => {
      const before = await t.rows()
      expectRefusal(await raw('/conversations', JSON.stringify({ id: 'c2' }), contentType), 'REST', 415, 'UnsupportedMediaType', null)
      expect(await t.rows()).toEqual(before)
    })

    it('accepts application/json with a charset parameter', async () => {
      const res = await raw('/conversations', JSON.stringify({ id: 'c2' }), 'application/json; charset=utf-8')
      expect(res.status).toBe(200)
      expect(res.body.conversation.id).toBe('c2')
    })
  })

  describe('413 PayloadTooLarge over 1 MiB', () => {
    const prefix = '{"conversationId":"c1","payload":{"type":"text","text":"'
    const suffix = '"}}'
    /** A createMessage body of exactly `size` bytes: a valid text message padded with "a". */
    const messageBody = (size: number) => {
      const text = 'a'.repeat(size - prefix.length - suffix.length)
      const bytes = new TextEncoder().encode(`${prefix}${text}${suffix}`)
      expect(bytes.byteLength).toBe(size)
      return { bytes, text }
    }
    const chunked = (bytes: Uint8Array, chunkSize = 64 * 1024) => {
      let offset = 0
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= bytes.byteLength) return controller.close()
          controller.enqueue(bytes.slice(offset, offset + chunkSize))
          offset += chunkSize
        },
      })
    }
    /** A createMessage request whose body is sent with its Content-Length, or streamed without one. */
    const post = (body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>, contentLength?: number) =>
      t.app.fetch(
        new Request(`${BASE}/${WEBHOOK_ID}/messages`, {
          method: 'POST',
          headers: {
            'x-user-key': users.alice.key,
            'content-type': 'application/json',
            ...(contentLength === undefined ? {} : { 'content-length': String(contentLength) }),
          },
          body,
          duplex: 'half',
        } as RequestInit),
      )

    it.each([
      ['sent with its Content-Length', (bytes: Uint8Array<ArrayBuffer>) => post(bytes, bytes.byteLength)],
      ['streamed without Content-Length', (bytes: Uint8Array<ArrayBuffer>) => post(chunked(bytes))],
    ])('accepts a body of exactly 1,048,576 bytes %s, and refuses one byte more, writing nothing', async (_how, send) => {
      const { bytes, text } = messageBody(MiB)
      const accepted = await send(bytes)
      expect(accepted.status).toBe(200)
      expect((await accepted.json()).message.payload).toEqual({ type: 'text', text })
      const refused = await send(messageBody(MiB + 1).bytes)
      expect(refused.status).toBe(413)
      expect(await refused.json()).toEqual(errorBody(413, 'PayloadTooLarge'))
      expect((await t.rows()).messages).toBe(1)
    })

    it('refuses a body whose Content-Length is over the limit before reading it', async () => {
      let pulled = 0
      const endless = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += 1
          controller.enqueue(new Uint8Array(64 * 1024).fill(0x61))
        },
      })
      const res = await post(endless, 10 * MiB)
      expect(res.status).toBe(413)
      expect(await res.json()).toEqual(errorBody(413, 'PayloadTooLarge'))
      expect(pulled * 64 * 1024).toBeLessThan(MiB)
      expect((await t.rows()).messages).toBe(0)
    })

    it('refuses a GET whose declared body is over the limit, and ignores one under it', async () => {
      const list = (contentLength: number) =>
        t.app.fetch(
          new Request(`${BASE}/${WEBHOOK_ID}/conversations/c1/messages`, {
            headers: { 'x-user-key': users.alice.key, 'content-length': String(contentLength) },
          }),
        )
      const refused = await list(MiB + 1)
      expect(refused.status).toBe(413)
      expect(await refused.json()).toEqual(errorBody(413, 'PayloadTooLarge'))
      const listed = await list(MiB)
      expect(listed.status).toBe(200)
      expect(await listed.json()).toEqual({ messages: [], meta: {} })
    })

    it('stops reading an endless streamed body soon after it passes the limit', async () => {
      const chunk = new Uint8Array(64 * 1024).fill(0x61)
      let sent = 0
      let cancelled = false
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(prefix))
        },
        pull(controller) {
          sent += chunk.byteLength
          if (sent > 64 * MiB) return controller.error(new Error('the server kept reading'))
          controller.enqueue(chunk)
        },
        cancel() {
          cancelled = true
        },
      })
      const res = await post(body)
      expect(res.status).toBe(413)
      expect(await res.json()).toEqual(errorBody(413, 'PayloadTooLarge'))
      expect(sent).toBeLessThanOrEqual(MiB + 3 * chunk.byteLength)
      expect(cancelled).toBe(true)
      expect((await t.rows()).messages).toBe(0)
    })

    it.each([['/users/get-or-create'], ['/conversations'], ['/conversations/c1/participants'], ['/messages'], ['/events']])(
      'refuses an oversized body on POST %s',
      async (path) => {
        const res = await raw(path, JSON.stringify({ name: 'x'.repeat(MiB) }))
        expect({ status: res.status, body: res.body }).toEqual({ status: 413, body: errorBody(413, 'PayloadTooLarge') })
      },
    )
  })

  describe('never 500: deeply nested JSON', () => {
    const nested = (depth: number) => `${'{"d":'.repeat(depth)}1${'}'.repeat(depth)}`

    it.each([
      ['an event payload', '/events', (inner: string) => `{"conversationId":"c1","payload":${inner}}`],
      ['message metadata', '/messages', (inner: string) => `{"conversationId":"c1","payload":{"type":"text","text":"x"},"metadata":${inner}}`],
    ])('answers %s nested 5,000 levels deep with 200 or 400, never 500', async (_what, path, wrap) => {
      const rawBody = wrap(nested(5000))
      expect(rawBody.length).toBeLessThan(MiB)
      const res = await raw(path, rawBody)
      expect(res.body.type).not.toBe('Internal')
      expect([200, 400]).toContain(res.status)
    })
  })
})
