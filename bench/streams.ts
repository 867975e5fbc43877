import { type Listener, listen, listenMany } from './listeners.ts'
import { BENCH_ADMIN_TOKEN, type Server } from './server.ts'
import { latencies, ms } from './stats.ts'
import { subscribe } from './subscribers.ts'

/** One query shape for every GraphQL subscriber: each delta is rendered once for them all. */
const DELTAS =
  'subscription($id: String!) { conversationSignals(conversationId: $id) { __typename ... on MessageStreamDeltaSignal { streamId sequence delta } } }'

/**
 * Issue 51's figure: a bot's message stream of `deltas` deltas (chat:publishMessageStream on the bot
 * API, one after the other, as a bot awaits each) to `listeners` listeners of one conversation, half
 * of them the Chat API's SSE stream, half graphql-ws subscriptions. Each delta is timed from its
 * sending to its arrival at each SSE listener, and to its arrival at the last GraphQL subscriber;
 * the server's CPU time over the stream, per delta.
 */
export async function streamsPhase(
  server: Server,
  { listeners: count, deltas, webhook, userKey }: { listeners: number; deltas: number; webhook: string; userKey: string },
  row: (figure: string, measured: string, goal?: string) => void,
) {
  const conversationId = 'bench-streams'
  const sseCount = Math.ceil(count / 2)
  const graphqlCount = count - sseCount
  console.log(`message streams: ${deltas} deltas to ${sseCount} SSE listeners and ${graphqlCount} GraphQL subscriptions of one conversation`)
  const chat = (path: string, body: unknown) =>
    fetch(`${server.base}/${webhook}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-user-key': userKey },
      body: JSON.stringify(body),
    })
  if ((await chat('/conversations', { id: conversationId })).status !== 200) throw new Error('could not create the conversation')
  const admin = { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'x-workspace-id': 'wkspace_bench', 'content-type': 'application/json' }
  const { bots } = (await (await fetch(`${server.base}/v1/admin/bots`, { headers: admin })).json()) as { bots: { id: string }[] }
  const botId = bots[0]?.id as string
  const baked = await fetch(`${server.base}/v1/admin/bots/baks`, { method: 'POST', headers: admin, body: JSON.stringify({ botId, note: 'bench streams' }) })
  const { value: botKey } = (await baked.json()) as { value: string }
  const url = `${server.base}/${webhook}/conversations/${conversationId}/listen`
  const sse = await listenMany(sseCount, 50, () => listen(url, userKey))
  const subscribers = await subscribe(`${server.base.replace(/^http/, 'ws')}/${webhook}/graphql`, userKey, conversationId, {
    count: graphqlCount,
    perSocket: 100,
    query: () => DELTAS,
  })
  const publish = (sequence: number, delta: string) =>
    fetch(`${server.base}/v1/chat/actions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${botKey}`, 'x-bot-id': botId, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'chat:publishMessageStream',
        input: { conversationId, signal: { type: 'delta', streamId: 'bench', createdAt: new Date().toISOString(), sequence, delta } },
      }),
    }).then(async (r) => {
      if (r.status !== 200) throw new Error(`publishMessageStream answered ${r.status}: ${await r.text()}`)
    })
  // One delta first, so that every measured one is alike (the subscriptions' first event compiles its shape).
  await timedDeltas(-1, 1)
  const cpuBefore = server.cpuMs()
  const { perListener, lastSubscriber, missed } = await timedDeltas(0, deltas)
  const cpuPerDelta = (server.cpuMs() - cpuBefore) / deltas
  for (const l of sse) l.close()
  subscribers.close()

  row(
    `a delta to ${sseCount} SSE listeners (each)`,
    `p50 ${ms(perListener.p50)}, p99 ${ms(perListener.p99)}, max ${ms(perListener.max)}${missed ? `, ${missed} not delivered in 10 s` : ''}`,
    'p99 < 50 ms',
  )
  row(`a delta to the last of ${graphqlCount} GraphQL subscriptions`, `p50 ${ms(lastSubscriber.p50)}, p99 ${ms(lastSubscriber.p99)}`, 'p99 < 50 ms')
  row(`server CPU per delta (${count} listeners)`, `${cpuPerDelta.toFixed(2)} ms`)

  /** Publishes deltas `from`…`from + n - 1` one after the other, each awaited at every listener. */
  async function timedDeltas(from: number, n: number) {
    const samples: number[] = []
    const last: number[] = []
    let lost = 0
    for (let i = from; i < from + n; i++) {
      const marker = `delta-${i}-${Math.random().toString(36).slice(2)}`
      const arrivals = sse.map((l: Listener) => l.expect(marker))
      const everySubscriber = subscribers.expect(marker)
      const sentAt = performance.now()
      await publish(i, marker)
      let cancel = () => {}
      const timeout = new Promise<undefined>((resolve) => {
        const timer = setTimeout(resolve, 10_000)
        cancel = () => clearTimeout(timer)
      })
      for (const arrival of arrivals) {
        const at = await Promise.race([arrival, timeout])
        if (at === undefined) lost++
        else samples.push(at - sentAt)
      }
      const all = await Promise.race([everySubscriber, timeout])
      if (all === undefined) lost++
      else last.push(all - sentAt)
      cancel()
    }
    return { perListener: latencies(samples), lastSubscriber: latencies(last), missed: lost }
  }
}
