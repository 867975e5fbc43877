import { expect } from 'vitest'
import { BASE, type TestApp, WEBHOOK_ID } from './app.ts'
import { PING } from './listening.ts'
import { SseReader } from './sse.ts'
import { eventually } from './wait.ts'

/** A message of the web chat's stream (GET /{webhookId}/initialize). */
export interface Signal {
  type: string
  data: any
}

/** Opens the web chat's stream as it does; resolves once `init` has arrived and the stream is subscribed. */
export async function initialize(t: TestApp, { key, conversationId }: { key?: string; conversationId?: string } = {}) {
  const baseline = t.app.signals.activeSubscriptions()
  const query = conversationId ? `?conversationId=${encodeURIComponent(conversationId)}` : ''
  const response = await t.send('GET', `${BASE}/${WEBHOOK_ID}/initialize${query}`, { key, headers: { timeout: '60000' } })
  if (response.status !== 200) return { response, body: await response.json() }
  const sse = new SseReader(response.body!)
  const signal = async (): Promise<Signal> => {
    const block = await sse.message((b) => b.data === PING)
    if (!block) throw new Error('the stream ended')
    expect(block.text).toMatch(/^(id: [0-9A-HJKMNP-TV-Z]{26}\n)?data: \{[^\n]*$/)
    return JSON.parse(block.data as string)
  }
  const init = await signal()
  await eventually(() => expect(t.app.signals.activeSubscriptions()).toBe(baseline + 1))
  return { response, sse, init, signal }
}

/** `initialize` that must succeed. */
export async function openInitialize(t: TestApp, options: { key?: string; conversationId?: string } = {}) {
  const { response, body, sse, init, signal } = await initialize(t, options)
  if (!sse || !init || !signal) throw new Error(`initialize answered ${response.status}: ${JSON.stringify(body)}`)
  return { response, sse, init, signal }
}
