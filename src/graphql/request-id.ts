import type { ExecutionResult } from 'graphql'
import { isAsyncIterable, type Plugin, Repeater } from 'graphql-yoga'
import { type ErrorPath, errorAt } from './errors.ts'

/**
 * The result with every error in its final form: typed by the error path (also the errors yoga and
 * graphql return rather than throw, such as validation errors), and naming the request in its
 * extensions; the cause of a masked error is reported (logged once, with that id) on the way.
 */
export function withRequestId(result: ExecutionResult, requestId: string, errors: ErrorPath): ExecutionResult {
  if (!result.errors) return result
  return {
    ...result,
    errors: result.errors.map((raw) => {
      const error = errors.mask(raw)
      errors.report(error, requestId)
      return errorAt(error, error.message, { ...error.extensions, requestId }, error.originalError ?? undefined)
    }),
  }
}

/** Every GraphQL error names the request it belongs to, as the `x-request-id` header and the logs do. */
export const useRequestId = (errors: ErrorPath): Plugin<Record<string, unknown>, { requestId: string }> => ({
  onResultProcess({ result, setResult, serverContext }) {
    const { requestId } = serverContext
    if (isAsyncIterable(result)) {
      setResult(
        new Repeater<ExecutionResult>(async (push, stop) => {
          const iterator = result[Symbol.asyncIterator]()
          void stop.then(() => iterator.return?.())
          for (;;) {
            const next = await iterator.next()
            if (next.done) break
            await push(withRequestId(next.value, requestId, errors))
          }
          stop()
        }),
      )
    } else if (Array.isArray(result)) {
      setResult(result.map((r) => withRequestId(r, requestId, errors)))
    } else {
      setResult(withRequestId(result, requestId, errors))
    }
  },
})
