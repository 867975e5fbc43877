import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openSqliteStore } from '../../src/db/sqlite/store.ts'

// The SQLite database holds every key and message, its files folder every upload: both are made
// owner-only (files 0600, folders 0700), whatever the umask leaves to the group and others.

const mode = (path: string) => statSync(path).mode & 0o777

describe('the SQLite database file and its files folder', () => {
  let root: string
  let previousUmask: number
  afterEach(() => {
    process.umask(previousUmask)
    rmSync(root, { recursive: true, force: true })
  })

  it('are created owner-only: the database, its -wal and -shm 0600, its folders 0700, each upload 0600', async () => {
    // A permissive umask, as some containers run with: only the code's own modes keep the files private.
    previousUmask = process.umask(0o002)
    root = mkdtempSync(join(tmpdir(), 'confab-modes-'))
    const path = join(root, 'data', 'confab.db')
    const store = openSqliteStore(path)
    try {
      const staged = await store.files.stage(new Uint8Array([1, 2, 3]))
      await staged.keep('file_1')
      expect({
        folder: mode(join(root, 'data')),
        database: mode(path),
        wal: mode(`${path}-wal`),
        shm: mode(`${path}-shm`),
        files: mode(`${path}.files`),
        upload: mode(join(`${path}.files`, 'file_1')),
      }).toEqual({ folder: 0o700, database: 0o600, wal: 0o600, shm: 0o600, files: 0o700, upload: 0o600 })
    } finally {
      await store.close()
    }
  })

  it('leaves an existing database with the mode its operator gave it', async () => {
    previousUmask = process.umask(0o022)
    root = mkdtempSync(join(tmpdir(), 'confab-modes-'))
    const path = join(root, 'confab.db')
    const first = openSqliteStore(path)
    await first.close()
    chmodSync(path, 0o640)
    const again = openSqliteStore(path)
    await again.close()
    expect(mode(path)).toBe(0o640)
  })

  it('makes :memory: a private temporary database the same way', async () => {
    previousUmask = process.umask(0o002)
    root = mkdtempSync(join(tmpdir(), 'confab-modes-'))
    const store = openSqliteStore(':memory:')
    try {
      const { path } = store.replicaSource
      expect({ folder: mode(dirname(path)), database: mode(path) }).toEqual({ folder: 0o700, database: 0o600 })
    } finally {
      await store.close()
    }
  })
})
