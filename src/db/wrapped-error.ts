/**
 * The first of `error` and the errors it wraps that `found` recognizes, depth first, each looked at
 * once: drizzle's and a group commit's `cause`, GraphQL's `originalError`, an AggregateError's
 * `errors` (a connection to several addresses). An engine's own error is seldom the one thrown.
 */
export function findInError<T>(error: unknown, found: (e: object) => T | undefined): T | undefined {
  const seen = new Set<object>()
  const visit = (e: unknown): T | undefined => {
    if (!e || typeof e !== 'object' || seen.has(e)) return undefined
    seen.add(e)
    const hit = found(e)
    if (hit !== undefined) return hit
    const { cause, originalError, errors } = e as { cause?: unknown; originalError?: unknown; errors?: unknown }
    for (const inner of Array.isArray(errors) ? errors : []) {
      const hit = visit(inner)
      if (hit !== undefined) return hit
    }
    return visit(cause) ?? visit(originalError)
  }
  return visit(error)
}
