import pino from 'pino'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { SendQueues } from '../../src/http/send-queue.ts'
import { sseMessage, SseStreams } from '../../src/http/sse.ts'
import { SignalQueue } from '../../src/signals/queue.ts'

const PING = 'data: {"type":"ping","data":{}}'
const timing = { commentIntervalMs: 2_000, pingIntervalMs: 6_000 }

/** An open stream and the SSE blocks it has written, each with the (fake) time it arrived. */
function read(response: Response) {
  const blocks: { at: number; block: string }[] = []
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  const done = (async () => {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      for (const block of decoder.decode(value).split('\n\n').filter(Boolean)) blocks.push({ at: Date.now(), block })
    }
  })()
  return { blocks, reader, done, heartbeats: () => blocks.filter((b) => b.block === ': keep-alive').map((b) => b.at) }
}

const source = () =>
  new SignalQueue<Uint8Array>(
    () => {},
    () => {},
  )

let streams: SseStreams
beforeEach(() => {
  vi.useFakeTimers({ now: 0 })
  streams = new SseStreams(pino({ level: 'silent' }), timing)
})
afterEach(() => {
  streams.closeAll()
  vi.useRealTimers()
})

describe('SSE streams', () => {
  it('runs one heartbeat timer for all its streams, and none once they are closed', async () => {
    expect(vi.getTimerCount()).toBe(0)
    const open = Array.from({ length: 50 }, () => read(streams.open(source())))
    expect(vi.getTimerCount()).toBe(1)
    await vi.advanceTimersByTimeAsync(timing.commentIntervalMs)
    for (const stream of open) expect(stream.heartbeats()).toHaveLength(1)
    streams.closeAll()
    await Promise.all(open.map((s) => s.done))
    expect(streams.size).toBe(0)
    expect(vi.getTimerCount()).toBe(0)
  })

  it("beats every interval from each stream's own opening, with a ping every ping interval", async () => {
    const first = read(streams.open(source()))
    await vi.advanceTimersByTimeAsync(1_000)
    const second = read(streams.open(source()))
    await vi.advanceTimersByTimeAsync(12_000)
    const intervals = (times: number[]) => times.slice(1).map((t, i) => t - (times[i] as number))
    expect(first.heartbeats().length).toBeGreaterThanOrEqual(6)
    expect(second.heartbeats().length).toBeGreaterThanOrEqual(5)
    for (const stream of [first, second]) {
      for (const interval of intervals(stream.heartbeats())) expect(interval).toBe(timing.commentIntervalMs)
      const pings = stream.blocks.filter((b) => b.block === PING).map((b) => b.at)
      expect(pings.length).toBeGreaterThanOrEqual(1)
      for (const interval of intervals(pings)) expect(interval).toBe(timing.pingIntervalMs)
    }
    // Each stream's first heartbeat comes about an interval after it opened, not when another's does.
    expect(first.heartbeats()[0]).toBeGreaterThan(timing.commentIntervalMs - 200)
    expect((second.heartbeats()[0] as number) - 1_000).toBeGreaterThan(timing.commentIntervalMs - 200)
  })

  it('relays the messages of its source after ": connected", and ends when the source ends', async () => {
    const messages = source()
    const stream = read(streams.open(messages))
    messages.push(sseMessage('{"type":"a"}'))
    messages.push(sseMessage('{"type":"b"}'))
    messages.end()
    await stream.done
    expect(stream.blocks.map((b) => b.block)).toEqual([': connected', 'data: {"type":"a"}', 'data: {"type":"b"}'])
    expect(streams.size).toBe(0)
  })

  it('ends its source when the reader cancels', async () => {
    let closed = false
    const messages = new SignalQueue<Uint8Array>(
      () => {},
      () => (closed = true),
    )
    const stream = read(streams.open(messages))
    await vi.advanceTimersByTimeAsync(0)
    await stream.reader.cancel()
    expect(closed).toBe(true)
    expect(streams.size).toBe(0)
  })

  it("read as a Response body, holds at most its send queue's mark for a reader that stops, then drops it with a last event", async () => {
    const queues = new SendQueues(1000)
    const bounded = new SseStreams(pino({ level: 'silent' }), timing, queues)
    let ended = false
    const messages = new SignalQueue<Uint8Array>(
      () => {},
      () => (ended = true),
    )
    const reader = (bounded.open(messages).body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    expect(decoder.decode((await reader.read()).value)).toBe(': connected\n\n')
    // The reader stops reading: 2 messages of 410 bytes fit under 1000, the 3rd would not.
    const message = sseMessage(JSON.stringify({ type: 'x', data: 'y'.repeat(380) }))
    expect(message.byteLength).toBe(410)
    for (let i = 0; i < 4; i++) messages.push(message)
    await vi.advanceTimersByTimeAsync(0)
    expect(queues.stats).toEqual({ open: 0, peak: 2 * message.byteLength, dropped: 1 })
    expect(ended).toBe(true)
    let text = ''
    for (let next = await reader.read(); !next.done; next = await reader.read()) text += decoder.decode(next.value)
    expect(text.split('\n\n').filter(Boolean)).toEqual([
      ...Array(2).fill(`data: ${JSON.stringify({ type: 'x', data: 'y'.repeat(380) })}`),
      'event: dropped\ndata: {"reason":"this client reads too slowly: over 1000 bytes would be waiting for it (SEND_QUEUE_MAX_BYTES)"}',
    ])
    expect(bounded.size).toBe(0)
  })
})
