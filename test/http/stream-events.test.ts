import { type ExecutionResult, GraphQLBoolean, GraphQLInt, GraphQLObjectType, GraphQLSchema, GraphQLString, parse } from 'graphql'
import pino from 'pino'
import { z } from 'zod'
import { beforeEach, describe, expect, it } from 'vitest'
import { SignalRenderings } from '../../src/graphql/shared-rendering.ts'
import { createStreamEvents } from '../../src/http/stream-events.ts'
import type { StreamRoute } from '../../src/rest/route.ts'
import { SignalQueue } from '../../src/signals/queue.ts'

interface Tick {
  n: number
}

// A subscription whose every subscriber hears the same tick objects, as the signal hub's listeners do.
let subscribers: SignalQueue<Tick>[]
let resolved: number
let mapped: number
let logged: unknown[]

const TickType = new GraphQLObjectType<Tick>({
  name: 'Tick',
  fields: {
    n: {
      type: GraphQLInt,
      resolve: (tick) => {
        resolved++
        if (tick.n < 0) throw new Error('a negative tick')
        return tick.n
      },
    },
  },
})

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLBoolean } } }),
  subscription: new GraphQLObjectType({
    name: 'Subscription',
    fields: {
      tick: {
        type: TickType,
        args: { channel: { type: GraphQLString } },
        subscribe: (_root, { channel }: { channel: string }) => {
          if (channel === 'closed') throw new Error('you may not listen here')
          const queue = new SignalQueue<Tick>(
            () => {},
            () => {},
          )
          subscribers.push(queue)
          return queue
        },
        resolve: (tick: Tick) => tick,
      },
    },
  }),
})

const route: StreamRoute = {
  kind: 'stream',
  operation: 'tick',
  summary: 'Ticks.',
  emits: z.object({ type: z.literal('tick'), n: z.int() }),
  method: 'GET',
  path: '/tick',
  document: parse('subscription ($channel: String) { tick(channel: $channel) { n } }'),
  event: (data: { tick: Tick }) => {
    mapped++
    return { type: 'tick', n: data.tick.n }
  },
}

const log = pino({ level: 'error' }, { write: (line: string) => void logged.push(JSON.parse(line)) })
const subscribe = createStreamEvents(log, new SignalRenderings())
const listen = async (channel: string) => {
  const events = await subscribe(route, { schema, document: route.document, variableValues: { channel }, contextValue: {} })
  if (!('next' in events)) throw new Error('refused')
  return events
}
const publish = (tick: Tick) => {
  for (const subscriber of subscribers) subscriber.push(tick)
}

beforeEach(() => {
  subscribers = []
  resolved = 0
  mapped = 0
  logged = []
})

describe('REST stream events', () => {
  it('renders a signal once for every listener of the same route and variables, who all write the same bytes', async () => {
    const listeners = await Promise.all(Array.from({ length: 20 }, () => listen('a')))
    const reads = listeners.map((l) => l.next())
    publish({ n: 1 })
    const messages = (await Promise.all(reads)).map((r) => r.value as Uint8Array)
    for (const message of messages) expect(message).toBe(messages[0])
    expect(new TextDecoder().decode(messages[0])).toBe('data: {"type":"tick","n":1}\n\n')
    expect({ resolved, mapped }).toEqual({ resolved: 1, mapped: 1 })
  })

  it('renders separately for other variables, and again for each new signal', async () => {
    const [a, b] = await Promise.all([listen('a'), listen('b')])
    const reads = [a.next(), b.next()]
    publish({ n: 1 })
    await Promise.all(reads)
    const again = a.next()
    publish({ n: 2 })
    expect(new TextDecoder().decode((await again).value as Uint8Array)).toBe('data: {"type":"tick","n":2}\n\n')
    expect(mapped).toBe(3)
  })

  it('refuses a listener whose subscription fails, with the result that says why', async () => {
    const refused = (await subscribe(route, {
      schema,
      document: route.document,
      variableValues: { channel: 'closed' },
      contextValue: {},
    })) as ExecutionResult
    expect(refused.errors?.[0]?.message).toBe('you may not listen here')
  })

  it('skips a signal that cannot be rendered, logging it once, and goes on', async () => {
    const listeners = await Promise.all([listen('a'), listen('a')])
    const reads = listeners.map((l) => l.next())
    publish({ n: -1 })
    publish({ n: 3 })
    for (const read of await Promise.all(reads)) {
      expect(new TextDecoder().decode(read.value as Uint8Array)).toBe('data: {"type":"tick","n":3}\n\n')
    }
    expect(logged).toHaveLength(1)
    expect(logged[0]).toMatchObject({ msg: 'tick: a signal could not be resolved' })
  })

  it('ends with its source, and ends its source when returned', async () => {
    const events = await listen('a')
    const [queue] = subscribers as [SignalQueue<Tick>]
    const next = events.next()
    queue.end()
    expect(await next).toEqual({ done: true, value: undefined })
    const other = await listen('a')
    await other.return?.()
    expect(await (subscribers[1] as SignalQueue<Tick>).next()).toEqual({ done: true, value: undefined })
  })
})
