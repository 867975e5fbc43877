import type pg from 'pg'

/*
 * Reads sent together. A pooled read has a connection to itself: under load, each request's
 * statement is a write on its own socket and its answer a read, system calls that on loopback also
 * run the other side's network path and wake a server process (a quarter of Confab's CPU on a page
 * in a V8 profile: docs/internals/performance.md). A lane is a connection in pipeline mode that is
 * never in a transaction: the reads given to it in one turn of the event loop leave in one write,
 * each with its own Sync (its own implicit transaction, its own error), and come back together.
 */

/** What a lane's connection is (a pool's client class, connected on first use). */
export type LaneClient = pg.Client

interface Lane {
  client: Promise<LaneClient>
  /** Statements sent and not answered yet. */
  inFlight: number
  corked: boolean
}

export class ReadLanes {
  private readonly lanes: (Lane | undefined)[]
  private closed = false

  constructor(
    private readonly open: () => LaneClient,
    count: number,
    /** Told when a lane's connection is made (the store tells when the database answers again). */
    private readonly connected: () => void = () => {},
  ) {
    this.lanes = new Array(count).fill(undefined)
  }

  /** Sends a statement (a config or text, and its values, as drizzle gives them) on the lane with the fewest in flight. */
  query(config: unknown, values?: unknown): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the store is closed'))
    const lane = this.pick()
    lane.inFlight++
    return lane.client
      .then((client) => {
        this.cork(lane, client)
        return client.query(config as never, values as never) as Promise<unknown>
      })
      .finally(() => lane.inFlight--)
  }

  private pick(): Lane {
    let best = -1
    for (let i = 0; i < this.lanes.length; i++) {
      const lane = this.lanes[i]
      if (!lane) return (this.lanes[i] = this.connect(i))
      if (best === -1 || lane.inFlight < (this.lanes[best] as Lane).inFlight) best = i
    }
    return this.lanes[best] as Lane
  }

  private connect(i: number): Lane {
    const client = this.open()
    const lane: Lane = {
      client: client.connect().then(() => {
        this.connected()
        return client
      }),
      inFlight: 0,
      corked: false,
    }
    // A lane whose connection fails is replaced on the next read; the statements on it fail with it.
    const drop = () => {
      if (this.lanes[i] === lane) this.lanes[i] = undefined
    }
    client.on('error', drop)
    client.on('end', drop)
    lane.client.catch(drop)
    return lane
  }

  /** Holds the lane's writes until the end of this turn of the event loop, where they leave as one. */
  private cork(lane: Lane, client: LaneClient): void {
    if (lane.corked) return
    const stream = (client as unknown as { connection: { stream: { cork(): void; uncork(): void } } }).connection.stream
    lane.corked = true
    stream.cork()
    setImmediate(() => {
      lane.corked = false
      stream.uncork()
    })
  }

  async close(): Promise<void> {
    this.closed = true
    const open = this.lanes.filter((lane): lane is Lane => lane !== undefined)
    this.lanes.fill(undefined)
    await Promise.allSettled(open.map(async (lane) => (await lane.client).end()))
  }
}
