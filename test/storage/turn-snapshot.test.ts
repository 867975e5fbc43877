import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Database } from '../../src/db/sqlite/driver.ts'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DurabilityClock } from '../../src/db/sqlite/durability.ts'
import { GroupCommit } from '../../src/db/sqlite/group-commit.ts'
import { TurnSnapshot } from '../../src/db/sqlite/turn-snapshot.ts'
import { eventually } from '../helpers/wait.ts'

// The reads of one turn share one read transaction, and a read that starts after a write was
// answered always sees that write, however its turn began.

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'confab-snapshot-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** A writer whose syncs the test ends, the durability clock it counts on, and a reader beside it. */
function database() {
  const path = join(dir, 'snapshot.db')
  const writer = new Database(path)
  writer.pragma('journal_mode = WAL')
  writer.exec('create table notes (id text primary key)')
  const add = writer.prepare('insert into notes (id) values (?)')
  const syncs: (() => void)[] = []
  const durability = new DurabilityClock()
  const units = new GroupCommit(
    writer,
    { add: async (id: string) => void add.run(id) },
    {
      onEffectError: () => {},
      sync: () => new Promise<void>((resolve) => syncs.push(resolve)),
      durability,
    },
  )
  const reader = new Database(path, { readonly: true })
  const notes = reader.prepare('select id from notes order by id').pluck()
  return {
    units,
    durability,
    reader,
    notes: () => notes.all() as string[],
    syncsWaiting: () => syncs.length,
    releaseSyncs: () => syncs.splice(0).forEach((resolve) => resolve()),
    close: () => {
      reader.close()
      writer.close()
    },
  }
}

/** A turn the test ends. */
function heldTurn() {
  const ends: (() => void)[] = []
  return {
    endOfTurn: (end: () => void) => void ends.push(end),
    end: () => ends.splice(0).forEach((end) => end()),
    get scheduled() {
      return ends.length
    },
  }
}

describe('reads in one turn', () => {
  /** A snapshot opened by a first read that saw no note, then a note committed whose sync is under way. */
  async function snapshotBeforeAWrite() {
    const db = database()
    const turn = heldTurn()
    const snapshot = new TurnSnapshot(db.reader, () => db.durability.durableCount(), turn.endOfTurn)
    snapshot.enter()
    expect(db.notes()).toEqual([])
    const written = db.units.submit((q) => q.add('a'))
    await eventually(() => expect(db.syncsWaiting()).toBe(1))
    return { db, turn, snapshot, written }
  }

  it('share one snapshot: a commit not yet answered is not seen by the next read of the turn', async () => {
    const { db, turn, snapshot, written } = await snapshotBeforeAWrite()
    // Committed, not yet durable nor answered: the turn's snapshot still holds.
    snapshot.enter()
    expect(db.notes()).toEqual([])
    expect(db.reader.inTransaction).toBe(true)
    expect(turn.scheduled).toBe(1)
    db.releaseSyncs()
    await written
    turn.end()
    db.close()
  })

  it('take a new snapshot once a write is answered, in the same turn', async () => {
    const { db, turn, snapshot, written } = await snapshotBeforeAWrite()
    db.releaseSyncs()
    await written
    snapshot.enter()
    expect(db.notes()).toEqual(['a'])
    // Still one end of turn scheduled, for whichever snapshot is open then.
    expect(turn.scheduled).toBe(1)
    turn.end()
    expect(db.reader.inTransaction).toBe(false)
    db.close()
  })
})

describe('the end of a turn', () => {
  it('ends the snapshot: the next read sees every commit', async () => {
    const db = database()
    const snapshot = new TurnSnapshot(db.reader, () => db.durability.durableCount())
    snapshot.enter()
    expect(db.notes()).toEqual([])
    await new Promise((resolve) => setImmediate(resolve))
    expect(db.reader.inTransaction).toBe(false)
    // A commit seen without any count moving: outside a snapshot, each statement reads the last commit.
    const written = db.units.submit((q) => q.add('a'))
    await eventually(() => expect(db.syncsWaiting()).toBe(1))
    expect(db.notes()).toEqual(['a'])
    db.releaseSyncs()
    await written
    db.close()
  })

  it('is harmless once the connection has closed', async () => {
    const db = database()
    const snapshot = new TurnSnapshot(db.reader, () => db.durability.durableCount())
    snapshot.enter()
    db.notes()
    db.close()
    await new Promise((resolve) => setImmediate(resolve))
    expect(() => snapshot.end()).not.toThrow()
  })
})
