/** One Server-Sent Events block: its comment lines, its `event:` name and `id:`, and its `data:` lines joined. */
export interface SseBlock {
  text: string
  comments: string[]
  event?: string
  id?: string
  data?: string
}

const parse = (text: string): SseBlock => {
  const lines = text.split('\n')
  const field = (name: string) => lines.filter((line) => line.startsWith(`${name}:`)).map((line) => line.slice(name.length + 1).replace(/^ /, ''))
  const data = field('data')
  return {
    text,
    comments: lines.filter((line) => line.startsWith(':')),
    event: field('event')[0],
    id: field('id')[0],
    data: data.length > 0 ? data.join('\n') : undefined,
  }
}

/**
 * Reads an event stream block by block (a block is the lines up to a blank line), from the start
 * and in the background, as a client that keeps reading does: some servers only start a stream's
 * work once its body is pulled. A read waits for data, not for a clock: a stream that never
 * answers fails the test at its own timeout.
 */
export class SseReader {
  /** Every block read so far, in order. */
  readonly blocks: SseBlock[] = []
  private next = 0
  private ended = false
  private wake: () => void = () => {}
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>
  /** Resolves once the stream has ended, whoever ended it. */
  readonly done: Promise<void>

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader()
    this.done = this.pump()
  }

  private async pump() {
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for (;;) {
        const { done, value } = await this.reader.read()
        if (done) break
        buffer += decoder.decode(value, { stream: true })
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          this.blocks.push(parse(buffer.slice(0, end)))
          buffer = buffer.slice(end + 2)
        }
        this.wake()
      }
    } catch {
      // Cancelled or aborted: the stream has ended either way.
    }
    this.ended = true
    this.wake()
  }

  /** The next block, or undefined once the stream has ended. */
  async block(): Promise<SseBlock | undefined> {
    for (;;) {
      const block = this.blocks[this.next]
      if (block) {
        this.next += 1
        return block
      }
      if (this.ended) return undefined
      await new Promise<void>((resolve) => {
        this.wake = resolve
      })
    }
  }

  /** The next block that carries data or an event (comments skipped), or undefined once the stream has ended. */
  async message(skip: (block: SseBlock) => boolean = () => false): Promise<SseBlock | undefined> {
    for (;;) {
      const block = await this.block()
      if (block === undefined || ((block.data !== undefined || block.event !== undefined) && !skip(block))) return block
    }
  }

  /** Ends the stream from the client side. */
  async cancel() {
    await this.reader.cancel()
    await this.done
  }
}
