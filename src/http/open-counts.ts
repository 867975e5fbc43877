import { DomainError } from '../domain/errors.ts'

/** Seconds a refused client is told to wait: a slot frees as soon as one of its streams closes. */
export const capRetryAfterSeconds = 5

/**
 * Open connections of one kind (event streams, WebSockets) counted per user key and per client
 * address, in this process: a cap of 0 is none. Live connections are always served by the main
 * thread (never by a read replica), so these counts are the instance's; with several instances each
 * enforces its own.
 */
export class OpenCounts {
  private readonly perKey = new Map<string, number>()
  private readonly perAddress = new Map<string, number>()

  constructor(
    private readonly what: string,
    private readonly keyCap: number,
    private readonly addressCap: number,
    /** The env vars of the caps, named in a refusal. */
    private readonly names: { key: string; address: string },
  ) {}

  get enabled(): boolean {
    return this.keyCap > 0 || this.addressCap > 0
  }

  /**
   * Takes a slot for a connection with this user key (none: counted per address only) from this
   * address; its release (which may be called more than once), or 429 RateLimited over either cap.
   */
  take(key: string | undefined, address: string): () => void {
    const counted = this.keyCap > 0 && key !== undefined
    if (counted && (this.perKey.get(key) ?? 0) >= this.keyCap) {
      throw this.refusal(`${this.keyCap} ${this.what} are already open with this user key (${this.names.key})`)
    }
    if (this.addressCap > 0 && (this.perAddress.get(address) ?? 0) >= this.addressCap) {
      throw this.refusal(`${this.addressCap} ${this.what} are already open from this address (${this.names.address})`)
    }
    if (counted) increment(this.perKey, key)
    if (this.addressCap > 0) increment(this.perAddress, address)
    let released = false
    return () => {
      if (released) return
      released = true
      if (counted) decrement(this.perKey, key)
      if (this.addressCap > 0) decrement(this.perAddress, address)
    }
  }

  private refusal(message: string): DomainError {
    return new DomainError('RateLimited', `too many ${this.what}: ${message}; close one first`, {
      'retry-after': String(capRetryAfterSeconds),
    })
  }
}

const increment = (counts: Map<string, number>, name: string) => counts.set(name, (counts.get(name) ?? 0) + 1)

const decrement = (counts: Map<string, number>, name: string) => {
  const left = (counts.get(name) ?? 1) - 1
  if (left === 0) counts.delete(name)
  else counts.set(name, left)
}
