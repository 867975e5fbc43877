import { DomainError } from '../domain/errors.ts'

/** Seconds a refused client is told to wait: a slot frees as soon as one of its connections or subscriptions ends. */
export const capRetryAfterSeconds = 5

/** One way live things are counted: per what (a user, a client address, a conversation), under which cap. */
export interface SlotCap {
  /** The most live at once per name; 0: none. */
  cap: number
  /** The refusal's words after "N … are already open": e.g. `for this user (WS_SOCKETS_PER_USER)`. */
  per: string
}

/**
 * Live things of one kind (event streams, WebSockets, subscriptions) counted under caps, each cap
 * per name of its own (a verified user, a client address, a conversation), in this process. Live
 * connections are always served by the main thread (never by a read replica), so these counts are
 * the instance's; with several instances each enforces its own.
 */
export class Slots {
  private readonly counts: Map<string, number>[]

  constructor(
    private readonly what: string,
    private readonly caps: readonly SlotCap[],
  ) {
    this.counts = caps.map(() => new Map())
  }

  get enabled(): boolean {
    return this.caps.some((c) => c.cap > 0)
  }

  /**
   * Takes a slot under each cap for its name (`names[i]` for `caps[i]`; none: not counted under it):
   * its release (which may be called more than once), or 429 RateLimited when one cap is full.
   */
  take(names: readonly (string | undefined)[]): () => void {
    const counted: [Map<string, number>, string][] = []
    this.caps.forEach(({ cap, per }, i) => {
      const name = names[i]
      if (cap === 0 || name === undefined) return
      const counts = this.counts[i] as Map<string, number>
      if ((counts.get(name) ?? 0) >= cap) throw this.refusal(`${cap} ${this.what} are already open ${per}`)
      counted.push([counts, name])
    })
    for (const [counts, name] of counted) counts.set(name, (counts.get(name) ?? 0) + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      for (const [counts, name] of counted) {
        const left = (counts.get(name) ?? 1) - 1
        if (left === 0) counts.delete(name)
        else counts.set(name, left)
      }
    }
  }

  private refusal(message: string): DomainError {
    return new DomainError('RateLimited', `too many ${this.what}: ${message}; close one first`, {
      'retry-after': String(capRetryAfterSeconds),
    })
  }
}

/** The name a verified user is counted by: every key, and every encoding of a key, of one user is one name. */
export const userSlot = (integrationId: string, userId: string): string => `${integrationId}:${userId}`
