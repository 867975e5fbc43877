import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BASE, createTestApp, type TestApp, WEBHOOK_ID } from '../helpers/app.ts'

let t: TestApp
beforeEach(() => {
  t = createTestApp({ handlers: {} })
})
afterEach(() => t.close())

const SIGNALS = 'subscription ($id: String!) { conversationSignals(conversationId: $id) { __typename } }'

describe('shutdown ends live GraphQL subscriptions', () => {
  it('completes an open SSE subscription and releases it when live connections end', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const baseline = t.app.signals.activeSubscriptions()
    const response = await t.app.fetch(
      new Request(`${BASE}/${WEBHOOK_ID}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-user-key': alice.key },
        body: JSON.stringify({ query: SIGNALS, variables: { id: 'c1' } }),
      }),
    )
    expect(response.status).toBe(200)
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    let text = ''
    const reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return text
        text += decoder.decode(value, { stream: true })
      }
    })()
    await vi.waitFor(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline + 1))

    await t.app.endLiveConnections()

    expect(await reading).toContain('event: complete')
    expect(t.app.signals.activeSubscriptions()).toBe(baseline)
  })
})
