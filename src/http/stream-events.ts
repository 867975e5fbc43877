import { createSourceEventStream, type ExecutionArgs, type ExecutionResult } from 'graphql'
import type { Logger } from 'pino'
import type { SignalRenderings } from '../graphql/shared-rendering.ts'
import type { StreamRoute } from '../rest/route.ts'
import { sseMessage } from './sse.ts'

/**
 * The events of REST stream routes as encoded SSE messages, each rendered once for all its
 * listeners (graphql/shared-rendering.ts), then mapped and encoded once. graphql's `subscribe` would
 * execute the route's selection set and serialize the result once per listener for every signal;
 * here the subscribe phase still runs per listener (the subscription's resolver checks that the
 * caller may listen, and gives it its own signal stream, which ends when it is removed), and every
 * listener writes the same bytes.
 */
export function createStreamEvents(log: Logger, renderings: SignalRenderings) {
  const messages = new WeakMap<ExecutionResult, Uint8Array | undefined>()

  /** `id`: the signal's place in its conversation's log (persisted signals only), the SSE `id:` a reconnect sends back. */
  const messageOf = (route: StreamRoute, result: ExecutionResult, id: unknown): Uint8Array | undefined => {
    if (messages.has(result)) return messages.get(result)
    let message: Uint8Array | undefined
    if (result.errors?.length) log.error({ errors: result.errors }, `${route.operation}: a signal could not be resolved`)
    else message = sseMessage(JSON.stringify(route.event(result.data)), typeof id === 'string' ? id : undefined)
    messages.set(result, message)
    return message
  }

  /**
   * What renders each route and variables' signals: the arguments of the first of their listeners
   * (less the HTTP request its context carries), held while any of them listens, so that an idle
   * listener holds no context of its own. Any listener's would do: a route's document reads only
   * what its signals carry, which is the same for all.
   */
  const renderers = new Map<string, { args: ExecutionArgs; listeners: number }>()

  const join = (key: string, args: ExecutionArgs) => {
    let renderer = renderers.get(key)
    if (!renderer) {
      renderer = { args: { ...args, contextValue: { ...(args.contextValue as object), request: undefined } }, listeners: 0 }
      renderers.set(key, renderer)
    }
    renderer.listeners++
    let left = false
    const leave = () => {
      if (left) return
      left = true
      if (--(renderer as { listeners: number }).listeners === 0) renderers.delete(key)
    }
    return { renderArgs: renderer.args, leave }
  }

  /**
   * Subscribes one listener: its stream of encoded messages, or the result that refused it. `scope`
   * names where the route is mounted (e.g. the webhook id): listeners share renderings within it.
   */
  return async function subscribe(route: StreamRoute, args: ExecutionArgs, scope = ''): Promise<AsyncIterator<Uint8Array> | ExecutionResult> {
    const source = await createSourceEventStream(args)
    if (!(Symbol.asyncIterator in source)) return source
    const signals = source[Symbol.asyncIterator]()
    const key = `${scope} ${route.operation} ${JSON.stringify(args.variableValues ?? {})}`
    const { renderArgs, leave } = join(key, args)
    return {
      async next() {
        for (;;) {
          const next = await signals.next()
          if (next.done) {
            leave()
            return { done: true, value: undefined }
          }
          const message = messageOf(route, await renderings.render(next.value, key, renderArgs), (next.value as { signalId?: unknown } | null)?.signalId)
          if (message) return { done: false, value: message }
        }
      },
      async return() {
        leave()
        await signals.return?.()
        return { done: true, value: undefined }
      },
    }
  }
}
