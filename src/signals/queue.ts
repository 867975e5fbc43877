type Result<T> = IteratorResult<T, undefined>

const finished: Result<never> = { done: true, value: undefined }

/**
 * One listener's signals in arrival order, read as an async iterator. It sits on the path of every
 * signal to every listener, so a push hands the value straight to a waiting reader, one promise per
 * value (graphql-yoga's Repeater makes several). `open` runs on the first read, so that a listener
 * nobody reads holds nothing; `close` runs once, when the queue ends. end() lets the reader take what
 * was pushed, then finishes it; return() (the reader going away) finishes at once. A reader that
 * falls `capacity` values behind is ended rather than let the queue grow without bound. `ended` runs
 * once, when the queue ends, whether or not it was ever read (what the listener holds is let go).
 */
export class SignalQueue<T> implements AsyncIterableIterator<T> {
  private readonly values: T[] = []
  private readonly readers: ((result: Result<T>) => void)[] = []
  private state: 'idle' | 'open' | 'ended' = 'idle'

  constructor(
    private readonly open: () => void,
    private readonly close: () => void,
    private readonly capacity = 1024,
    private readonly ended: () => void = () => {},
  ) {}

  push(value: T): void {
    if (this.state === 'ended') return
    const reader = this.readers.shift()
    if (reader) reader({ value, done: false })
    else if (this.values.length < this.capacity) this.values.push(value)
    else this.end()
  }

  end(): void {
    if (this.state === 'ended') return
    const opened = this.state === 'open'
    this.state = 'ended'
    for (const reader of this.readers.splice(0)) reader(finished)
    if (opened) this.close()
    this.ended()
  }

  next(): Promise<Result<T>> {
    if (this.values.length > 0) return Promise.resolve({ value: this.values.shift() as T, done: false })
    if (this.state === 'ended') return Promise.resolve(finished)
    const read = new Promise<Result<T>>((resolve) => this.readers.push(resolve))
    if (this.state === 'idle') {
      this.state = 'open'
      this.open()
    }
    return read
  }

  return(): Promise<Result<T>> {
    this.values.length = 0
    this.end()
    return Promise.resolve(finished)
  }

  [Symbol.asyncIterator](): this {
    return this
  }
}
