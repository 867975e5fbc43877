import { createSourceEventStream, type DocumentNode, type ExecutionArgs, type ExecutionResult, execute, getOperationAST, print } from 'graphql'
import { isAsyncIterable, type Plugin } from 'graphql-yoga'

type Rendered = Promise<ExecutionResult>

/** Told of the work the renderings do (tests, benchmarks): each event rendered for a shape, each result encoded. */
export interface RenderingObserver {
  rendered(event: unknown, shape: string): void
  serialised(result: ExecutionResult): void
}

/**
 * Each event of a subscription rendered once per selection shape, and its JSON made once, for every
 * subscriber that asked for that shape: the signal hub hands one signal to all the listeners of a
 * conversation as the same object, which keys what was made of it (and lets it go with it).
 *
 * What a selection on a signal resolves to does not depend on who listens, as long as the listener
 * may hear it: its fields read the message, event or user the signal carries and, at most, the
 * conversation, which every listener of it participates in (the hub tells each listener only what
 * it may hear, and ends it when it is removed). So the event is rendered with the arguments of
 * whichever of its subscribers asks first — one that is hearing it — and the others get the same
 * result. An event that is no object (none today) is rendered for each subscriber.
 *
 * `renders` and `serialisations` count the work done, and `observer` is told of each piece of it.
 */
export class SignalRenderings {
  renders = 0
  serialisations = 0
  observer: RenderingObserver | undefined
  private readonly rendered = new WeakMap<object, Map<string, Rendered>>()
  private readonly encoded = new WeakMap<object, Uint8Array>()
  private readonly printed = new WeakMap<DocumentNode, string>()

  /** The result of `args`' selection on `event`, made once per event and `key` (the selection's shape). */
  render(event: unknown, key: string, args: ExecutionArgs): Rendered {
    if (typeof event !== 'object' || event === null) return this.execute(args, event, key)
    let byKey = this.rendered.get(event)
    if (!byKey) this.rendered.set(event, (byKey = new Map()))
    let result = byKey.get(key)
    if (!result) byKey.set(key, (result = this.execute(args, event, key)))
    return result
  }

  /** A result as JSON bytes, made once per result: every subscriber of its shape sends the same bytes. */
  json(result: ExecutionResult): Uint8Array {
    let bytes = this.encoded.get(result)
    if (!bytes) {
      this.serialisations++
      this.observer?.serialised(result)
      bytes = Buffer.from(JSON.stringify(result))
      this.encoded.set(result, bytes)
    }
    return bytes
  }

  /**
   * What makes two subscriptions render alike: their document (as printed), operation, and the
   * values of the variables it declares (others change nothing, so they do not part two shapes).
   */
  shapeOf(args: ExecutionArgs): string {
    let document = this.printed.get(args.document)
    if (document === undefined) this.printed.set(args.document, (document = print(args.document)))
    const given = args.variableValues ?? {}
    const used: Record<string, unknown> = {}
    for (const { variable } of getOperationAST(args.document, args.operationName)?.variableDefinitions ?? []) {
      if (variable.name.value in given) used[variable.name.value] = given[variable.name.value]
    }
    return `${document}\n${args.operationName ?? ''}\n${JSON.stringify(used)}`
  }

  /**
   * A subscription: its subscribe phase runs for this subscriber (the resolver checks that it may
   * listen and gives it its own signals), then each event is rendered once per shape.
   */
  async subscribe(args: ExecutionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    const source = await createSourceEventStream(args)
    if (!isAsyncIterable(source)) return source
    const events = source[Symbol.asyncIterator]()
    const key = this.shapeOf(args)
    const results: AsyncIterableIterator<ExecutionResult> = {
      next: async () => {
        const next = await events.next()
        return next.done ? { done: true, value: undefined } : { done: false, value: await this.render(next.value, key, args) }
      },
      return: async () => {
        await events.return?.()
        return { done: true, value: undefined }
      },
      throw: async (error: unknown) => {
        await events.return?.()
        throw error
      },
      [Symbol.asyncIterator]: () => results,
    }
    return results
  }

  private execute(args: ExecutionArgs, event: unknown, key: string): Rendered {
    this.renders++
    this.observer?.rendered(event, key)
    return Promise.resolve(execute({ ...args, rootValue: event }))
  }
}

/** Every subscription of a yoga server through the shared renderings (GraphQL over SSE, graphql-sse, graphql-ws). */
export const useSharedRendering = (renderings: SignalRenderings): Plugin => ({
  onSubscribe({ setSubscribeFn }) {
    setSubscribeFn((args) => renderings.subscribe(args))
  },
})
