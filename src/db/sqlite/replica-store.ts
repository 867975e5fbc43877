import type { After, EngineStore, Queries, Store } from '../store.ts'
import { fileDirectory, type FileBytes } from '../file-bytes.ts'
import { openReader, type SqliteDb } from './connection.ts'
import { DurabilityClock } from './durability.ts'
import { sqliteQueries } from './queries.ts'
import { ParticipationCache } from './participation-cache.ts'
import { TenancyCache } from './tenancy-cache.ts'
import { TurnSnapshot } from './turn-snapshot.ts'

/** What a read replica opens: the writer's file, and the writer's durability clock and count of bot changes (shared memory). */
export interface ReplicaSource {
  path: string
  durability: SharedArrayBuffer
  tenancy: SharedArrayBuffer
  /** The writer's count of changes to what participations are read from (participation-cache.ts). */
  participations: SharedArrayBuffer
}

/** Why a replica refused a write: http/read-replicas.ts sends it reads only, and one that writes goes back to the main thread. */
export class ReplicaWriteRefused extends Error {
  constructor() {
    super('a read replica does not write')
    this.name = 'ReplicaWriteRefused'
  }
}

/**
 * The storage API of a read replica: its own read-only connection to the writer's SQLite file, on
 * another thread. WAL lets it read the last commit beside the writer without blocking either; like
 * the writer's reads (SqliteStore.read), it answers only once what it may have seen is durable.
 */
export class ReplicaStore implements EngineStore {
  readonly shared = false
  readonly files: FileBytes
  private readonly reader: SqliteDb
  private readonly queries: Queries
  private readonly durability: DurabilityClock
  private readonly snapshot: TurnSnapshot

  /** `onWrite` is told of every write refused: the replica then hands its request back to the main thread. */
  constructor(
    { path, durability, tenancy, participations }: ReplicaSource,
    private readonly onWrite: () => void = () => {},
  ) {
    this.reader = openReader(path)
    const generation = new Int32Array(participations)
    // A replica's reads of a turn share a snapshot: what they read is as old as the count when it opened.
    const kept = new ParticipationCache(participations, () => this.snapshot.openedUnder ?? Atomics.load(generation, 0))
    this.queries = sqliteQueries(this.reader, new TenancyCache(tenancy), { cache: kept, keeps: true })
    this.durability = new DurabilityClock(durability)
    this.snapshot = new TurnSnapshot(
      this.reader.$client,
      () => this.durability.durableCount(),
      setImmediate,
      () => Atomics.load(generation, 0),
    )
    this.files = fileDirectory(`${path}.files`)
  }

  async read<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    this.snapshot.enter()
    const value = await work(this.queries)
    await this.durability.settled()
    return value
  }

  write<T>(_work: (q: Queries, after: After) => Promise<T>): Promise<T> {
    this.onWrite()
    return Promise.reject(new ReplicaWriteRefused())
  }

  writeStatement<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    return this.write((q) => work(q))
  }

  /** A replica runs no background work (the main thread does). */
  background(): Store {
    return this
  }

  async check(): Promise<void> {
    this.reader.$client.prepare('select 1').get()
  }

  async close(): Promise<void> {
    this.snapshot.end()
    this.reader.$client.close()
  }
}
