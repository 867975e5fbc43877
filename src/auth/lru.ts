/** A map that holds at most `capacity` entries, dropping the least recently used one to make room. */
export class LruCache<K, V> {
  // A Map iterates in insertion order: re-inserting an entry on use keeps the least recently used first.
  private readonly entries = new Map<K, V>()

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key)
    if (value !== undefined) {
      this.entries.delete(key)
      this.entries.set(key, value)
    }
    return value
  }

  set(key: K, value: V): void {
    this.entries.delete(key)
    this.entries.set(key, value)
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K)
  }

  delete(key: K): void {
    this.entries.delete(key)
  }
}
