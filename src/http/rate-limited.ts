import type { RateLimitName } from '../config.ts'
import { DomainError } from '../domain/errors.ts'
import { type RateLimitRefusal, type RateLimits, refusalHeaders, refusalMessage } from '../limits/rate-limits.ts'
import type { Transport } from './mounts.ts'

/** A rate limit's refusal as the transports tell it: 429 RateLimited, with Retry-After and RateLimit-* headers. */
export const rateLimited = (refusal: RateLimitRefusal) => new DomainError('RateLimited', refusalMessage(refusal), refusalHeaders(refusal))

/**
 * A transport whose every request counts against a per-client-address limit first: for the doors
 * that run no GraphQL operation (a file's upload URL), which graphql/rate-limits.ts cannot count.
 */
export function countedPerAddress(transport: Transport, limits: RateLimits | undefined, name: RateLimitName): Transport {
  if (!limits?.has(name)) return transport
  return {
    ...transport,
    async serve(request, landing) {
      const refusal = await limits.consume(name, landing.clientAddress)
      if (refusal) throw rateLimited(refusal)
      return transport.serve(request, landing)
    },
  }
}
