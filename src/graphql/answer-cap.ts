import { defaultFieldResolver, type ExecutionResult, GraphQLError, type GraphQLSchema } from 'graphql'
import { isAsyncIterable, type Plugin } from 'graphql-yoga'
import { DomainError } from '../domain/errors.ts'
import type { GraphQLContext } from './context.ts'
import { carryingFields, type PriceLimits, priceOf } from './cost.ts'

/*
 * The byte cap of a chat answer (RESPONSE_MAX_BYTES). An answer is measured where it is serialised,
 * once: its JSON's length, and its UTF-8 bytes only when the length alone cannot tell. An operation
 * whose estimated worst case (cost.ts) is over the cap also counts the fields that carry written
 * bytes as they are answered, and stops at the cap: such an answer is never built whole first.
 */

/** The refusal of an answer over the cap, as every transport tells it: 413 LimitExceeded. */
export const answerTooLarge = (limit: number, size?: number) =>
  new DomainError(
    'LimitExceeded',
    `the answer ${size === undefined ? 'is' : `would be ${size} bytes,`} over the limit of ${limit} bytes (RESPONSE_MAX_BYTES): ask for fewer items or fields`,
  )

/** The UTF-8 size of a JSON text when it is over `limit`, else undefined (its length is counted only when it may be). */
export function sizeOver(text: string, limit: number): number | undefined {
  // A UTF-16 unit is 1 to 3 bytes of UTF-8.
  if (text.length * 3 <= limit) return undefined
  if (text.length > limit) return text.length <= limit * 3 ? Buffer.byteLength(text) : text.length
  const bytes = Buffer.byteLength(text)
  return bytes > limit ? bytes : undefined
}

/** About the bytes of a value as JSON, without making it (escapes aside: the final measure is exact). */
export function jsonBytes(value: unknown): number {
  if (typeof value === 'string') return value.length + 2
  if (value === null || typeof value !== 'object') return 8
  let bytes = 2
  if (Array.isArray(value)) {
    for (const item of value) bytes += jsonBytes(item) + 1
    return bytes
  }
  for (const key in value) bytes += key.length + 4 + jsonBytes((value as Record<string, unknown>)[key])
  return bytes
}

/** What stands in for a value once the answer is over the cap: the answer is refused, so nothing of it is kept. */
const emptyLike = (value: unknown) => (typeof value === 'string' ? '' : value !== null && typeof value === 'object' ? {} : value)

/** The bytes an answer has taken so far: the fields that carry written bytes, as they are answered. */
export class AnswerBudget {
  private used = 0
  constructor(readonly limit: number) {}

  /** The value, counted; over the cap, the refusal once, then an empty stand-in. */
  counted(value: unknown): unknown {
    if (value === null || value === undefined) return value
    if (typeof (value as PromiseLike<unknown>).then === 'function') return (value as Promise<unknown>).then((v) => this.counted(v))
    if (this.used > this.limit) return emptyLike(value)
    this.used += jsonBytes(value)
    if (this.used > this.limit) throw answerTooLarge(this.limit)
    return value
  }
}

const counting = new WeakSet<GraphQLSchema>()

/**
 * Makes the fields of a schema that carry written bytes count what they answer when the request
 * has a budget (`answer` in its context); without one (most requests) a field pays one property read.
 */
export function countAnswers(schema: GraphQLSchema): void {
  if (counting.has(schema)) return
  counting.add(schema)
  for (const field of carryingFields(schema).keys()) {
    const resolve = field.resolve ?? defaultFieldResolver
    field.resolve = (source, args, context, info) => {
      const value = resolve(source, args, context, info)
      const budget = (context as GraphQLContext).answer
      return budget === undefined ? value : budget.counted(value)
    }
  }
}

const isTooLarge = (error: GraphQLError) => error.extensions?.type === 'LimitExceeded'

/** The one error of a refused answer, naming the request, answered with 413. */
const refusal = (error: DomainError, requestId: string): ExecutionResult => ({
  errors: [new GraphQLError(error.message, { extensions: { type: error.type, status: error.status, requestId, http: { status: error.status } } })],
})

/**
 * The byte cap of a yoga server's answers: a budget for each operation that may pass it, and the
 * answer measured as yoga serialises it. An answer over the cap (or one whose budget ran out) is
 * replaced by the refusal, 413 over HTTP. Results yoga streams (subscriptions) are not capped here.
 */
export function useAnswerCap(limit: number, prices: PriceLimits): Plugin<Record<string, unknown>, { requestId: string }> {
  return {
    onExecute({ args }) {
      if (priceOf(args.schema, args.document, prices).bytes <= limit) return
      ;(args.contextValue as Pick<GraphQLContext, 'answer'>).answer = new AnswerBudget(limit)
    },
    onResultProcess({ result, setResult, serverContext }) {
      if (isAsyncIterable(result) || Array.isArray(result)) return
      const answer = result as ExecutionResult & { stringify?: (result: unknown) => string }
      const { requestId } = serverContext
      if (answer.errors?.some(isTooLarge)) return setResult(refusal(answerTooLarge(limit), requestId))
      if (!answer.errors?.length && !answer.extensions) {
        // Serialised here rather than by yoga, which sends this text: it is made once.
        const text = JSON.stringify(answer)
        const size = sizeOver(text, limit)
        if (size !== undefined) return setResult(refusal(answerTooLarge(limit, size), requestId))
        answer.stringify = () => text
        return
      }
      // A result with errors: yoga leaves their internals out as it serialises; measured then.
      const stringify = answer.stringify ?? JSON.stringify
      answer.stringify = (sanitized) => {
        const text = stringify(sanitized)
        const size = sizeOver(text, limit)
        if (size === undefined) return text
        const { errors } = refusal(answerTooLarge(limit, size), requestId)
        return JSON.stringify({ errors: errors?.map(({ message, extensions: { http: _, ...extensions } }) => ({ message, extensions })) })
      }
    },
  }
}
