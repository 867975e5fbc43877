import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { type FileBytes, fileDirectory } from '../file-bytes.ts'
import { type After, type EngineOptions, type EngineStore, type Queries, reportLater, type Store, storeClosed } from '../store.ts'
import { type CheckpointOptions, type Checkpoints, workerCheckpoints, writerThreshold } from './checkpoints.ts'
import { openReader, openWriter, type SqliteDb, walSync } from './connection.ts'
import { DurabilityClock } from './durability.ts'
import { GroupCommit, type GroupCommitOptions } from './group-commit.ts'
import type { ReplicaSource } from './replica-store.ts'
import { lockDatabaseFile } from './process-lock.ts'
import { sqliteQueries } from './queries.ts'
import { ParticipationCache } from './participation-cache.ts'
import { TenancyCache } from './tenancy-cache.ts'

export interface SqliteStoreOptions extends Partial<GroupCommitOptions>, EngineOptions {
  /** WAL checkpoints on a worker thread (see workerCheckpoints): how often, and where their failure is told. */
  checkpoints?: Partial<CheckpointOptions>
  /**
   * A fault seam for tests: runs before each sync of the WAL and may throw as a full disk does there
   * (ENOSPC from fdatasync), which SQLite itself never sees (test/storage/disk-full.test.ts).
   */
  beforeSync?: () => void
}

/**
 * The storage API on one SQLite file: a writing connection whose units of work are group-committed,
 * and a read-only connection for reads outside units.
 *
 * `:memory:` opens a private temporary file instead, deleted on close: an in-memory database
 * cannot be shared by two connections, and a test should run the same two-connection path as
 * production does.
 */
export class SqliteStore implements EngineStore {
  readonly shared = false
  /** The writing connection, for tools and tests that look at the tables directly. */
  readonly db: SqliteDb
  private readonly reader: SqliteDb
  private readonly readQueries: Queries
  private readonly commits: GroupCommit<Queries>
  private readonly wal: ReturnType<typeof walSync>
  private readonly checkpoints: Checkpoints
  /** Uploaded files: in `<database file>.files/` (a folder in the temporary one for `:memory:`). */
  readonly files: FileBytes
  private readonly temporaryDir: string | undefined
  /** The file, and how far its commits are durable: what a read replica on another thread opens (replica-store.ts). */
  readonly replicaSource: ReplicaSource
  private readonly lock: { release(): void }
  private closing: Promise<void> | undefined

  constructor(databaseUrl: string, { onQuery, onEffectError = reportLater, onCommit, checkpoints, beforeSync }: SqliteStoreOptions = {}) {
    this.temporaryDir = databaseUrl === ':memory:' ? mkdtempSync(join(tmpdir(), 'confab-')) : undefined
    const path = this.temporaryDir ? join(this.temporaryDir, 'confab.db') : resolve(databaseUrl)
    createOwnerOnly(path)
    this.lock = lockDatabaseFile(path)
    try {
      this.db = openWriter(path, onQuery)
    } catch (error) {
      this.lock.release()
      throw error
    }
    this.files = fileDirectory(`${path}.files`)
    const durability = new DurabilityClock()
    const tenancy = new TenancyCache()
    // The reader's statements run outside any transaction: each sees the last commit, the count read just before it.
    const participations = new ParticipationCache()
    this.replicaSource = { path, durability: durability.memory, tenancy: tenancy.memory, participations: participations.memory }
    this.reader = openReader(path, onQuery)
    this.readQueries = sqliteQueries(this.reader, tenancy, { cache: participations, keeps: true })
    this.wal = walSync(path)
    const writer = this.db.$client
    writer.pragma(`wal_autocheckpoint = ${writerThreshold.withWorker}`)
    this.checkpoints = workerCheckpoints(path, () => writer.pragma(`wal_autocheckpoint = ${writerThreshold.alone}`), {
      ...checkpoints,
      onError: checkpoints?.onError ?? ((error) => process.emitWarning(`${(error as Error).message}; SQLite checkpoints on the writer again`)),
    })
    this.commits = new GroupCommit(writer, sqliteQueries(this.db, tenancy, { cache: participations, keeps: false }), {
      onEffectError,
      onCommit: (units, seconds) => {
        this.checkpoints.committed()
        onCommit?.(units, seconds)
      },
      sync: beforeSync ? () => Promise.resolve().then(beforeSync).then(this.wal.sync) : this.wal.sync,
      durability,
      onTransactionEnd: () => {
        tenancy.transactionEnded()
        participations.transactionEnded()
      },
    })
  }

  /**
   * Reads the last commit; while the sync that makes it durable is under way, the answer waits for
   * it, so that no reader is shown a write a crash could still undo.
   */
  read<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(storeClosed())
    return work(this.readQueries).then((value) => {
      const durable = this.commits.durable()
      return durable ? durable.then(() => value) : value
    })
  }

  write<T>(work: (q: Queries, after: After) => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(storeClosed())
    return this.commits.submit(work)
  }

  /** A unit of one statement is a unit of work: it costs no round trip in process. */
  writeStatement<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    return this.write((q) => work(q))
  }

  /** One writing connection: the background's work joins the group commit. */
  background(): Store {
    return this
  }

  async check(): Promise<void> {
    if (this.closing) throw storeClosed()
    this.reader.$client.prepare('select 1').get()
  }

  close(): Promise<void> {
    this.closing ??= this.commits.idle().then(async () => {
      // The reader and the checkpoint worker go first: the last connection to close checkpoints and
      // removes the WAL, which only the writer can do.
      this.reader.$client.close()
      await this.checkpoints.close()
      this.db.$client.close()
      this.wal.close()
      this.lock.release()
      if (this.temporaryDir) rmSync(this.temporaryDir, { recursive: true, force: true })
    })
    return this.closing
  }
}

/**
 * A new database file is made owner-only (0600, in a folder made 0700) before SQLite opens it: it
 * holds every key and message, and SQLite gives its -wal and -shm files the database file's mode.
 * An existing file keeps the mode its operator gave it.
 */
function createOwnerOnly(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  try {
    closeSync(openSync(path, 'wx', 0o600))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
}

export const openSqliteStore = (databaseUrl: string, options?: SqliteStoreOptions) => new SqliteStore(databaseUrl, options)
