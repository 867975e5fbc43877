import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import type { SignalBus, SignalBusMessage } from './hub.ts'

export interface RedisSignalBus extends SignalBus {
  /** Resolves when Redis answers (GET /readyz). */
  ping(): Promise<void>
  close(): Promise<void>
}

/**
 * The one channel every instance publishes its signals on and listens to. Its messages are batches
 * (below); `confab:signals` carried one JSON object per signal, which an instance of an earlier
 * version cannot read as a batch, nor this one its: in a rolling upgrade the two versions do not
 * hear each other's signals until the last instance is upgraded, rather than misread them.
 */
export const defaultChannel = 'confab:signals:batches'

/**
 * The signals of every instance through Redis (REDIS_URL), on one channel (ioredis 5). Each
 * instance subscribes to it once, and this resolves only once Redis has confirmed the
 * subscription: from then on, a signal published by any instance reaches this one, so a listener
 * subscribed here before a write made anywhere hears it. (A channel per conversation would be
 * subscribed when its first listener came, without a confirmation to wait for, and could miss the
 * writes right after.) Each instance routes what it receives to its own listeners; it hears its own
 * signals at once, in process.
 *
 * A message is `<origin> <JSON array of signals>`: what an instance publishes in one turn of its
 * event loop (units of work's signals, published as they commit) goes as one PUBLISH, where each
 * signal was a command, a promise and a Redis delivery of its own; and Redis sends every message back to its publisher,
 * which knows its own by the origin in front and drops it unparsed. Under a load of messages with
 * their bot's answers, publishing and hearing back one's own signals was 8 % of the process's CPU.
 */
export async function connectRedisSignalBus(
  url: string,
  { channel = defaultChannel, onPublishError = () => {} }: { channel?: string; onPublishError?: (error: unknown) => void } = {},
): Promise<RedisSignalBus> {
  const options = { lazyConnect: true, maxRetriesPerRequest: 3 }
  const publishClient = new Redis(url, options)
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
  const ownPrefix = `${randomUUID()} `
  const receivers = new Set<(message: SignalBusMessage) => void>()
  subscribeClient.on('message', (from: string, text: string) => {
    if (from !== channel || text.startsWith(ownPrefix)) return
    const batch = parseBatch(text)
    for (const message of batch) for (const receive of receivers) receive(message)
  })
  await subscribeClient.subscribe(channel)

  const pending: SignalBusMessage[] = []
  const flush = () => {
    if (pending.length === 0) return
    const batch = pending.splice(0)
    // While Redis is away (ioredis reconnects by itself), the other instances miss these signals;
    // this one must not crash.
    publishClient.publish(channel, ownPrefix + JSON.stringify(batch)).catch(onPublishError)
  }

  return {
    publish(message) {
      // At the end of the event loop's turn rather than of the unit's tick: under load, the units that
      // commit in one turn (each answer from PostgreSQL is a tick of its own) share one PUBLISH.
      if (pending.push(message) === 1) setImmediate(flush)
    },
    receive(receiver) {
      receivers.add(receiver)
      return () => receivers.delete(receiver)
    },
    async ping() {
      await publishClient.ping()
    },
    async close() {
      // What this tick published goes before the connections close.
      flush()
      receivers.clear()
      await Promise.allSettled([subscribeClient.quit(), publishClient.quit()])
    },
  }
}

/** The signals of another instance's message; none when it is not one (another program on the channel). */
function parseBatch(text: string): SignalBusMessage[] {
  const space = text.indexOf(' ')
  try {
    const batch: unknown = JSON.parse(text.slice(space + 1))
    return space > 0 && Array.isArray(batch) ? (batch as SignalBusMessage[]) : []
  } catch {
    return []
  }
}
