import { randomUUID } from 'node:crypto'
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target'
import { Redis } from 'ioredis'
import type { SignalBus, SignalBusMessage } from './hub.ts'

export interface RedisSignalBus extends SignalBus {
  /** Resolves when Redis answers (GET /readyz). */
  ping(): Promise<void>
  close(): Promise<void>
}

/** The one channel every instance publishes its signals on and listens to; `confab:signals` by default. */
export const defaultChannel = 'confab:signals'

/**
 * The signals of every instance through Redis (REDIS_URL): graphql-yoga's Redis event target
 * (`@graphql-yoga/redis-event-target`, ioredis 5) on one channel. Each instance subscribes to it
 * once, and this resolves only once Redis has confirmed the subscription: from then on, a signal
 * published by any instance reaches this one, so a listener subscribed here before a write made
 * anywhere hears it. (A channel per conversation would be subscribed when its first listener came,
 * without a confirmation to wait for, and could miss the writes right after.) Each instance routes
 * what it receives to its own listeners; it hears its own signals at once, in process, and ignores
 * their echo.
 */
export async function connectRedisSignalBus(
  url: string,
  { channel = defaultChannel, onPublishError = () => {} }: { channel?: string; onPublishError?: (error: unknown) => void } = {},
): Promise<RedisSignalBus> {
  const options = { lazyConnect: true, maxRetriesPerRequest: 3 }
  // The signals a unit of work publishes once it commits go out together, in one write of the socket
  // (ioredis' auto-pipelining: the commands of one tick), where each was a write of its own: a
  // settlement of the bot's answers publishes a run of them, and under load those writes were half
  // of the process's system calls.
  const publishClient = new Redis(url, { ...options, enableAutoPipelining: true })
  const subscribeClient = new Redis(url, options)
  // ioredis reconnects by itself; an error event without a listener would crash the process.
  const ignore = () => {}
  publishClient.on('error', ignore)
  subscribeClient.on('error', ignore)
  try {
    await Promise.all([publishClient.connect(), subscribeClient.connect()])
  } catch (error) {
    publishClient.disconnect()
    subscribeClient.disconnect()
    throw new Error(`REDIS_URL=${url}: Redis does not answer (${error instanceof Error ? error.message : String(error)})`)
  }
  const target = createRedisEventTarget<CustomEvent<SignalBusMessage & { origin: string }>>({ publishClient, subscribeClient })
  const origin = randomUUID()
  const receivers = new Set<(message: SignalBusMessage) => void>()
  target.addEventListener(channel, (event: CustomEvent<SignalBusMessage & { origin: string }>) => {
    const { origin: from, ...message } = event.detail
    if (from === origin) return
    for (const receive of receivers) receive(message)
  })
  // The event target subscribed without waiting; this waits for Redis' confirmation of it.
  await subscribeClient.subscribe(channel)

  return {
    publish(message) {
      // As the event target's dispatchEvent does, with the failure kept: while Redis is away (ioredis
      // reconnects by itself), the other instances miss the signal; this one must not crash.
      publishClient.publish(channel, JSON.stringify({ ...message, origin })).catch(onPublishError)
    },
    receive(receiver) {
      receivers.add(receiver)
      return () => receivers.delete(receiver)
    },
    async ping() {
      await publishClient.ping()
    },
    async close() {
      receivers.clear()
      await Promise.allSettled([subscribeClient.quit(), publishClient.quit()])
    },
  }
}
