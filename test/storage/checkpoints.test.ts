import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Database } from '../../src/db/sqlite/driver.ts'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { CheckpointResult } from '../../src/db/sqlite/checkpoints.ts'
import { openSqliteStore } from '../../src/db/sqlite/store.ts'
import { eventually } from '../helpers/wait.ts'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'confab-checkpoints-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

const workspace = (i: number) => ({ id: `wkspace_${i}`, name: `workspace ${i}`, createdAt: 'now', updatedAt: 'now' })

/**
 * The workspaces in the database file itself, without its WAL: what checkpoints have copied there.
 * A copy is read, so that the store's own WAL is never opened by another connection; a copy taken
 * while a checkpoint writes may be torn, and then reads as nothing yet.
 */
function checkpointedWorkspaces(path: string): number {
  const copy = join(dir, `copy-${Math.random().toString(36).slice(2)}.db`)
  copyFileSync(path, copy)
  try {
    const db = new Database(copy, { readonly: true })
    try {
      return (db.prepare('select count(*) from workspaces').pluck().get() as number) ?? 0
    } finally {
      db.close()
    }
  } catch {
    return 0
  } finally {
    rmSync(copy, { force: true })
  }
}

describe('WAL checkpoints on a worker thread', () => {
  it('copies committed batches into the database file while the writer goes on', async () => {
    const path = join(dir, 'confab.db')
    const results: CheckpointResult[] = []
    const store = openSqliteStore(path, { checkpoints: { every: 2, onCheckpoint: (result) => results.push(result) } })
    try {
      // One batch each: the worker is asked for a checkpoint after every second commit. A checkpoint
      // copies what is committed when it starts, and the commits since the last one started wait in
      // the WAL until there are two: so the file ends with the first 11 or all 12, whichever way the
      // worker's timing fell, and never fewer.
      for (let i = 0; i < 12; i++) await store.write((q) => q.tenancy.insertWorkspace(workspace(i)))
      await eventually(() => expect(checkpointedWorkspaces(path)).toBeGreaterThanOrEqual(11))
      // The worker tells how a checkpoint went once it is over: the copy may see its pages first.
      await eventually(() => expect(results.length).toBeGreaterThan(0))
      expect(results.every((result) => result.busy === 0)).toBe(true)
    } finally {
      await store.close()
    }
  })

  it('closes its connection before the writer, which checkpoints the rest and removes the WAL', async () => {
    const path = join(dir, 'confab.db')
    const store = openSqliteStore(path, { checkpoints: { every: 1 } })
    for (let i = 0; i < 5; i++) await store.write((q) => q.tenancy.insertWorkspace(workspace(i)))
    await store.close()
    expect(existsSync(`${path}-wal`)).toBe(false)
    expect(checkpointedWorkspaces(path)).toBe(5)
  })

  it('leaves checkpoints to the writer when the worker fails, and says so', async () => {
    const path = join(dir, 'confab.db')
    const errors: unknown[] = []
    const store = openSqliteStore(path, { checkpoints: { every: 1, onError: (error) => errors.push(error) } })
    try {
      // The worker opens the database when it starts, with the first checkpoint: there is none then.
      rmSync(path)
      await store.write((q) => q.tenancy.insertWorkspace(workspace(0)))
      await eventually(() => expect(errors).toHaveLength(1))
      expect(String(errors[0])).toMatch(/checkpoint/i)
      const threshold = (store.db.$client.pragma('wal_autocheckpoint', { simple: true }) as number) ?? 0
      expect(threshold).toBe(1000)
    } finally {
      await store.close()
    }
  })
})
