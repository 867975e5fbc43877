import { describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.ts'
import { SseReader } from '../helpers/sse.ts'
import { eventually } from '../helpers/wait.ts'
import { subscribeOverSse } from '../helpers/graphql.ts'

describe('shutdown ends live GraphQL subscriptions', () => {
  const t = useTestApp({ handlers: {} })

  it('completes an open SSE subscription and releases it when live connections end', async () => {
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    const baseline = t.app.signals.activeSubscriptions()
    const response = await subscribeOverSse(t, alice.key, 'subscription ($id: String!) { conversationSignals(conversationId: $id) { __typename } }', {
      id: 'c1',
    })
    expect(response.status).toBe(200)
    const sse = new SseReader(response.body!)
    await eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline + 1))

    await t.app.endLiveConnections()

    await sse.done
    expect(sse.blocks.map((block) => block.event).filter(Boolean)).toEqual(['complete'])
    expect(t.app.signals.activeSubscriptions()).toBe(baseline)
  })
})
