import { chmodSync, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, closeSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { Database } from './driver.ts'
import { lockDatabaseFile } from './process-lock.ts'

export interface BackupSummary {
  /** The backup's database file, and the folder of uploaded files beside it. */
  file: string
  bytes: number
  files: number
}

const filesOf = (databasePath: string) => `${databasePath}.files`

/** fsync of a file or folder, so a rename or a copy is on disk before it is reported done. */
function syncPath(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/**
 * A copy of a database or an upload, owner-only (0600) whatever the source's mode or the umask: a
 * backup holds every key and message, as the database does.
 */
function copyOwnerOnly(from: string, to: string): void {
  copyFileSync(from, to)
  chmodSync(to, 0o600)
}

/** Copies the uploaded files of a folder (not the staged uploads under way) into another, made 0700. */
function copyFiles(from: string, to: string): number {
  mkdirSync(to, { recursive: true, mode: 0o700 })
  chmodSync(to, 0o700)
  if (!existsSync(from)) return 0
  let copied = 0
  for (const name of readdirSync(from)) {
    if (name.startsWith('.')) continue
    copyOwnerOnly(join(from, name), join(to, name))
    syncPath(join(to, name))
    copied++
  }
  syncPath(to)
  return copied
}

function checkIntegrity(connection: InstanceType<typeof Database>, what: string): void {
  const result = connection.pragma('integrity_check', { simple: true })
  if (result !== 'ok') throw new Error(`${what} fails SQLite's integrity check: ${String(result)}`)
  const tables = connection.prepare(`select 1 from sqlite_master where type = 'table' and name = 'workspaces'`).get()
  if (!tables) throw new Error(`${what} is an SQLite database, but not Confab's (it has no workspaces table)`)
}

/**
 * A consistent copy of a database in use, taken beside the server: `VACUUM INTO` writes the state of
 * one read transaction (every write committed, hence every write answered, before it began), while
 * the server goes on writing — SQLite's backup API would start over at each of its writes. The
 * uploaded files follow, into `<file>.files/`; their bytes never change once uploaded.
 */
export function backupDatabase(databasePath: string, file: string): BackupSummary {
  const source = resolve(databasePath)
  const target = resolve(file)
  if (!existsSync(source)) throw new Error(`no database at ${source}`)
  if (existsSync(target)) throw new Error(`${target} exists already; choose a new file for the backup`)
  // Folders made for it are 0700, the file 0600 (docs/operations/backup-and-restore.md): it holds the encryption keys.
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 })
  const partial = `${target}.partial`
  rmSync(partial, { force: true })
  // VACUUM INTO writes into an empty file that exists: made 0600 first, so the copy is never readable by others.
  closeSync(openSync(partial, 'wx', 0o600))
  const connection = new Database(source, { readonly: true, fileMustExist: true })
  try {
    connection.pragma('busy_timeout = 5000')
    connection.prepare('vacuum into ?').run(partial)
  } finally {
    connection.close()
  }
  const copy = new Database(partial, { readonly: true, fileMustExist: true })
  try {
    checkIntegrity(copy, 'the backup')
  } finally {
    copy.close()
  }
  syncPath(partial)
  renameSync(partial, target)
  syncPath(dirname(target))
  const files = copyFiles(filesOf(source), filesOf(target))
  return { file: target, bytes: statSync(target).size, files }
}

/**
 * Puts a backup in place of a database, which no server may be using (its lock is taken for the
 * time of the restore). An existing database is replaced only when asked (`replace`).
 */
export function restoreDatabase(file: string, databasePath: string, { replace = false } = {}): BackupSummary {
  const backup = resolve(file)
  const target = resolve(databasePath)
  if (!existsSync(backup)) throw new Error(`no backup at ${backup}`)
  const check = new Database(backup, { readonly: true, fileMustExist: true })
  try {
    checkIntegrity(check, backup)
  } finally {
    check.close()
  }
  if (existsSync(target) && !replace) throw new Error(`a database exists at ${target}; add --force to replace it with the backup`)
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 })
  const lock = lockDatabaseFile(target)
  try {
    const staged = `${target}.restoring`
    copyOwnerOnly(backup, staged)
    syncPath(staged)
    // The old database's journal must not be replayed onto the backup.
    for (const suffix of ['-wal', '-shm']) rmSync(`${target}${suffix}`, { force: true })
    renameSync(staged, target)
    syncPath(dirname(target))
    const stagedFiles = `${filesOf(target)}.restoring`
    rmSync(stagedFiles, { recursive: true, force: true })
    const files = copyFiles(filesOf(backup), stagedFiles)
    rmSync(filesOf(target), { recursive: true, force: true })
    renameSync(stagedFiles, filesOf(target))
    return { file: target, bytes: statSync(target).size, files }
  } finally {
    lock.release()
  }
}
