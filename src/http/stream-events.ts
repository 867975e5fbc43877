import { createSourceEventStream, type ExecutionArgs, type ExecutionResult, execute } from 'graphql'
import type { Logger } from 'pino'
import type { StreamRoute } from '../rest/route.ts'
import { sseMessage } from './sse.ts'

type Rendered = Promise<Uint8Array | undefined>

/**
 * The events of REST stream routes as encoded SSE messages, each rendered once for all its
 * listeners. graphql's `subscribe` would execute the route's selection set and serialize the result
 * once per listener for every signal; here the subscribe phase still runs per listener (the
 * subscription's resolver checks that the caller may listen, and gives it its own signal stream,
 * which ends when it is removed), but each signal, which the signal hub hands every listener of a
 * conversation as the same object, is executed, mapped and encoded once per route and variables,
 * and every listener writes the same bytes. That is sound because what a stream route sends does
 * not depend on who listens: its listeners are all participants of the conversation it names.
 */
export function createStreamEvents(log: Logger) {
  const rendered = new WeakMap<object, Map<string, Rendered>>()

  const render = async (route: StreamRoute, args: ExecutionArgs, signal: unknown): Rendered => {
    const result = await execute({ ...args, rootValue: signal })
    if (result.errors?.length) {
      log.error({ errors: result.errors }, `${route.operation}: a signal could not be resolved`)
      return undefined
    }
    return sseMessage(JSON.stringify(route.event(result.data)))
  }

  const renderOnce = (route: StreamRoute, args: ExecutionArgs, key: string, signal: unknown): Rendered => {
    if (typeof signal !== 'object' || signal === null) return render(route, args, signal)
    let byKey = rendered.get(signal)
    if (!byKey) rendered.set(signal, (byKey = new Map()))
    let message = byKey.get(key)
    if (!message) byKey.set(key, (message = render(route, args, signal)))
    return message
  }

  /**
   * What renders each route and variables' signals: the arguments of the first of their listeners
   * (less the HTTP request its context carries), held while any of them listens, so that an idle
   * listener holds no context of its own. Any listener's would do: the event is the same for all.
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
  return async function subscribe(
    route: StreamRoute,
    args: ExecutionArgs,
    scope = '',
  ): Promise<AsyncIterator<Uint8Array> | ExecutionResult> {
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
          const message = await renderOnce(route, renderArgs, key, next.value)
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
