import { hostname } from 'node:os'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Database } from './driver.ts'

/** Who holds a database: written beside the lock for the message a second process prints. */
interface Holder {
  pid: number
  host: string
  since: string
}

export class DatabaseInUseError extends Error {}

/**
 * One process per SQLite file. The store's live signals, group commit and caches assume they see
 * every write, so a second server (or a tool that writes) on a file in use must refuse to start.
 *
 * The lock is an exclusive SQLite lock on `<file>.lock`, held by a connection in exclusive locking
 * mode for as long as the store is open: the operating system drops it when the process dies, so a
 * killed server leaves no stale lock behind. The holder's pid is written to `<file>.lock.json`
 * for the refusal's message (the lock file itself cannot be read while it is held).
 */
export function lockDatabaseFile(path: string): { release(): void } {
  const lockPath = `${path}.lock`
  const holderPath = `${path}.lock.json`
  const lock = new Database(lockPath)
  try {
    lock.pragma('busy_timeout = 0')
    lock.pragma('locking_mode = EXCLUSIVE')
    // The first write takes the exclusive lock; exclusive locking mode keeps it until close.
    lock.exec('create table if not exists held (at text); delete from held; insert into held values (current_timestamp)')
  } catch (error) {
    lock.close()
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error
    throw new DatabaseInUseError(`the database ${path} is in use by ${describeHolder(holderPath)}; stop it first, or give this one another DATABASE_URL`)
  }
  const holder: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString() }
  writeFileSync(holderPath, `${JSON.stringify(holder)}\n`, { mode: 0o600 })
  return {
    release() {
      rmSync(holderPath, { force: true })
      lock.close()
    },
  }
}

function describeHolder(holderPath: string): string {
  try {
    const { pid, host, since } = JSON.parse(readFileSync(holderPath, 'utf8')) as Holder
    return `another process (pid ${pid} on ${host}, since ${since})`
  } catch {
    return 'another process'
  }
}
