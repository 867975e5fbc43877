import { Worker } from 'node:worker_threads'
import { driverPath } from './driver.ts'

/** How a checkpoint went: SQLite's `wal_checkpoint` answer (frames in the WAL, frames copied into the database). */
export interface CheckpointResult {
  busy: number
  log: number
  checkpointed: number
}

export interface CheckpointOptions {
  /** A checkpoint is asked for after this many commits (one at a time); 25 by default. */
  every?: number
  /** Where a checkpoint's failure is reported; SQLite then checkpoints on the writer again. */
  onError: (error: unknown) => void
  /** Told the outcome of each checkpoint (tests). */
  onCheckpoint?: (result: CheckpointResult) => void
}

export interface Checkpoints {
  /** A batch was committed. */
  committed(): void
  /** Resolves once the worker's connection is closed (the writer's must close last: it removes the WAL). */
  close(): Promise<void>
}

/**
 * The worker: its own connection, which copies the WAL into the database when asked (PASSIVE: it
 * never blocks the writer, and readers never block it). Evaluated as CommonJS, so that it runs the
 * same from src/ under a test runner and from dist/; the driver is required by its resolved path.
 */
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.path, { fileMustExist: true })
db.pragma('busy_timeout = 5000')
db.pragma('synchronous = NORMAL')
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close()
    parentPort.close()
    return
  }
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)')
    parentPort.postMessage({ ok: true, result })
  } catch (error) {
    parentPort.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) })
  }
})
`

/**
 * WAL checkpoints on a worker thread. SQLite's own (wal_autocheckpoint) run inside the COMMIT that
 * crosses the threshold, on the event loop, and with synchronous = NORMAL each syncs the WAL and
 * the database file: a 5–25 ms stall every few dozen batches under load. Here the writer keeps a
 * high threshold as a safety net (`writerThreshold`), and a checkpoint is asked of the worker every
 * `every` commits instead. The worker starts with the first checkpoint. If it fails, SQLite's own
 * checkpoints take over again (`fallBack`).
 */
export function workerCheckpoints(path: string, fallBack: () => void, { every = 25, onError, onCheckpoint }: CheckpointOptions): Checkpoints {
  let worker: Worker | undefined
  let failed = false
  let running = false
  let sinceLast = 0
  let closing: Promise<void> | undefined

  const fail = (cause: unknown) => {
    if (failed) return
    failed = true
    running = false
    fallBack()
    const reason = cause instanceof Error ? cause.message : String(cause)
    onError(new Error(`WAL checkpoints on a worker thread stopped (${reason})`, { cause }))
    void worker?.terminate()
  }

  const start = (): Worker => {
    const started = new Worker(workerSource, { eval: true, workerData: { path, driver: driverPath } })
    started.unref()
    started.on('message', (reply: { ok: true; result: CheckpointResult } | { ok: false; message: string }) => {
      running = false
      if (!reply.ok) {
        fail(new Error(`checkpoint failed: ${reply.message}`))
        return
      }
      onCheckpoint?.(reply.result)
      if (sinceLast >= every) run()
    })
    started.on('error', fail)
    started.on('exit', (code) => {
      if (!closing) fail(new Error(`the worker exited with code ${code}`))
    })
    return started
  }

  const run = () => {
    if (failed || closing || running) return
    running = true
    sinceLast = 0
    worker ??= start()
    worker.postMessage('checkpoint')
  }

  return {
    committed() {
      sinceLast++
      if (sinceLast >= every) run()
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        if (!worker || failed) {
          resolve()
          return
        }
        worker.once('exit', () => resolve())
        worker.postMessage('close')
      })
      return closing
    },
  }
}

/** The writer's own checkpoint threshold (pages) while the worker checkpoints, and SQLite's default otherwise. */
export const writerThreshold = { withWorker: 10_000, alone: 1_000 } as const
